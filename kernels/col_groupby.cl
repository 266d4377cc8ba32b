/* Group-by with exact sums from 32-bit atomics (src/column/groupby_device.c, docs/groupby.md).
 *
 * Rows: gid[i] the dense group id (the rank of the row's key; GB_NONE for a null row; below), xb[i] the
 * float64 value's bits (x: low word, y: high word; never read as a float). Per group g:
 *   sums[g * 2 GB_L + sign * GB_L + k], k < GB_L: the limbs of two unsigned fixed-point integers, the
 *     positive and the negative values' significands in units of 2^(base - 1074). A value's 53-bit
 *     significand, shifted to its exponent's position, is three 32-bit pieces added into three limbs with
 *     atomic_add; atomic_add returns the old limb, so a wrap (old + w < old) is seen by exactly the
 *     work-item that caused it, which owes the next limb the carry (folded into its next piece's add,
 *     gb_add3_*; atomic_inc on up past the top piece). The integer the limbs hold is thus always the exact
 *     sum of what was added, whatever the order, and GB_L limbs hold the sum of 2^32 values: the final
 *     limbs are unique, bit for bit. With -DGB_EB=1 the sums are exponent-bucket tables instead
 *     (sums[g * GB_SW + sign * GB_EBW GB_NB + GB_EBW (b - GB_B0) + word]; gb_eb_add_* below): two atomics
 *     per value.
 *   cnt[g] valid values, flags[g] GB_F_* (NaN, +inf, -inf, a finite value other than -0.0; with sums only
 *     +0.0 sets GB_F_NZ here: the host adds it where the tables are not zero);
 *   mnhi/mxhi[g], then (gb_minmax_lo) mnlo/mxlo[g]: min and max of the 64-bit order keys by two 32-bit
 *     atomic passes (high words, then the low words of the rows whose high word won);
 *   first[g] (atomic_min of the row, 0xFFFFFFFF none), last[g] (atomic_max of the row + 1, 0 none).
 * gb_rows_local keeps sums, cnt and flags of its rows in LOCAL memory (ng groups) and merges them
 * once into global memory, limb by limb with the same carries. Only 32-bit integer atomics, OpenCL 1.1
 * core (no 64-bit atomics: the Apple GPUs' limit).
 * Build options: -DGB_L=limbs -DGB_SUM, -DGB_MINMAX, -DGB_FIRSTLAST, -DGB_EB (0 or 1), -DGB_NB=buckets:
 * a few programs, whatever the number of groups (an argument).
 * OpenCL C 1.2, FP_CONTRACT OFF (no float arithmetic here at all), no 64-bit type. */
#pragma OPENCL FP_CONTRACT OFF
#ifndef GB_L
#define GB_L 4
#endif
#ifndef GB_SUM
#define GB_SUM 1
#endif
#ifndef GB_MINMAX
#define GB_MINMAX 0
#endif
#ifndef GB_FIRSTLAST
#define GB_FIRSTLAST 0
#endif
#ifndef GB_EB /* 1: the sums in exponent-bucket tables (GB_NB buckets; below), 0: in limbs */
#define GB_EB 0
#endif
#ifndef GB_NB
#define GB_NB 1
#endif
#ifndef GB_B0 /* the first exponent bucket kept (the lowest q of a value, over 8) */
#define GB_B0 0
#endif
#ifndef GB_NOCNT /* 1: no count per row (counts not asked: a -0.0 flags GB_F_NEGZ instead) */
#define GB_NOCNT 0
#endif
#ifndef GB_WG /* the work-group width at most (GB_WG of src/column/groupby_device.c): gb_range's and gb_part_starts'
                 local arrays */
#define GB_WG 256
#endif
#ifndef GB_LTW /* words of the local tables of gb_rows_local (ng (GB_SW + 2) at most) and gb_part_rows (2^pb (GB_SW +
                  2)): set by the host for the program that runs them */
#define GB_LTW 1
#endif
#define GB_MAXP 256 /* partitions of the partitioned path at most (255, and the null rows' digit) */
#define GB_EBW 3u /* words per exponent bucket */
#define GB_SW (GB_EB ? 2u * GB_EBW * GB_NB : 2u * GB_L) /* sum words per group: two signs' limbs or buckets */
#define GB_NONE 0xFFFFFFFFu
#define GB_F_NAN 1u
#define GB_F_PINF 2u
#define GB_F_NINF 4u
#define GB_F_NZ 8u
#define GB_F_NEGZ 32u /* with GB_NOCNT: a -0.0 value (the group is not empty: its zero sum is -0.0 unless GB_F_NZ) */
#define GB_EMPTY 0xFFFFFFFFu /* an empty word of the group-id tables (no key word reaches it: < 2^31) */

/* ---- the group ids (docs/groupby.md "Group ids on the device") -------------------------------------
 * Keys: int64 as two words (x: low, y: high). gb_range reduces, per work-group, the signed range of the
 * keys and the range of p (groupby_internal.h) of the finite non-zero values; the host combines the
 * partials and picks the direct table (keys spanning a small range: slot = key - kmin) or the hash table.
 * gb_ids_direct / gb_ids_hash give every row its SLOT (gid[i]; GB_NONE for a null row, whose key still
 * makes its group), and the row that fills a slot first takes the next dense id (atomic_inc) and writes
 * the slot's key and index into uk[3 id ..]; the host sorts those (few) keys and uploads the slots in key
 * order, gb_map turns them into map[slot] = rank, and gb_rank turns every row's slot into its rank in place
 * (gid[i] = map[gid[i]]): the aggregation kernels read dense ids. */

/* splitmix64's finaliser (raidMix64, src/core/internal.h) on two 32-bit words: z = (hi, lo). */
RAID_FN uint2 gb_mul64(uint2 z, uint chi, uint clo) /* z * (chi 2^32 + clo) mod 2^64; x: low, y: high */
{
    return RAID_UINT2(z.x * clo, RAID_MUL_HI(z.x, clo) + z.x * chi + z.y * clo);
}
RAID_FN uint2 gb_xorshr(uint2 z, uint r) /* z ^ (z >> r), 0 < r < 32 */
{
    return RAID_UINT2(z.x ^ ((z.x >> r) | (z.y << (32u - r))), z.y ^ (z.y >> r));
}
RAID_FN uint2 gb_mix64(uint2 z)
{
    z = gb_mul64(gb_xorshr(z, 30u), 0xBF58476Du, 0x1CE4E5B9u);
    z = gb_mul64(gb_xorshr(z, 27u), 0x94D049BBu, 0x133111EBu);
    return gb_xorshr(z, 31u);
}

/* Whether row i is null: valid[i] == 0 (masked != 0), or (nan_null != 0) a NaN value. */
RAID_FN int gb_null(const RAID_GLOBAL uchar *valid, const RAID_GLOBAL uint2 *xb, uint masked, uint nan_null, uint i)
{
    if (masked && !valid[i])
        return 1;
    if (nan_null) {
        const uint2 v = xb[i];
        return (v.y & 0x7FFFFFFFu) > 0x7FF00000u || ((v.y & 0x7FFFFFFFu) == 0x7FF00000u && v.x);
    }
    return 0;
}

/* Per work-group of rows [g rows, (g + 1) rows): out[8 g ..] = kmin (hi ^ 2^31, lo), kmax (the same: unsigned
 * order of the pairs = signed order of the keys), pmin, pmax (4096 and 0 + -1 as 0xFFFFFFFF when no finite
 * non-zero value; xb read only when usep), 2 unused. Every row counts, null or not (as the cpu path). */
RAID_KERNEL void gb_range(const RAID_GLOBAL uint2 *keys, const RAID_GLOBAL uint2 *xb, const uint n, const uint rows,
                          const uint usep, RAID_GLOBAL uint *out)
{
    RAID_SHARED uint red[6 * GB_WG]; /* 6 x local size */
    const uint lid = RAID_LOCAL_ID(0), ls = RAID_LOCAL_SIZE(0);
    const uint start = RAID_GROUP_ID(0) * rows, end = n - start > rows ? start + rows : n;
    uint mnh = 0xFFFFFFFFu, mnl = 0xFFFFFFFFu, mxh = 0u, mxl = 0u, pmin = 4096u, pmax = 0u; /* pmax: p + 1 */
    for (uint i = start + lid; i < end; i += ls) {
        const uint2 k = keys[i];
        const uint h = k.y ^ 0x80000000u;
        if (h < mnh || (h == mnh && k.x < mnl))
            mnh = h, mnl = k.x;
        if (h > mxh || (h == mxh && k.x > mxl))
            mxh = h, mxl = k.x;
        if (usep) {
            const uint2 v = xb[i];
            const uint E = (v.y >> 20) & 0x7FFu;
            if (E != 0x7FFu && ((v.y & 0x7FFFFFFFu) | v.x)) {
                const uint p = E ? E - 1u : 0u;
                pmin = RAID_MIN(pmin, p);
                pmax = RAID_MAX(pmax, p + 1u);
            }
        }
    }
    red[lid] = mnh, red[ls + lid] = mnl, red[2 * ls + lid] = mxh, red[3 * ls + lid] = mxl;
    red[4 * ls + lid] = pmin, red[5 * ls + lid] = pmax;
    RAID_BARRIER();
    if (lid == 0) { /* one work-item: the local size is small and this runs once per work-group */
        for (uint j = 1; j < ls; j++) {
            const uint h = red[j], l = red[ls + j], H = red[2 * ls + j], Lo = red[3 * ls + j];
            if (h < mnh || (h == mnh && l < mnl))
                mnh = h, mnl = l;
            if (H > mxh || (H == mxh && Lo > mxl))
                mxh = H, mxl = Lo;
            pmin = RAID_MIN(pmin, red[4 * ls + j]);
            pmax = RAID_MAX(pmax, red[5 * ls + j]);
        }
        RAID_GLOBAL uint *o = out + 8u * RAID_GROUP_ID(0);
        o[0] = mnh, o[1] = mnl, o[2] = mxh, o[3] = mxl, o[4] = pmin, o[5] = pmax, o[6] = 0u, o[7] = 0u;
    }
}

/* The row's slot is new: its filler takes the next id (meta[0]); past `limit` ids it flags meta[1] instead. */
RAID_FN void gb_new_group(volatile RAID_GLOBAL uint *meta, RAID_GLOBAL uint *uk, uint limit, uint2 k, uint s)
{
    const uint id = RAID_ATOMIC_INC(meta);
    if (id < limit) {
        uk[3u * id] = k.x, uk[3u * id + 1u] = k.y, uk[3u * id + 2u] = s;
    } else {
        RAID_ATOMIC_OR(meta + 1, 1u);
    }
}

/* Keys spanning fewer than 2^31 values from kmin (the host checks): slot = key - kmin (its low word: the
 * difference is below 2^32), occ[slot] GB_EMPTY until a row of the key fills it. */
RAID_KERNEL void gb_ids_direct(const RAID_GLOBAL uint2 *keys, const RAID_GLOBAL uint2 *xb,
                               const RAID_GLOBAL uchar *valid, const uint n, const uint masked, const uint nan_null,
                               const uint kmin_lo, RAID_GLOBAL uint *occ, volatile RAID_GLOBAL uint *meta,
                               RAID_GLOBAL uint *uk, const uint limit, RAID_GLOBAL uint *gid)
{
    const uint i = RAID_GLOBAL_ID(0);
    if (i >= n)
        return;
    const uint2 k = keys[i];
    const uint s = k.x - kmin_lo;
    if (occ[s] == GB_EMPTY && RAID_ATOMIC_CMPXCHG(occ + s, GB_EMPTY, 0u) == GB_EMPTY) {
        gb_new_group(meta, uk, limit, k, s);
    }
    gid[i] = gb_null(valid, xb, masked, nan_null, i) ? GB_NONE : s;
}

/* Open addressing (linear probing) over cap = mask + 1 slots of 4 words: the key as three words below 2^31
 * (w1 = lo bits 0-30, w2 = lo bit 31 and hi bits 0-29, w3 = hi bits 30-31), the fourth unused. The start
 * slot is gb_mix64(key ^ seed) & hmask (hmask = mask; tests shrink it to force collisions).
 *
 * Lock-free, and correct from the atomicity of each 32-bit atomic_cmpxchg alone (no ordering between
 * words, no fence, no waiting on another work-item): every word goes from GB_EMPTY to its final value
 * once and never changes again. A row compares its three words in order with atomic_cmpxchg(GB_EMPTY ->
 * its word): a returned GB_EMPTY (it wrote its word) or its own word lets it go on to the next word,
 * anything else sends it to the next slot. Hence (1) a slot whose last word is set holds the key of the
 * row that set it (each earlier word equals that row's, which compared it), and every row that ends at a
 * slot matched its three final words: the slot holds its key; (2) a key ends in one slot only: a row that
 * passed slot s saw there a final word different from its own, so s never holds its key; (3) exactly one
 * row sets a slot's last word (GB_EMPTY is returned once): that row takes the group's dense id. Plain
 * (volatile) loads first spare the atomics on the common path: a loaded word is GB_EMPTY or final, so
 * three loaded words equal to the row's are its slot, and one loaded word that is neither GB_EMPTY nor the
 * row's rules the slot out; only a GB_EMPTY word (empty, or not yet seen: a stale cached line is harmless)
 * sends the row to the atomics. A probe of more than cap
 * slots, or more than `limit` ids, flags meta[1]: the host retries with a larger table. */
RAID_KERNEL void gb_ids_hash(const RAID_GLOBAL uint2 *keys, const RAID_GLOBAL uint2 *xb,
                             const RAID_GLOBAL uchar *valid, const uint n, const uint masked, const uint nan_null,
                             RAID_GLOBAL uint *tab, const uint mask, const uint hmask, const uint seed_lo,
                             const uint seed_hi, volatile RAID_GLOBAL uint *meta, RAID_GLOBAL uint *uk,
                             const uint limit, RAID_GLOBAL uint *gid)
{
    const uint i = RAID_GLOBAL_ID(0);
    if (i >= n)
        return;
    const uint2 k = keys[i];
    const uint w1 = k.x & 0x7FFFFFFFu, w2 = (k.x >> 31) | ((k.y & 0x3FFFFFFFu) << 1), w3 = k.y >> 30;
    uint s = gb_mix64(RAID_UINT2(k.x ^ seed_lo, k.y ^ seed_hi)).y & hmask, probes = 0u;
    for (;; s = (s + 1u) & mask) {
        if (++probes > mask + 1u || ((probes & 31u) == 0u && meta[1])) { /* full: the host retries */
            RAID_ATOMIC_OR(meta + 1, 1u);
            s = GB_NONE;
            break;
        }
        RAID_GLOBAL uint *r = tab + 4u * s;
        const uint4 q = *(const RAID_GLOBAL uint4 *)r; /* one 16-byte load */
        const uint a = q.x, b = q.y, c = q.z;
        if (a == w1 && b == w2 && c == w3)
            break; /* the common path: the key is there */
        if ((a != GB_EMPTY && a != w1) || (b != GB_EMPTY && b != w2) || (c != GB_EMPTY && c != w3))
            continue; /* another key's slot */
        uint o = RAID_ATOMIC_CMPXCHG(r, GB_EMPTY, w1);
        if (o != GB_EMPTY && o != w1)
            continue;
        o = RAID_ATOMIC_CMPXCHG(r + 1, GB_EMPTY, w2);
        if (o != GB_EMPTY && o != w2)
            continue;
        o = RAID_ATOMIC_CMPXCHG(r + 2, GB_EMPTY, w3);
        if (o == GB_EMPTY)
            gb_new_group(meta, uk, limit, k, s);
        else if (o != w3)
            continue;
        break;
    }
    gid[i] = s == GB_NONE || gb_null(valid, xb, masked, nan_null, i) ? GB_NONE : s;
}

/* map[slot of the group of rank r] = r: srt[r] the slots in ascending key order (the host's sort). */
RAID_KERNEL void gb_map(const RAID_GLOBAL uint *srt, const uint ng, RAID_GLOBAL uint *map)
{
    const uint r = RAID_GLOBAL_ID(0);
    if (r < ng)
        map[srt[r]] = r;
}

/* Every row's slot into its group's rank (the dense group id, in ascending key order), in place: the
 * aggregation kernels then read gid[i] alone, as a scatter-add over dense ids does. */
RAID_KERNEL void gb_rank(RAID_GLOBAL uint *gid, const uint n, const RAID_GLOBAL uint *map)
{
    const uint i = RAID_GLOBAL_ID(0);
    if (i < n && gid[i] != GB_NONE)
        gid[i] = map[gid[i]];
}

/* w into limb i of a (GB_L limbs), carries up: gb_add_g in global memory, gb_add_l in local memory (OpenCL
 * C 1.2 has no generic address space). */
#define GB_ADDER(NAME, SPACE)                                                                               \
    RAID_FN void NAME(volatile SPACE uint *a, uint i, uint w)                                                \
    {                                                                                                       \
        const uint old = RAID_ATOMIC_ADD(a + i, w);                                                              \
        if (old + w < old)                                                                                  \
            for (i++; i < GB_L; i++)                                                                        \
                if (RAID_ATOMIC_INC(a + i) != 0xFFFFFFFFu)                                                       \
                    break;                                                                                  \
    }
GB_ADDER(gb_add_g, RAID_GLOBAL)
GB_ADDER(gb_add_l, RAID_LOCAL)

/* The three pieces w0, w1, w2 of a value into limbs c, c + 1, c + 2 of a (GB_L limbs) with the carries
 * folded in: the carry out of limb c rides on the add of w1 (w1 + carry wraps only when w1 = 2^32 - 1 and
 * then adds nothing there: the carry goes on), that of limb c + 1 on w2 (below 2^21: no wrap), and only a
 * carry out of limb c + 2 (rare: the top piece is small) costs further atomic_incs. Three atomics per
 * value where the separate carries cost about one and a half more (each random limb wraps half the
 * time). The integer the limbs hold is the exact sum of what was added, as with NAME above. */
#define GB_ADDER3(NAME, SPACE)                                                                              \
    RAID_FN void NAME(volatile SPACE uint *a, uint c, uint w0, uint w1, uint w2)                             \
    {                                                                                                       \
        uint carry = 0u, old, x;                                                                            \
        if (w0) {                                                                                           \
            old = RAID_ATOMIC_ADD(a + c, w0);                                                                    \
            carry = old + w0 < old;                                                                         \
        }                                                                                                   \
        x = w1 + carry;                                                                                     \
        carry = x < w1;                                                                                     \
        if (x) {                                                                                            \
            old = RAID_ATOMIC_ADD(a + c + 1u, x);                                                                \
            carry = old + x < old;                                                                          \
        }                                                                                                   \
        x = w2 + carry;                                                                                     \
        carry = 0u;                                                                                         \
        if (x) {                                                                                            \
            old = RAID_ATOMIC_ADD(a + c + 2u, x);                                                                \
            carry = old + x < old;                                                                          \
        }                                                                                                   \
        if (carry)                                                                                          \
            for (uint i = c + 3u; i < GB_L; i++)                                                            \
                if (RAID_ATOMIC_INC(a + i) != 0xFFFFFFFFu)                                                       \
                    break;                                                                                  \
    }
GB_ADDER3(gb_add3_g, RAID_GLOBAL)
GB_ADDER3(gb_add3_l, RAID_LOCAL)

/* Exponent-bucket tables (GB_EB): per group and sign GB_NB buckets of three words (lo, hi, top): bucket b
 * holds the values whose q (below) is in [8 b, 8 b + 8) as the 96-bit integer top 2^64 + hi 2^32 + lo in
 * units of 2^(8 b) of the limbs' unit (tables keep buckets GB_B0 .. GB_B0 + GB_NB - 1: the values' range). A value's significand shifted by q & 7 is below 2^60: its low 32
 * bits go into lo and the rest (below 2^28) plus lo's carry into hi in ONE atomic, and hi's carry (once
 * in about 2^32 / 2^27 adds) into top: two atomics per value. top counts carries only (fewer than 2^32).
 * The host adds the buckets into limbs (groupby_device.c gb_eb_limbs): the same integers, the same rounding. */
#define GB_EB_ADDER(NAME, SPACE)                                                                            \
    RAID_FN void NAME(volatile SPACE uint *a, uint lo, uint hi)                                              \
    {                                                                                                       \
        uint h = hi, old;                                                                                   \
        if (lo) {                                                                                           \
            old = RAID_ATOMIC_ADD(a, lo);                                                                        \
            h += old + lo < old ? 1u : 0u;                                                                  \
        }                                                                                                   \
        if (h) {                                                                                            \
            old = RAID_ATOMIC_ADD(a + 1, h);                                                                     \
            if (old + h < old)                                                                              \
                RAID_ATOMIC_INC(a + 2);                                                                          \
        }                                                                                                   \
    }
GB_EB_ADDER(gb_eb_add_g, RAID_GLOBAL)
GB_EB_ADDER(gb_eb_add_l, RAID_LOCAL)

/* The row loop of one work-group: rows [start, end), each work-item every local-size-th row; G_OF(i) the
 * row's group in the tables (GB_NONE: skip the row), X_OF(i) its value's bits. SUMS, CNT and FLAGS name
 * the tables (global or local), ADD (gb_add3_*) and EBADD (gb_eb_add_*) the adders of their address space. */
#define GB_ROWS(G_OF, X_OF, SUMS, CNT, FLAGS, ADD, EBADD)                                                        \
    for (uint i = start + RAID_LOCAL_ID(0); i < end; i += RAID_LOCAL_SIZE(0)) {                            \
        const uint g = G_OF(i);                                                                             \
        if (g == GB_NONE)                                                                                   \
            continue;                                                                                       \
        if (!GB_NOCNT)                                                                                      \
            RAID_ATOMIC_INC(CNT + g);                                                                            \
        if (!(GB_SUM || GB_MINMAX || GB_FIRSTLAST))                                                         \
            continue;                                                                                       \
        const uint2 v = X_OF(i);                                                                            \
        const uint hi = v.y, lo = v.x, E = (hi >> 20) & 0x7FFu;                                             \
        uint f;                                                                                             \
        int nan = 0;                                                                                        \
        if (E == 0x7FFu) {                                                                                  \
            nan = ((hi & 0xFFFFFu) | lo) != 0u;                                                             \
            f = nan ? GB_F_NAN : (hi >> 31) ? GB_F_NINF : GB_F_PINF;                                        \
        } else {                                                                                            \
            /* with sums, GB_F_NZ only for +0.0: the host adds it where the tables are not zero */        \
            f = GB_SUM ? ((hi | lo) == 0u ? GB_F_NZ : GB_NOCNT && hi == 0x80000000u && !lo ? GB_F_NEGZ : 0u) \
                       : (hi == 0x80000000u && lo == 0u) ? 0u : GB_F_NZ;                                      \
            const uint mh = (hi & 0xFFFFFu) | (E ? 0x100000u : 0u), ml = lo;                                \
            if (GB_SUM && (mh | ml)) {                                                                      \
                const int q = (E ? (int)E - 1 : 0) - base;                                                  \
                if (GB_EB) {                                                                                \
                    const uint s = (uint)q & 7u;                                                            \
                    const uint at = g * GB_SW + ((hi >> 31) ? GB_EBW * GB_NB : 0u) + GB_EBW * ((uint)q / 8u - GB_B0);\
                    EBADD(SUMS + at, ml << s, s ? (ml >> (32u - s)) | (mh << s) : mh);                      \
                } else {                                                                                    \
                    const uint c = (uint)q >> 5, s = (uint)q & 31u;                                         \
                    const uint w0 = ml << s, w1 = s ? (ml >> (32u - s)) | (mh << s) : mh,                   \
                               w2 = s ? mh >> (32u - s) : 0u;                                               \
                    ADD(SUMS + g * (2u * GB_L) + ((hi >> 31) ? GB_L : 0u), c, w0, w1, w2);                  \
                }                                                                                           \
            }                                                                                               \
        }                                                                                                   \
        if (f && (FLAGS[g] & f) != f)                                                                       \
            RAID_ATOMIC_OR(FLAGS + g, f);                                                                        \
        if (GB_MINMAX && !nan) {                                                                            \
            const uint khi = (hi >> 31) ? ~hi : hi | 0x80000000u;                                          \
            if (khi < mnhi[g])                                                                              \
                RAID_ATOMIC_MIN(mnhi + g, khi);                                                                  \
            if (khi > mxhi[g])                                                                              \
                RAID_ATOMIC_MAX(mxhi + g, khi);                                                                  \
        }                                                                                                   \
        if (GB_FIRSTLAST) {                                                                                 \
            if (i < first[g])                                                                               \
                RAID_ATOMIC_MIN(first + g, i);                                                                   \
            if (i + 1u > last[g])                                                                           \
                RAID_ATOMIC_MAX(last + g, i + 1u);                                                               \
        }                                                                                                   \
    }

#define GB_ARGS                                                                                             \
    const RAID_GLOBAL uint *gid, const RAID_GLOBAL uint2 *xb, const uint n,                                 \
        const int base, const uint rows,                                                                    \
        volatile RAID_GLOBAL uint *sums, volatile RAID_GLOBAL uint *cnt, volatile RAID_GLOBAL uint *flags,  \
        volatile RAID_GLOBAL uint *mnhi, volatile RAID_GLOBAL uint *mxhi, volatile RAID_GLOBAL uint *first,  \
        volatile RAID_GLOBAL uint *last

#define GB_RANGE                                                                                            \
    const uint start = RAID_GROUP_ID(0) * rows;                                                             \
    const uint end = n - start > rows ? start + rows : n;
#define GB_ROW_G(i) gid[i] /* rows in input order: the group's rank (gb_rank), GB_NONE for a null row */
#define GB_ROW_X(i) xb[i]

/* The local tables lt (ng groups from g0) into the global ones, limb by limb with carries (zeros skipped);
 * exponent buckets triple by triple (lo, then hi with lo's carry, then top with hi's). */
#define GB_MERGE(lt, ng, g0)                                                                                \
    {                                                                                                       \
        volatile RAID_LOCAL uint *lsum = lt, *lcnt = lt + ng * GB_SW, *lflag = lcnt + ng;                  \
        if (GB_EB) {                                                                                        \
            for (uint j = RAID_LOCAL_ID(0); j < ng * 2u * GB_NB; j += RAID_LOCAL_SIZE(0)) {                \
                const uint lo = lsum[GB_EBW * j], hi = lsum[GB_EBW * j + 1u], top = lsum[GB_EBW * j + 2u];  \
                volatile RAID_GLOBAL uint *a = sums + (g0) * GB_SW + GB_EBW * j;                            \
                uint c = 0u, old, h, t;                                                                     \
                if (lo) {                                                                                   \
                    old = RAID_ATOMIC_ADD(a, lo);                                                                \
                    c = old + lo < old;                                                                     \
                }                                                                                           \
                h = hi + c;                                                                                 \
                t = top + (h < hi ? 1u : 0u);                                                               \
                if (h) {                                                                                    \
                    old = RAID_ATOMIC_ADD(a + 1, h);                                                             \
                    t += old + h < old ? 1u : 0u;                                                           \
                }                                                                                           \
                if (t)                                                                                      \
                    RAID_ATOMIC_ADD(a + 2, t);                                                                   \
            }                                                                                               \
        } else {                                                                                            \
            for (uint j = RAID_LOCAL_ID(0); j < ng * 2u * GB_L; j += RAID_LOCAL_SIZE(0)) {                 \
                const uint w = lsum[j];                                                                     \
                if (w)                                                                                      \
                    gb_add_g(sums + (g0) * 2u * GB_L + (j / GB_L) * GB_L, j % GB_L, w);                     \
            }                                                                                               \
        }                                                                                                   \
        for (uint j = RAID_LOCAL_ID(0); j < ng; j += RAID_LOCAL_SIZE(0)) {                                 \
            if (lcnt[j])                                                                                    \
                RAID_ATOMIC_ADD(cnt + (g0) + j, lcnt[j]);                                                        \
            if (lflag[j])                                                                                   \
                RAID_ATOMIC_OR(flags + (g0) + j, lflag[j]);                                                      \
        }                                                                                                   \
    }

/* Global tables only: any number of groups. */
RAID_KERNEL void gb_rows_global(GB_ARGS)
{
    GB_RANGE
    GB_ROWS(GB_ROW_G, GB_ROW_X, sums, cnt, flags, gb_add3_g, gb_eb_add_g)
}

/* Per-work-group tables in local memory: lt = ng x GB_SW sum words, then ng counts, then ng flags. */
RAID_KERNEL void gb_rows_local(GB_ARGS, const uint ng)
{
    RAID_SHARED uint ltab[GB_LTW];
    volatile RAID_LOCAL uint *lt = ltab;
    GB_RANGE
    volatile RAID_LOCAL uint *lsum = lt, *lcnt = lt + ng * GB_SW, *lflag = lcnt + ng;
    for (uint j = RAID_LOCAL_ID(0); j < ng * (GB_SW + 2u); j += RAID_LOCAL_SIZE(0))
        lt[j] = 0u;
    RAID_BARRIER();
    GB_ROWS(GB_ROW_G, GB_ROW_X, lsum, lcnt, lflag, gb_add3_l, gb_eb_add_l)
    RAID_BARRIER();
    GB_MERGE(lt, ng, 0u)
}

/* ---- many groups: rows partitioned by group, then local tables per partition ----------------------
 * (docs/groupby.md "Partitioned rows".) Groups are cut into P partitions (P <= 255) of 2^pb consecutive ranks
 * whose tables fit in local memory; rows [blk R, (blk + 1) R) are block blk.
 *   gb_part_count: each block's rows per partition (a local histogram; no global atomic per row) added into
 *     pst[p] (zeroed by the host);
 *   gb_part_starts: one work-group, the exclusive scans of the sizes (pst: the partitions' starts, pst[P] the
 *     rows in all, pst[P + 1 .. 256) too) and of the chunks per partition (cst: ceil(size / C) each, cst[P]
 *     the chunks in all);
 *   then one pass of the device sort (kernels/col_sort.cl sort_pass with -DSORT_PDIG=1; groupby_device.c) moves
 *     every row's value and rank to its partition's run, by the digit (rank >> pb) & 255 (a null row's
 *     GB_NONE: digit 255, after every partition), pst its digits' starts;
 *   gb_part_rows: one work-group per chunk (at most C rows of one partition, found from cst: no host round
 *     trip), its partition's tables in local memory (local atomics), merged once into the global tables.
 * The tables hold integer sums, which do not depend on the rows' order. Sums, counts and flags only. */

#ifndef GB_CHECK /* 1: the partitioned path's kernels check their indices; a violation sets a bit of err[0] and
                    skips the access (tests; docs/groupby.md) */
#define GB_CHECK 0
#endif
RAID_FN int gb_bad(int cond, uint bit, volatile RAID_GLOBAL uint *err)
{
    if (GB_CHECK && cond) {
        RAID_ATOMIC_OR(err, bit);
        return 1;
    }
    return 0;
}
#define GB_BAD(cond, bit) gb_bad((cond), (bit), err)

RAID_KERNEL void gb_part_count(const RAID_GLOBAL uint *gid, const uint n, const uint rows, const uint pb,
                               const uint np, volatile RAID_GLOBAL uint *pst, volatile RAID_GLOBAL uint *err)
{
    RAID_SHARED uint h[GB_MAXP]; /* np */
    GB_RANGE
    raidWgHistZero(h, np, RAID_LOCAL_ID(0), RAID_LOCAL_SIZE(0));
    RAID_BARRIER();
    for (uint i = start + RAID_LOCAL_ID(0); i < end; i += RAID_LOCAL_SIZE(0)) {
        const uint g = gid[i];
        if (g != GB_NONE && !GB_BAD(g >> pb >= np, 1u))
            raidWgHistAdd(h, g >> pb);
    }
    RAID_BARRIER();
    raidWgHistFlush(h, np, pst, RAID_LOCAL_ID(0), RAID_LOCAL_SIZE(0));
}

/* Work-item lid's run [*lo, *hi) of m entries cut into the local size's runs. */
RAID_FN void gb_run(uint m, uint *lo, uint *hi)
{
    const uint ls = RAID_LOCAL_SIZE(0), lid = RAID_LOCAL_ID(0), per = (m + ls - 1u) / ls;
    *lo = RAID_MIN(lid * per, m);
    *hi = RAID_MIN(*lo + per, m);
}

/* pst[np + 1 .. npad) = the rows in all too: the starts of the sort pass's digits past the partitions (the null
 * rows' digit 255; raidSortDevicePartition). */
RAID_KERNEL void gb_part_starts(RAID_GLOBAL uint *pst, RAID_GLOBAL uint *cst, const uint np, const uint crows,
                                const uint npad)
{
    RAID_SHARED uint tmp[GB_WG]; /* local size */
    const uint lid = RAID_LOCAL_ID(0), ls = RAID_LOCAL_SIZE(0);
    uint lo, hi, s = 0u, c = 0u, tot, ctot;
    gb_run(np, &lo, &hi);
    for (uint j = lo; j < hi; j++)
        s += pst[j], c += (pst[j] + crows - 1u) / crows;
    uint ex = raidWgScanExcl(s, tmp, ls, lid, &tot), cx = raidWgScanExcl(c, tmp, ls, lid, &ctot);
    for (uint j = lo; j < hi; j++) {
        const uint z = pst[j];
        pst[j] = ex, cst[j] = cx;
        ex += z, cx += (z + crows - 1u) / crows;
    }
    if (RAID_LOCAL_ID(0) == 0u)
        pst[np] = tot, cst[np] = ctot;
    for (uint j = np + 1u + RAID_LOCAL_ID(0); j < npad; j += RAID_LOCAL_SIZE(0))
        pst[j] = tot;
}

/* One work-group per chunk: w = the work-group, its partition p (cst[p] <= w < cst[p + 1]: a binary
 * search), rows pst[p] + (w - cst[p]) C on, at most C of them and within the partition. */
RAID_KERNEL void gb_part_rows(const RAID_GLOBAL uint2 *sv, const RAID_GLOBAL uint *sr,
                              const RAID_GLOBAL uint *pst, const RAID_GLOBAL uint *cst, const uint np,
                              const uint crows, const uint ng, const uint pb, const int base,
                              volatile RAID_GLOBAL uint *sums, volatile RAID_GLOBAL uint *cnt,
                              volatile RAID_GLOBAL uint *flags,
                              volatile RAID_GLOBAL uint *mnhi, volatile RAID_GLOBAL uint *mxhi,
                              volatile RAID_GLOBAL uint *first, volatile RAID_GLOBAL uint *last, /* unused */
                              volatile RAID_GLOBAL uint *err)
{
    RAID_SHARED uint ltab[GB_LTW];
    volatile RAID_LOCAL uint *lt = ltab;
    const uint w = RAID_GROUP_ID(0);
    if (w >= cst[np])
        return; /* the launch covers the most chunks there can be */
    uint p = 0u, q = np; /* cst[p] <= w < cst[q] */
    while (q - p > 1u) {
        const uint mid = (p + q) / 2u;
        if (cst[mid] <= w)
            p = mid;
        else
            q = mid;
    }
    const uint start = pst[p] + (w - cst[p]) * crows, end = RAID_MIN(start + crows, pst[p + 1u]);
    const uint g0 = p << pb, bg = RAID_MIN(1u << pb, ng - g0);
    if (GB_BAD(p >= np || start >= end || end > pst[np] || g0 >= ng, 16u))
        return;
    volatile RAID_LOCAL uint *lsum = lt, *lcnt = lt + bg * GB_SW, *lflag = lcnt + bg;
    for (uint j = RAID_LOCAL_ID(0); j < bg * (GB_SW + 2u); j += RAID_LOCAL_SIZE(0))
        lt[j] = 0u;
    RAID_BARRIER();
#define GB_SG(i) (GB_BAD(sr[i] >> pb != p, 32u) ? GB_NONE : sr[i] & ((1u << pb) - 1u)) /* the rank in p */
#define GB_SX(i) sv[i]
    GB_ROWS(GB_SG, GB_SX, lsum, lcnt, lflag, gb_add3_l, gb_eb_add_l)
#undef GB_SG
#undef GB_SX
    RAID_BARRIER();
    GB_MERGE(lt, bg, g0)
}

/* The second min/max pass: the low words of the rows whose high word is their group's extreme. */
RAID_KERNEL void gb_minmax_lo(const RAID_GLOBAL uint *gid, const RAID_GLOBAL uint2 *xb,
                              const uint n,
                              const RAID_GLOBAL uint *mnhi, const RAID_GLOBAL uint *mxhi,
                              volatile RAID_GLOBAL uint *mnlo, volatile RAID_GLOBAL uint *mxlo)
{
    const uint i = RAID_GLOBAL_ID(0);
    if (i >= n)
        return;
    if (gid[i] == GB_NONE)
        return;
    const uint g = gid[i];
    const uint2 v = xb[i];
    const uint hi = v.y, lo = v.x;
    if (((hi >> 20) & 0x7FFu) == 0x7FFu && ((hi & 0xFFFFFu) | lo))
        return; /* NaN */
    const uint khi = (hi >> 31) ? ~hi : hi | 0x80000000u, klo = (hi >> 31) ? ~lo : lo;
    if (khi == mnhi[g])
        RAID_ATOMIC_MIN(mnlo + g, klo);
    if (khi == mxhi[g])
        RAID_ATOMIC_MAX(mxlo + g, klo);
}
