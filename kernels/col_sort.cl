/*
 * col_sort.cl -- the device path of the sorts (include/raid/sort.h; src/column/sort_device.c; docs/column.md
 * "Sorting"): an LSD radix sort of 64-bit sort keys, 32-bit integer operations only (no 64-bit integer, no
 * floating-point type). The float64 values arrive as two uint words each (little-endian: word 2i the low
 * half of value i; read here as uint2, .x the low word) and leave the same way: never a double here. A key
 * is a uint2 too: .x its low word, .y its high word.
 *
 * Build options: SORT_BITS (digit width, 1..8, with 2^SORT_BITS <= SORT_WG), SORT_WG (work-items per
 * work-group, a multiple of 32), SORT_ROUNDS (rounds of SORT_WG elements per tile: a tile of
 * SORT_WG * SORT_ROUNDS elements, at most 65,536), SORT_PAY (set by the host), SORT_KU (below; docs/column.md
 * "Sorting").
 *
 * The design is Onesweep's (Adinets and Merrill 2022, "Onesweep: a faster least significant digit radix
 * sort for GPUs"), with 32-bit words only and no subgroup functions:
 *   sort_keys  forms every key (and segment id) and counts ALL digits of all passes at once (the digit
 *              counts do not depend on the order), one histogram row per digit position: the global
 *              start of every digit of every pass follows (the host scans the rows, and skips a digit
 *              position whose row has one non-zero count: it moves nothing);
 *   sort_pass  ONE kernel per pass: a work-group takes the next tile number from an atomic counter (so a
 *              tile's predecessors have all started: the waits below cannot deadlock), ranks its tile's
 *              digits stably in local memory, publishes its digit counts and finds, by decoupled
 *              look-back over the earlier tiles' published counts, how many elements of each digit come
 *              before it; then it reorders keys and payload in local memory by digit and writes each
 *              digit's run to consecutive global positions (coalesced).
 * Stable ranking of a tile: each warp of 32 work-items owns a contiguous part of the tile, 32 elements per
 * round in input order; in a round every work-item sets its bit in its warp's mask of its digit (local
 * atomic_or); an element's rank in its warp's part is the warp's count of the digit so far plus the
 * popcount of the mask bits below its own (earlier lanes: earlier elements); the warps' counts then become
 * their prefix per digit. Equal digits keep input order: the pass is a stable counting sort.
 * Look-back words (per tile and digit, 32 bits each, 0 = not yet published): the tile's count + 1
 * ("aggregate") or 0x80000000 | the count over tiles 0..t ("inclusive"); counts are below 2^31.
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
#define SORT_ROUNDS 20
#endif
#ifndef SORT_PAY
#define SORT_PAY 1 /* 0: sort_pass moves keys only (no payload registers, no payload phase) */
#endif
#ifndef SORT_KU
#define SORT_KU 4 /* sort_keys: elements per work-item and trip of its loop */
#endif
#ifndef SORT_PDIG /* 1: sort_pass takes its digit from the payload (pin) itself, not from the key: the
                     group-by's partition of rows by group (raidSortDevicePartition; dmode 1, pmode 2) */
#define SORT_PDIG 0
#endif
#define SORT_RADIX (1u << SORT_BITS)
#define SORT_TILE (SORT_WG * SORT_ROUNDS)
#define SORT_WARPS (SORT_WG / 32)
#define SORT_NDIG ((64 + SORT_BITS - 1) / SORT_BITS) /* digit positions of a key */
#define SORT_SDIG ((32 + SORT_BITS - 1) / SORT_BITS) /* digit positions of a segment id, at most */
#define SORT_HROWS (SORT_NDIG + SORT_SDIG)
/* local words of sort_pass: the ranking's two mask sets and the warps' digit counts C, later the tile as uint2 */
#define SORT_MASKW (SORT_RADIX * SORT_WARPS)
#define SORT_CBASE (2 * SORT_MASKW) /* C: the words after the mask sets */
#define SORT_RANKW (3 * SORT_MASKW)
#define SORT_LW2 (SORT_TILE > (SORT_RANKW + 1) / 2 ? SORT_TILE : (SORT_RANKW + 1) / 2)

/* what the last pass writes to `out` (sort_pass's omode) */
#define OUT_NONE 0
#define OUT_VALUES 1 /* the doubles of the keys (inverse key; exact: no -0.0, NaN only 0x7FF8000000000000) */
#define OUT_IDX32 2  /* payload + base_lo */
#define OUT_IDX64 3  /* payload + (base_hi, base_lo) as int64 words */
#define OUT_IKEYS 4  /* the int64 keys of pairs (inverse of their sort key) */

/* The sort key of element i from its input words w: mode 0 the double (raidKeySort: nulls from the validity
 * bitmap `valid` from bit vbit0 when masked, descending), mode 1 the int64 of pairs (sign bit flipped,
 * inverted when descending). */
RAID_FN RaidKey elem_key(uint2 w, uint i, RAID_GLOBAL const uchar *valid, int masked, uint vbit0, int desc, int mode)
{
    RaidKey k;
    if (mode == 1) {
        k.hi = w.y ^ 0x80000000u;
        k.lo = w.x;
        if (desc) {
            k.hi = ~k.hi;
            k.lo = ~k.lo;
        }
        return k;
    }
    const uint b = vbit0 + i;
    const int v = masked ? (valid[b >> 3] >> (b & 7u)) & 1 : 1;
    return raidKeySort(w.y, w.x, masked, v, desc);
}

/* Keys (keys[i]: .x low word, .y high word) and segment ids, and the histograms of every digit position:
 * hist[row * SORT_RADIX + digit] (rows: SORT_NDIG key digits, then the segment id's; accumulated, hist
 * zeroed by the host), hist[SORT_HROWS * SORT_RADIX] |= 1 when a value's key does not give its bits back
 * (-0.0, a NaN other than 0x7FF8000000000000). mode 0: the sort key of the double in x (raidKeySort:
 * nulls, descending); mode 1: the int64 in x (pairs: sign bit flipped, inverted when descending).
 * valid: the validity bitmap from bit vbit0 (masked). segbits > 0: segid[i] = the last s with offs[s] <= i
 * (offs: nseg + 1 offsets from 0). Any number of work-groups (a grid-stride loop). */
RAID_KERNEL RAID_REQD_WG(SORT_WG)
void sort_keys(RAID_GLOBAL const uint2 *x, RAID_GLOBAL const uchar *valid, int masked, uint vbit0, int desc, int mode,
               uint n, RAID_GLOBAL const uint *offs, uint nseg, int segbits, RAID_GLOBAL uint2 *keys,
               RAID_GLOBAL uint *segid, RAID_GLOBAL uint *hist)
{
    RAID_SHARED uint h[SORT_HROWS * SORT_RADIX];
    RAID_SHARED uint inexact;
    const uint lid = RAID_LOCAL_ID(0);
    raidWgHistZero(h, SORT_HROWS * SORT_RADIX, lid, SORT_WG);
    if (lid == 0)
        inexact = 0u;
    RAID_BARRIER();
    const uint nsd = segbits > 0 ? ((uint)segbits + SORT_BITS - 1u) / SORT_BITS : 0u;
    /* SORT_KU elements per work-item and trip, loaded first (more loads in flight) */
    const uint G = RAID_GLOBAL_SIZE(0);
    for (uint i0 = RAID_GLOBAL_ID(0); i0 < n; i0 += SORT_KU * G) {
        uint2 wv[SORT_KU];
#pragma unroll
        for (uint u = 0; u < SORT_KU; u++) {
            const uint i = i0 + u * G;
            wv[u] = i < n ? x[i] : RAID_UINT2(0u, 0u);
        }
#pragma unroll
        for (uint u = 0; u < SORT_KU; u++) {
            const uint i = i0 + u * G;
            const uint2 w = wv[u];
            if (i < n) {
                const RaidKey k = elem_key(w, i, valid, masked, vbit0, desc, mode);
                if (mode == 0) {
                    const int negzero = w.y == 0x80000000u && w.x == 0u;
                    const int odd_nan =
                        k.hi == RAID_KEY_NAN_HI && k.lo == RAID_KEY_NAN_LO && !(w.y == 0x7FF80000u && w.x == 0u);
                    if (negzero || odd_nan)
                        RAID_ATOMIC_OR(&inexact, 1u);
                }
                keys[i] = RAID_UINT2(k.lo, k.hi);
                for (uint d = 0; d < SORT_NDIG; d++)
                    raidWgHistAdd(h, d * SORT_RADIX + raidKeyDigit(k, (int)(d * SORT_BITS), SORT_BITS));
                if (nsd) {
                    uint lo = 0u, hi = nseg; /* offs[lo] <= i < offs[hi] */
                    while (hi - lo > 1u) {
                        const uint mid = lo + (hi - lo) / 2u;
                        if (offs[mid] <= i)
                            lo = mid;
                        else
                            hi = mid;
                    }
                    segid[i] = lo;
                    for (uint d = 0; d < nsd; d++)
                        raidWgHistAdd(h, (SORT_NDIG + d) * SORT_RADIX + ((lo >> (d * SORT_BITS)) & (SORT_RADIX - 1u)));
                }
            }
        }
    }
    RAID_BARRIER();
    raidWgHistFlush(h, SORT_HROWS * SORT_RADIX, hist, lid, SORT_WG);
    if (lid == 0 && inexact)
        RAID_ATOMIC_OR(&hist[SORT_HROWS * SORT_RADIX], 1u);
}

/* The double (as words: .x low) of a sort key of raidKeySort without mask (the inverse). */
RAID_FN uint2 key_value(uint2 kk, int desc)
{
    RaidKey k;
    k.hi = kk.y;
    k.lo = kk.x;
    if (desc && !(k.hi == RAID_KEY_NAN_HI && k.lo == RAID_KEY_NAN_LO)) {
        k.hi = ~k.hi;
        k.lo = ~k.lo;
    }
    const RaidKey b = raidKeyToBits(k);
    return RAID_UINT2(b.lo, b.hi);
}

/* One pass: the stable counting sort of tile after tile by the digit at bit `shift` of the key (dmode 0)
 * or of the segment id of the payload (dmode 1). Payload in: none (pmode 0), the element's index (1: the
 * first pass), pin (2). Writes kout (wkeys), pout (wpay) and out (omode, OUT_*) at the sorted positions.
 * With SORT_PDIG the digit is that of the payload pin[i] at `shift` (the group-by's partition; the host
 * passes dmode 1, pmode 2). bases[boff + d]: the global start of digit d (the exclusive scan of this digit
 * position's histogram);
 * look = lookbuf + lcur: look[0] the tile counter, then look[1 + t R + d] the word of tile t and digit d: 0
 * (not yet published), count + 1 (the tile's own count, at most SORT_TILE) or 0x80000000 | count (the
 * count over tiles 0..t, below 2^31); zeroed before the pass (by the host before the first; each pass
 * clears the next one's words at lookbuf + lnext). One work-group per tile.
 * Ranking: warp w (32 work-items) owns the tile's elements [32 R w, 32 R (w + 1)), 32 per round in order;
 * per round an element sets its lane's bit in its warp's mask of its digit (M, two sets used alternately);
 * its rank in the warp's part is the warp's count of its digit before this round (C) plus the mask bits
 * below its lane; the lowest lane of each digit then advances C and clears the mask. At the end, per digit,
 * C's prefix over the warps and the tile's count. */
RAID_KERNEL RAID_REQD_WG(SORT_WG)
void sort_pass(RAID_GLOBAL const uint2 *kin, RAID_GLOBAL const uint *pin, RAID_GLOBAL const uint *segid, uint n, int shift,
               int dmode, int pmode, int wkeys, int wpay, int omode, int desc, uint base_lo, uint base_hi,
               RAID_GLOBAL const uint *bases, uint boff, RAID_GLOBAL uint *lookbuf, uint lcur, uint lnext,
               RAID_GLOBAL uint2 *kout, RAID_GLOBAL uint *pout, RAID_GLOBAL uint *out)
{
    RAID_GLOBAL uint *look = lookbuf + lcur, *look_next = lookbuf + lnext;
    RAID_SHARED uint L[2 * SORT_LW2] RAID_ALIGN(8); /* uint2 elements through RAID_VLOAD2/RAID_VSTORE2 (no type punning) */
    RAID_SHARED uint cnt[SORT_RADIX], gofs[SORT_RADIX], tmp[SORT_WG];
    RAID_SHARED uint tile_no;
    RAID_LOCAL uint *C = L + SORT_CBASE;
    const uint lid = RAID_LOCAL_ID(0), w = lid / 32u, lane = lid % 32u, bit = 1u << lane;
    if (lid == 0)
        tile_no = RAID_ATOMIC_INC(&look[0]);
    for (uint j = lid; j < SORT_CBASE + SORT_MASKW; j += SORT_WG) /* the mask sets and C */
        L[j] = 0u;
    RAID_BARRIER();
    const uint t = tile_no, base = t * SORT_TILE;
    /* the next pass's words of this tile (and its tile counter) are cleared here: no fill between passes */
    if (lid < SORT_RADIX)
        look_next[1u + t * SORT_RADIX + lid] = 0u;
    if (t == 0u && lid == 0u)
        look_next[0] = 0u;
    const uint m = n - base < SORT_TILE ? n - base : SORT_TILE; /* elements in this tile */
    const int needk = dmode == 0 || wkeys || omode == OUT_VALUES || omode == OUT_IKEYS;
    const uint own = w * 32u * SORT_ROUNDS + lane; /* this work-item's element of round 0 in the tile */
    uint2 k[SORT_ROUNDS];
    uint pos[SORT_ROUNDS];
#if SORT_PAY
    uint p[SORT_ROUNDS];
#endif
#pragma unroll
    for (uint r = 0; r < SORT_ROUNDS; r++) {
        const uint j = own + 32u * r, i = base + j;
        k[r] = RAID_UINT2(0u, 0u);
#if SORT_PAY
        p[r] = 0u;
#endif
        if (j < m) {
            if (needk)
                k[r] = kin[i];
#if SORT_PAY
            p[r] = pmode == 1 ? i : pmode == 2 ? pin[i] : 0u;
#endif
        }
    }
#pragma unroll
    for (uint r = 0; r < SORT_ROUNDS; r++) {
        const int inr = own + 32u * r < m;
        uint d = 0u;
        if (inr) {
#if SORT_PAY && SORT_PDIG
            d = (p[r] >> shift) & (SORT_RADIX - 1u); /* the payload's own digit (the group-by's partition) */
#else
#if SORT_PAY
            if (dmode == 1)
                d = (segid[p[r]] >> shift) & (SORT_RADIX - 1u);
            else
#endif
            {
                RaidKey kk;
                kk.hi = k[r].y;
                kk.lo = k[r].x;
                d = raidKeyDigit(kk, shift, SORT_BITS);
            }
#endif
        }
        RAID_LOCAL uint *mk = L + (r & 1u) * SORT_MASKW;
        if (inr)
            RAID_ATOMIC_OR(&mk[w * SORT_RADIX + d], bit);
        RAID_BARRIER();
        uint msk = 0u, before = 0u;
        if (inr) {
            msk = mk[w * SORT_RADIX + d];
            before = C[w * SORT_RADIX + d];
        }
        pos[r] = d << 16 | (before + RAID_POPCOUNT(msk & (bit - 1u))); /* the digit; the rank in the warp's part */
        RAID_BARRIER();
        if (inr && (msk & (bit - 1u)) == 0u) { /* the digit's lowest lane this round */
            C[w * SORT_RADIX + d] = before + RAID_POPCOUNT(msk);
            mk[w * SORT_RADIX + d] = 0u;
        }
    }
    RAID_BARRIER();
    /* per digit: the warps' counts into their exclusive prefix, the tile's count */
    uint c = 0u;
    if (lid < SORT_RADIX)
        for (uint u = 0; u < SORT_WARPS; u++) {
            const uint v = C[u * SORT_RADIX + lid];
            C[u * SORT_RADIX + lid] = c;
            c += v;
        }
    /* Publish this tile's counts, the digits' starts in the tile, then look back (raid_wg.h's decoupled
     * look-back: work-item d walks over the earlier tiles' words of digit d). Every earlier tile has started
     * (tile numbers come from the atomic counter) and publishes without waiting on a later one: the waits
     * end. */
    RAID_GLOBAL uint *mine = look + 1u + t * SORT_RADIX + lid;
    if (lid < SORT_RADIX)
        raidLookbackPublish(mine, t, c);
    uint total;
    const uint lstart = raidWgScanExcl(c, tmp, SORT_WG, lid, &total); /* (its barriers also publish C's prefixes) */
    if (lid < SORT_RADIX) {
        const uint before = raidLookbackPrefix(mine, SORT_RADIX, t, c);
        cnt[lid] = lstart;
        gofs[lid] = bases[boff + lid] + before - lstart; /* + the position in the tile (mod 2^32) */
    }
    RAID_BARRIER();
#pragma unroll
    for (uint r = 0; r < SORT_ROUNDS; r++) {
        const uint dg = pos[r] >> 16; /* keeps the digit in the high bits, the position in the tile below */
        pos[r] = dg << 16 | (cnt[dg] + C[w * SORT_RADIX + dg] + (pos[r] & 0xFFFFu));
    }
    RAID_BARRIER();
    /* The destinations: from the digit of each tile position's key where the keys go through local memory
     * (dmode 0), else from the tile's digits stored in tile order. (The barriers outside the conditions:
     * every work-item meets each of them.) */
    const int okeys = wkeys || omode == OUT_VALUES || omode == OUT_IKEYS;
    const int kdst = dmode == 0 && okeys;
    RAID_GLOBAL uint2 *o2 = (RAID_GLOBAL uint2 *)out;
#if SORT_PAY
    const int opay = wpay || omode == OUT_IDX32 || omode == OUT_IDX64;
    uint dst[SORT_ROUNDS];
#pragma unroll
    for (uint r = 0; r < SORT_ROUNDS; r++)
        if (!kdst && own + 32u * r < m)
            L[pos[r] & 0xFFFFu] = pos[r] >> 16;
    RAID_BARRIER();
#pragma unroll
    for (uint r = 0; r < SORT_ROUNDS; r++) {
        const uint j = r * SORT_WG + lid;
        dst[r] = !kdst && j < m ? gofs[L[j]] + j : 0u;
    }
    RAID_BARRIER();
#endif
    /* the keys (or the last pass's values / int64 keys) through local memory, written run by run */
#pragma unroll
    for (uint r = 0; r < SORT_ROUNDS; r++)
        if (okeys && own + 32u * r < m)
            RAID_VSTORE2(k[r], pos[r] & 0xFFFFu, L);
    RAID_BARRIER();
#pragma unroll
    for (uint r = 0; r < SORT_ROUNDS; r++) {
        const uint j = r * SORT_WG + lid;
        if (okeys && j < m) {
            const uint2 v = RAID_VLOAD2(j, L);
            uint dd;
            if (kdst) {
                RaidKey kk;
                kk.hi = v.y;
                kk.lo = v.x;
                dd = gofs[raidKeyDigit(kk, shift, SORT_BITS)] + j;
            }
#if SORT_PAY
            else
                dd = dst[r];
            dst[r] = dd;
#endif
            if (wkeys)
                kout[dd] = v;
            else if (omode == OUT_VALUES)
                o2[dd] = key_value(v, desc);
            else
                o2[dd] = desc ? RAID_UINT2(~v.x, ~v.y ^ 0x80000000u) : RAID_UINT2(v.x, v.y ^ 0x80000000u);
        }
    }
#if SORT_PAY
    RAID_BARRIER();
    /* the payload (or the last pass's indices) */
#pragma unroll
    for (uint r = 0; r < SORT_ROUNDS; r++)
        if (opay && own + 32u * r < m)
            L[pos[r] & 0xFFFFu] = p[r];
    RAID_BARRIER();
#pragma unroll
    for (uint r = 0; r < SORT_ROUNDS; r++) {
        const uint j = r * SORT_WG + lid;
        if (opay && j < m) {
            const uint v = L[j];
            if (wpay)
                pout[dst[r]] = v;
            if (omode == OUT_IDX32)
                out[dst[r]] = v + base_lo;
            else if (omode == OUT_IDX64) {
                const uint lo = v + base_lo;
                o2[dst[r]] = RAID_UINT2(lo, base_hi + (lo < v ? 1u : 0u));
            }
        }
    }
#endif
}

/* out[j] = x[idx[j]]: 64-bit words moved as uint2. */
RAID_KERNEL void sort_gather(RAID_GLOBAL const uint2 *x, RAID_GLOBAL const uint *idx, uint n, RAID_GLOBAL uint2 *out)
{
    const uint j = RAID_GLOBAL_ID(0);
    if (j < n)
        out[j] = x[idx[j]];
}
