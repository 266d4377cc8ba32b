/*
 * raid_keys.h -- the order key of a float64: a 64-bit unsigned integer, given as two 32-bit words, whose
 * unsigned order is the order of the doubles (docs/column.md). One source for the kernels and host C
 * (as raid_df.h, in the dialect of raid_compat.h): the device layer prepends it to every program, host code includes it
 * (through src/column/keys.h). Integer operations only, 32-bit words only (no 64-bit integer or float
 * type, as on GPUs without them).
 *
 * The order is numpy's and Arrow's for sorting: -inf < negative < -0.0 == +0.0 < positive < +inf < NaN.
 *   - A positive double (sign bit 0) keeps its bits with the top bit set: larger doubles have larger
 *     bit patterns, above every negative one.
 *   - A negative double has every bit inverted: larger magnitudes (more negative) get smaller keys.
 *   - -0.0 is folded onto +0.0 (key 0x8000000000000000): equal keys, so a stable sort keeps the two zeros
 *     in input order, as numpy's stable sort does.
 *   - Every NaN (either sign, any payload) gets the largest key 0xFFFFFFFFFFFFFFFF, above +inf
 *     (0xFFF0000000000000): NaNs sort last, in input order under a stable sort.
 * The inverse returns the double of a key: +0.0 for the zero key, the canonical quiet NaN
 * 0x7FF8000000000000 for the NaN key (a sort that must return the input's own bits, -0.0 and NaN
 * payloads included, carries the values or the indices rather than inverting keys).
 */
#ifndef RAID_KEYS_H
#define RAID_KEYS_H

#ifndef RAID_COMPAT_H /* host C: the dialect's host branch (kernels get it prepended) */
#include "raid_compat.h"
#endif
#define RAID_KEY_FN RAID_FN

/* A key as its high and low 32-bit words. */
typedef struct RaidKey {
    RaidU32 hi, lo;
} RaidKey;

#define RAID_KEY_NAN_HI 0xFFFFFFFFu
#define RAID_KEY_NAN_LO 0xFFFFFFFFu
#define RAID_KEY_ZERO_HI 0x80000000u

/* The key of the double whose bits are (hi, lo) (hi: sign, exponent and the top 20 mantissa bits).
 * Branch-free (masks instead of if/else: no divergence on a device, no mispredicted branch on random signs
 * on a cpu, and compilers vectorise it): the cases of the table in docs/column.md. */
RAID_KEY_FN RaidKey raidKeyFromBits(RaidU32 hi, RaidU32 lo)
{
    const RaidU32 mag = hi & 0x7FFFFFFFu;
    const RaidU32 neg = (RaidU32)0u - (hi >> 31); /* all ones for a negative double */
    const RaidU32 nan = (RaidU32)0u - (RaidU32)((mag > 0x7FF00000u) | ((mag == 0x7FF00000u) & (lo != 0u)));
    const RaidU32 zero = (RaidU32)0u - (RaidU32)((mag | lo) == 0u); /* +0.0 and -0.0 */
    RaidKey k;
    k.hi = hi ^ (neg | 0x80000000u); /* positive: top bit set; negative: every bit inverted */
    k.lo = lo ^ neg;
    k.hi = ((k.hi & ~zero) | (RAID_KEY_ZERO_HI & zero)) | nan;
    k.lo = (k.lo & ~zero) | nan;
    return k;
}

/* The bits (into *hi, *lo through the returned key's fields) of the double of key k: the inverse of
 * raidKeyFromBits up to the folding of -0.0 and of NaN payloads. */
RAID_KEY_FN RaidKey raidKeyToBits(RaidKey k)
{
    RaidKey b;
    if (k.hi == RAID_KEY_NAN_HI && k.lo == RAID_KEY_NAN_LO) {
        b.hi = 0x7FF80000u;
        b.lo = 0u;
    } else if (k.hi & 0x80000000u) {
        b.hi = k.hi & 0x7FFFFFFFu;
        b.lo = k.lo;
    } else {
        b.hi = ~k.hi;
        b.lo = ~k.lo;
    }
    return b;
}

/* a < b as unsigned 64-bit keys. */
RAID_KEY_FN int raidKeyLess(RaidKey a, RaidKey b)
{
    return a.hi != b.hi ? a.hi < b.hi : a.lo < b.lo;
}

/* The radix digit of width `bits` (1..16) at bit position `shift` (0..63, a multiple of bits not
 * required) of the key: bits that straddle the two words are joined. */
RAID_KEY_FN RaidU32 raidKeyDigit(RaidKey k, int shift, int bits)
{
    const RaidU32 mask = (1u << bits) - 1u;
    if (shift >= 32)
        return (k.hi >> (shift - 32)) & mask;
    if (shift + bits <= 32)
        return (k.lo >> shift) & mask;
    return ((k.lo >> shift) | (k.hi << (32 - shift))) & mask;
}

/* The SORT key of an element (include/raid/sort.h, docs/column.md "Sorting"): the order key, with
 *   - null (valid == 0, only where a validity mask is given: masked != 0): 0xFFFFFFFFFFFFFFFF, after NaN;
 *     NaN then 0xFFFFFFFFFFFFFFFE (still after every number);
 *   - desc != 0: every number's key inverted (larger values first, -0.0 == +0.0 kept), NaN and null keys
 *     kept (still last).
 * A stable sort of these keys is numpy's stable sort (pandas' for descending) with Arrow's nulls last. */
RAID_KEY_FN RaidKey raidKeySort(RaidU32 hi, RaidU32 lo, int masked, int valid, int desc)
{
    RaidKey k;
    if (masked && !valid) {
        k.hi = RAID_KEY_NAN_HI;
        k.lo = RAID_KEY_NAN_LO;
        return k;
    }
    k = raidKeyFromBits(hi, lo);
    if (k.hi == RAID_KEY_NAN_HI && k.lo == RAID_KEY_NAN_LO) {
        if (masked)
            k.lo = RAID_KEY_NAN_LO - 1u;
    } else if (desc) {
        k.hi = ~k.hi;
        k.lo = ~k.lo;
    }
    return k;
}

#endif /* RAID_KEYS_H */
