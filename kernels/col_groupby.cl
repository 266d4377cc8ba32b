/* Group-by with exact sums from 32-bit atomics (src/column/groupby_cl.c, docs/groupby.md).
 *
 * Rows: gid[i] the dense group id (GB_NONE: a null row), xb[i] the float64 value's bits (x: low word, y:
 * high word; never read as a float). Per group g:
 *   sums[g * 2 GB_L + sign * GB_L + k], k < GB_L: the limbs of two unsigned fixed-point integers, the
 *     positive and the negative values' significands in units of 2^(base - 1074). A value's 53-bit
 *     significand, shifted to its exponent's position, is three 32-bit pieces added into three limbs with
 *     atomic_add; atomic_add returns the old limb, so a wrap (old + w < old) is seen by exactly the
 *     work-item that caused it, which adds the carry to the next limb (atomic_inc, and on up while that
 *     wraps too). The integer the limbs hold is thus always the exact sum of what was added, whatever
 *     the order, and GB_L limbs hold the sum of 2^32 values: the final limbs are unique, bit for bit.
 *   cnt[g] valid values, flags[g] GB_F_* (NaN, +inf, -inf, a finite value other than -0.0);
 *   mnhi/mxhi[g], then (gb_minmax_lo) mnlo/mxlo[g]: min and max of the 64-bit order keys by two 32-bit
 *     atomic passes (high words, then the low words of the rows whose high word won);
 *   first[g] (atomic_min of the row, 0xFFFFFFFF none), last[g] (atomic_max of the row + 1, 0 none).
 * gb_rows_local keeps sums, cnt and flags of its rows in LOCAL memory (ng groups) and merges them
 * once into global memory, limb by limb with the same carries. Only 32-bit integer atomics, OpenCL 1.1
 * core (no 64-bit atomics: the Apple GPUs' limit).
 * Build options: -DGB_L=limbs -DGB_SUM, -DGB_MINMAX, -DGB_FIRSTLAST (0 or 1): a few programs, whatever
 * the number of groups (an argument).
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
#define GB_NONE 0xFFFFFFFFu
#define GB_F_NAN 1u
#define GB_F_PINF 2u
#define GB_F_NINF 4u
#define GB_F_NZ 8u

/* w into limb i of a (GB_L limbs), carries up: gb_add_g in global memory, gb_add_l in local memory (OpenCL
 * C 1.2 has no generic address space). */
#define GB_ADDER(NAME, SPACE)                                                                               \
    inline void NAME(volatile SPACE uint *a, uint i, uint w)                                                \
    {                                                                                                       \
        const uint old = atomic_add(a + i, w);                                                              \
        if (old + w < old)                                                                                  \
            for (i++; i < GB_L; i++)                                                                        \
                if (atomic_inc(a + i) != 0xFFFFFFFFu)                                                       \
                    break;                                                                                  \
    }
GB_ADDER(gb_add_g, RAID_GLOBAL)
GB_ADDER(gb_add_l, RAID_LOCAL)

/* The row loop of one work-group: rows [start, end), each work-item every local-size-th row. SUMS, CNT
 * and FLAGS name the tables (global or local), ADD the limb adder of their address space. */
#define GB_ROWS(SUMS, CNT, FLAGS, ADD)                                                                      \
    for (uint i = start + RAID_LOCAL_ID(0); i < end; i += RAID_LOCAL_SIZE(0)) {                            \
        const uint g = gid[i];                                                                              \
        if (g == GB_NONE)                                                                                   \
            continue;                                                                                       \
        atomic_inc(CNT + g);                                                                                \
        if (!(GB_SUM || GB_MINMAX || GB_FIRSTLAST))                                                         \
            continue;                                                                                       \
        const uint2 v = xb[i];                                                                              \
        const uint hi = v.y, lo = v.x, E = (hi >> 20) & 0x7FFu;                                             \
        uint f;                                                                                             \
        int nan = 0;                                                                                        \
        if (E == 0x7FFu) {                                                                                  \
            nan = ((hi & 0xFFFFFu) | lo) != 0u;                                                             \
            f = nan ? GB_F_NAN : (hi >> 31) ? GB_F_NINF : GB_F_PINF;                                        \
        } else {                                                                                            \
            f = (hi == 0x80000000u && lo == 0u) ? 0u : GB_F_NZ;                                             \
            const uint mh = (hi & 0xFFFFFu) | (E ? 0x100000u : 0u), ml = lo;                                \
            if (GB_SUM && (mh | ml)) {                                                                      \
                const int q = (E ? (int)E - 1 : 0) - base;                                                  \
                const uint c = (uint)q >> 5, s = (uint)q & 31u;                                             \
                const uint w0 = ml << s, w1 = s ? (ml >> (32u - s)) | (mh << s) : mh,                       \
                           w2 = s ? mh >> (32u - s) : 0u;                                                   \
                const uint at = g * (2u * GB_L) + ((hi >> 31) ? GB_L : 0u);                                 \
                if (w0)                                                                                     \
                    ADD(SUMS + at, c, w0);                                                                  \
                if (w1)                                                                                     \
                    ADD(SUMS + at, c + 1u, w1);                                                             \
                if (w2)                                                                                     \
                    ADD(SUMS + at, c + 2u, w2);                                                             \
            }                                                                                               \
        }                                                                                                   \
        if ((FLAGS[g] & f) != f)                                                                            \
            atomic_or(FLAGS + g, f);                                                                        \
        if (GB_MINMAX && !nan) {                                                                            \
            const uint khi = (hi >> 31) ? ~hi : hi | 0x80000000u;                                          \
            if (khi < mnhi[g])                                                                              \
                atomic_min(mnhi + g, khi);                                                                  \
            if (khi > mxhi[g])                                                                              \
                atomic_max(mxhi + g, khi);                                                                  \
        }                                                                                                   \
        if (GB_FIRSTLAST) {                                                                                 \
            if (i < first[g])                                                                               \
                atomic_min(first + g, i);                                                                   \
            if (i + 1u > last[g])                                                                           \
                atomic_max(last + g, i + 1u);                                                               \
        }                                                                                                   \
    }

#define GB_ARGS                                                                                             \
    const RAID_GLOBAL uint *gid, const RAID_GLOBAL uint2 *xb, const uint n, const int base, const uint rows, \
        volatile RAID_GLOBAL uint *sums, volatile RAID_GLOBAL uint *cnt, volatile RAID_GLOBAL uint *flags,  \
        volatile RAID_GLOBAL uint *mnhi, volatile RAID_GLOBAL uint *mxhi, volatile RAID_GLOBAL uint *first,  \
        volatile RAID_GLOBAL uint *last

#define GB_RANGE                                                                                            \
    const uint start = RAID_GROUP_ID(0) * rows;                                                             \
    const uint end = n - start > rows ? start + rows : n;

/* Global tables only: any number of groups. */
RAID_KERNEL void gb_rows_global(GB_ARGS)
{
    GB_RANGE
    GB_ROWS(sums, cnt, flags, gb_add_g)
}

/* Per-work-group tables in local memory: lt = ng x (2 GB_L) limbs, then ng counts, then ng flags. */
RAID_KERNEL void gb_rows_local(GB_ARGS, const uint ng, volatile RAID_LOCAL uint *lt)
{
    GB_RANGE
    volatile RAID_LOCAL uint *lsum = lt, *lcnt = lt + ng * 2u * GB_L, *lflag = lcnt + ng;
    for (uint j = RAID_LOCAL_ID(0); j < ng * (2u * GB_L + 2u); j += RAID_LOCAL_SIZE(0))
        lt[j] = 0u;
    RAID_BARRIER();
    GB_ROWS(lsum, lcnt, lflag, gb_add_l)
    RAID_BARRIER();
    for (uint j = RAID_LOCAL_ID(0); j < ng * 2u * GB_L; j += RAID_LOCAL_SIZE(0)) {
        const uint w = lsum[j];
        if (w)
            gb_add_g(sums + (j / GB_L) * GB_L, j % GB_L, w);
    }
    for (uint j = RAID_LOCAL_ID(0); j < ng; j += RAID_LOCAL_SIZE(0)) {
        if (lcnt[j])
            atomic_add(cnt + j, lcnt[j]);
        if (lflag[j])
            atomic_or(flags + j, lflag[j]);
    }
}

/* The second min/max pass: the low words of the rows whose high word is their group's extreme. */
RAID_KERNEL void gb_minmax_lo(const RAID_GLOBAL uint *gid, const RAID_GLOBAL uint2 *xb, const uint n,
                              const RAID_GLOBAL uint *mnhi, const RAID_GLOBAL uint *mxhi,
                              volatile RAID_GLOBAL uint *mnlo, volatile RAID_GLOBAL uint *mxlo)
{
    const uint i = RAID_GLOBAL_ID(0);
    if (i >= n)
        return;
    const uint g = gid[i];
    if (g == GB_NONE)
        return;
    const uint2 v = xb[i];
    const uint hi = v.y, lo = v.x;
    if (((hi >> 20) & 0x7FFu) == 0x7FFu && ((hi & 0xFFFFFu) | lo))
        return; /* NaN */
    const uint khi = (hi >> 31) ? ~hi : hi | 0x80000000u, klo = (hi >> 31) ? ~lo : lo;
    if (khi == mnhi[g])
        atomic_min(mnlo + g, klo);
    if (khi == mxhi[g])
        atomic_max(mxlo + g, klo);
}
