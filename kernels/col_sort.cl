/*
 * col_sort.cl -- the device path of the sorts (include/raid/sort.h; src/column/sort_cl.c; docs/column.md
 * "Sorting"): an LSD radix sort of 64-bit sort keys held as two 32-bit words, 32-bit integer operations
 * only (no 64-bit integer, no floating-point type). The float64 values arrive as two uint words each
 * (little-endian: word 2i the low half of value i) and leave the same way: never a double here.
 *
 * Build options: SORT_BITS (digit width, 1..8), SORT_WG (work-items per work-group, a multiple of 32),
 * SORT_ROUNDS (rounds of SORT_WG elements per work-group: a tile of SORT_WG * SORT_ROUNDS elements).
 *
 * One pass of the sort (digit at bit `shift` of the key, or of the segment id):
 *   sort_hist    each work-group counts its tile's digits in local memory and writes the counts
 *                digit-major: counts[d * ngroups + g];
 *   sort_scan_*  the exclusive scan of that table (in place): counts[d * ngroups + g] becomes the number
 *                of elements with a smaller digit, plus those with digit d in earlier tiles: where tile
 *                g's first element of digit d goes;
 *   sort_scatter each work-group walks its tile in input order, SORT_WG elements per round; an element's
 *                rank among the round's elements of its digit comes from a per-digit bit mask of the
 *                round's work-items (local atomic_or, then popcounts of the bits below its own), added to
 *                the digit's running position in the tile: equal digits keep their input order (stable).
 * Segments: the segment id is the most significant part of the key: after the key's passes, passes over
 * the segment id's digits (read through the carried index) sort the segments apart, stably.
 * (FP_CONTRACT OFF as in every kernel file, though nothing here is floating point.)
 */
#pragma OPENCL FP_CONTRACT OFF

#ifndef SORT_BITS
#define SORT_BITS 8
#endif
#ifndef SORT_WG
#define SORT_WG 256
#endif
#ifndef SORT_ROUNDS
#define SORT_ROUNDS 16
#endif
#define SORT_RADIX (1u << SORT_BITS)
#define SORT_TILE (SORT_WG * SORT_ROUNDS)
#define SORT_WORDS (SORT_WG / 32)

/* Keys and the identity payload; diff[0], diff[1] collect the bits that differ from element 0's key.
 * mode 0: the sort key of the double in x (raid_key_sort: nulls, descending); mode 1: the int64 in x
 * (pairs: sign bit flipped, inverted when descending). valid: the validity bitmap from bit vbit0 (masked). */
__kernel void sort_keys(__global const uint *x, __global const uchar *valid, int masked, uint vbit0, int desc,
                        int mode, uint n, __global uint *khi, __global uint *klo, __global uint *idx,
                        __global uint *diff)
{
    __local uint dh, dl;
    const uint i = get_global_id(0);
    if (get_local_id(0) == 0)
        dh = dl = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i < n) {
        raid_key k, k0;
        if (mode == 1) {
            k.hi = x[2 * i + 1] ^ 0x80000000u;
            k.lo = x[2 * i];
            k0.hi = x[1] ^ 0x80000000u;
            k0.lo = x[0];
            if (desc) {
                k.hi = ~k.hi;
                k.lo = ~k.lo;
                k0.hi = ~k0.hi;
                k0.lo = ~k0.lo;
            }
        } else {
            const uint b = vbit0 + i, b0 = vbit0;
            const int v = masked ? (valid[b >> 3] >> (b & 7u)) & 1 : 1;
            const int v0 = masked ? (valid[b0 >> 3] >> (b0 & 7u)) & 1 : 1;
            k = raid_key_sort(x[2 * i + 1], x[2 * i], masked, v, desc);
            k0 = raid_key_sort(x[1], x[0], masked, v0, desc);
        }
        khi[i] = k.hi;
        klo[i] = k.lo;
        idx[i] = i;
        if ((k.hi ^ k0.hi) != 0u)
            atomic_or(&dh, k.hi ^ k0.hi);
        if ((k.lo ^ k0.lo) != 0u)
            atomic_or(&dl, k.lo ^ k0.lo);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        if (dh)
            atomic_or(&diff[0], dh);
        if (dl)
            atomic_or(&diff[1], dl);
    }
}

/* The segment of element i: the last s with offs[s] <= i (offs: nseg + 1 offsets from 0). */
__kernel void sort_segid(__global const uint *offs, uint nseg, uint n, __global uint *segid)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    uint lo = 0u, hi = nseg; /* offs[lo] <= i < offs[hi] */
    while (hi - lo > 1u) {
        const uint mid = lo + (hi - lo) / 2u;
        if (offs[mid] <= i)
            lo = mid;
        else
            hi = mid;
    }
    segid[i] = lo;
}

/* The digit of element i for this pass: of its key (mode 0) or of its segment id (mode 1). */
inline uint sort_digit(__global const uint *khi, __global const uint *klo, __global const uint *idx,
                       __global const uint *segid, uint i, int shift, int mode)
{
    if (mode == 1)
        return (segid[idx[i]] >> shift) & (SORT_RADIX - 1u);
    raid_key k;
    k.hi = khi[i];
    k.lo = klo[i];
    return raid_key_digit(k, shift, SORT_BITS);
}

__kernel __attribute__((reqd_work_group_size(SORT_WG, 1, 1)))
void sort_hist(__global const uint *khi, __global const uint *klo, __global const uint *idx,
               __global const uint *segid, uint n, int shift, int mode, __global uint *counts, uint ngroups)
{
    __local uint hist[SORT_RADIX];
    const uint lid = get_local_id(0), g = get_group_id(0);
    for (uint d = lid; d < SORT_RADIX; d += SORT_WG)
        hist[d] = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint r = 0; r < SORT_ROUNDS; r++) {
        const uint i = g * SORT_TILE + r * SORT_WG + lid;
        if (i < n)
            atomic_inc(&hist[sort_digit(khi, klo, idx, segid, i, shift, mode)]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = lid; d < SORT_RADIX; d += SORT_WG)
        counts[d * ngroups + g] = hist[d];
}

/* Exclusive scan of v over the work-group (tmp: SORT_WG words); the total through *total. */
inline uint wg_scan(uint v, __local uint *tmp, uint *total)
{
    const uint lid = get_local_id(0);
    tmp[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = 1u; off < SORT_WG; off <<= 1) {
        const uint add = lid >= off ? tmp[lid - off] : 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
        tmp[lid] += add;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const uint incl = tmp[lid];
    *total = tmp[SORT_WG - 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    return incl - v;
}

#define SCAN_IPT 4u
#define SCAN_BLOCK (SORT_WG * SCAN_IPT)

/* Scan, step 1: the sum of each block of SCAN_BLOCK entries of a[0 .. m). */
__kernel __attribute__((reqd_work_group_size(SORT_WG, 1, 1)))
void sort_scan_reduce(__global const uint *a, uint m, __global uint *sums)
{
    __local uint tmp[SORT_WG];
    const uint lid = get_local_id(0), base = get_group_id(0) * SCAN_BLOCK + lid * SCAN_IPT;
    uint v = 0u;
    for (uint j = 0; j < SCAN_IPT; j++)
        if (base + j < m)
            v += a[base + j];
    uint total;
    (void)wg_scan(v, tmp, &total);
    if (lid == 0)
        sums[get_group_id(0)] = total;
}

/* Scan, step 2 (one work-group): the exclusive scan of sums[0 .. nb), in place. */
__kernel __attribute__((reqd_work_group_size(SORT_WG, 1, 1)))
void sort_scan_top(__global uint *sums, uint nb)
{
    __local uint tmp[SORT_WG];
    const uint lid = get_local_id(0);
    uint carry = 0u;
    for (uint c = 0; c < nb; c += SORT_WG) {
        const uint v = c + lid < nb ? sums[c + lid] : 0u;
        uint total;
        const uint ex = wg_scan(v, tmp, &total);
        if (c + lid < nb)
            sums[c + lid] = carry + ex;
        carry += total;
    }
}

/* Scan, step 3: each block's exclusive scan plus its block's offset, in place. */
__kernel __attribute__((reqd_work_group_size(SORT_WG, 1, 1)))
void sort_scan_down(__global uint *a, uint m, __global const uint *sums)
{
    __local uint tmp[SORT_WG];
    const uint lid = get_local_id(0), base = get_group_id(0) * SCAN_BLOCK + lid * SCAN_IPT;
    uint v[SCAN_IPT], s = 0u;
    for (uint j = 0; j < SCAN_IPT; j++) {
        v[j] = base + j < m ? a[base + j] : 0u;
        s += v[j];
    }
    uint total;
    uint run = wg_scan(s, tmp, &total) + sums[get_group_id(0)];
    for (uint j = 0; j < SCAN_IPT; j++)
        if (base + j < m) {
            a[base + j] = run;
            run += v[j];
        }
}

/* The stable scatter of one pass (see the top). mode 0 moves keys and indices, mode 1 indices only. */
__kernel __attribute__((reqd_work_group_size(SORT_WG, 1, 1)))
void sort_scatter(__global const uint *khi, __global const uint *klo, __global const uint *idx,
                  __global const uint *segid, uint n, int shift, int mode, __global const uint *offsets,
                  uint ngroups, __global uint *ohi, __global uint *olo, __global uint *oidx)
{
    __local uint masks[SORT_RADIX * SORT_WORDS];
    __local uint running[SORT_RADIX];
    const uint lid = get_local_id(0), g = get_group_id(0), w = lid / 32u, bit = 1u << (lid % 32u);
    for (uint d = lid; d < SORT_RADIX; d += SORT_WG)
        running[d] = offsets[d * ngroups + g];
    for (uint r = 0; r < SORT_ROUNDS; r++) {
        const uint i = g * SORT_TILE + r * SORT_WG + lid;
        for (uint j = lid; j < SORT_RADIX * SORT_WORDS; j += SORT_WG)
            masks[j] = 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
        uint d = 0u;
        if (i < n) {
            d = sort_digit(khi, klo, idx, segid, i, shift, mode);
            atomic_or(&masks[d * SORT_WORDS + w], bit);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (i < n) {
            uint rank = popcount(masks[d * SORT_WORDS + w] & (bit - 1u));
            for (uint u = 0; u < w; u++)
                rank += popcount(masks[d * SORT_WORDS + u]);
            const uint pos = running[d] + rank;
            oidx[pos] = idx[i];
            if (mode == 0) {
                ohi[pos] = khi[i];
                olo[pos] = klo[i];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint e = lid; e < SORT_RADIX; e += SORT_WG) {
            uint c = 0u;
            for (uint u = 0; u < SORT_WORDS; u++)
                c += popcount(masks[e * SORT_WORDS + u]);
            running[e] += c;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* out[2j], out[2j+1] = x[2 idx[j]], x[2 idx[j] + 1]: 64-bit words moved as two uints. */
__kernel void sort_gather(__global const uint *x, __global const uint *idx, uint n, __global uint *out)
{
    const uint j = get_global_id(0);
    if (j >= n)
        return;
    const uint i = idx[j];
    out[2 * j] = x[2 * i];
    out[2 * j + 1] = x[2 * i + 1];
}
