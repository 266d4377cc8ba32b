/*
 * realized.cl -- the fused realized-measures kernel.
 *
 * One work-group reduces one chunk (at most RAID_RUN * RAID_WG returns of one segment) into six
 * double-float partials, written as float2 (hi, lo) to part[chunk * 6 + k]:
 *   k = 0  sum r^2 1{r<0}                    (rs_neg)
 *   k = 1  sum r^2 1{r>0}                    (rs_pos; rv = rs_neg + rs_pos)
 *   k = 2  sum |r_i||r_{i-1}|                (bpv)
 *   k = 3  sum r^4                           (rq)
 *   k = 4  sum |r_i r_{i-1} r_{i-2}|^(4/3)    (tpq)
 *   k = 5  sum med(|r_i|,|r_{i-1}|,|r_{i-2}|)^2 (medrv)
 * A window term (k = 2, 4, 5) belongs to the chunk of its last return and is computed here only when the
 * whole window lies inside the chunk; the host adds the few windows that straddle chunk boundaries in
 * float64 (src/realized/realized_cl.c). The chunk is first staged in local memory with coalesced
 * loads; then work-item j takes the contiguous run [j*RAID_RUN, (j+1)*RAID_RUN) of the chunk there,
 * re-reading the two returns before it, so every window is computed by exactly one work-item. Terms are
 * formed exactly (TwoProd) or to below 2^-40.8 (the 4/3 powers), accumulated in double-float per
 * work-item (raid_df_acc) and reduced across the work-group by a fixed-order tree of
 * raid_df_add: the partials do not depend on scheduling.
 *
 * Compile-time parameters (set by the host):
 *   RAID_WG     work-group width (power of two)        RAID_RUN  returns per work-item
 *   RAID_INPUT_DF  0: input float (policy f32); 1: input float2 (hi, lo) (policy df)
 *   RAID_PART   bit mask of measure groups to compute (1 rs, 2 bpv, 4 rq+tpq, 8 medrv); 15 = fused.
 *               The partial masks exist only for the benchmark's fusion ablation.
 * The host scales each segment by a power of two so that max |r| is in [0.5, 1): no overflow, and
 * underflow only for terms below 2^-126 of the largest, which do not matter at 2^-48.
 */
#pragma OPENCL FP_CONTRACT OFF

#if !defined(RAID_WG) || !defined(RAID_RUN) || !defined(RAID_INPUT_DF) || !defined(RAID_PART)
#error "realized.cl needs RAID_WG, RAID_RUN, RAID_INPUT_DF and RAID_PART (set by src/realized/realized_cl.c)"
#endif

#define NACC 6

/* Local-memory index with one padding word every 32 words. */
#define PAD(k) ((k) + ((k) >> 5))
#define PADDED(n) ((n) + ((n) >> 5) + 1)

#if RAID_INPUT_DF
typedef float2 in_t;
#define LOCAL_VAL(k) raid_df_make(sx[PAD(k)], sy[PAD(k)])
#else
typedef float in_t;
#define LOCAL_VAL(k) raid_df_make(sx[PAD(k)], 0.0f)
#endif

/* |r| as a double-float (sign taken from hi; hi == 0 implies lo == 0 for a normalised value). */
inline raid_df df_abs(raid_df r)
{
    return r.hi < 0.0f ? raid_df_make(-r.hi, -r.lo) : r;
}

/* Exact or nearly exact square of a double-float: for f32 input (lo == 0) TwoProd is exact. */
inline raid_df df_sq(raid_df r)
{
#if RAID_INPUT_DF
    return raid_df_mul(r, r);
#else
    return raid_two_prod(r.hi, r.hi);
#endif
}

inline raid_df df_prod(raid_df a, raid_df b)
{
#if RAID_INPUT_DF
    return raid_df_mul(a, b);
#else
    return raid_two_prod(a.hi, b.hi);
#endif
}

/* Median of three non-negative values, by order only. */
inline raid_df med3(raid_df a, raid_df b, raid_df c)
{
#if RAID_INPUT_DF
    return raid_df_med3(a, b, c);
#else
    return raid_df_make(fmax(fmin(a.hi, b.hi), fmin(fmax(a.hi, b.hi), c.hi)), 0.0f);
#endif
}

RAID_KERNEL RAID_REQD_WG(RAID_WG)
void realized_fused(RAID_GLOBAL const in_t *x, RAID_GLOBAL const uint2 *chunk, RAID_GLOBAL float2 *part)
{
    const uint g = RAID_GROUP_ID(0);
    const uint lid = RAID_LOCAL_ID(0);
    const uint2 ch = chunk[g]; /* (offset of the chunk in x, number of returns) */
    const uint b = lid * RAID_RUN;
    const uint e = min(b + RAID_RUN, ch.y);
    RAID_GLOBAL const in_t *xc = x + ch.x;

    /* Stage the chunk in local memory with coalesced loads (return t*RAID_WG + lid by work-item lid),
     * then let each work-item walk its contiguous run there. One padding word every 32 keeps the runs'
     * strided reads free of bank conflicts. */
    RAID_LOCAL float sx[PADDED(RAID_RUN * RAID_WG)];
#if RAID_INPUT_DF
    RAID_LOCAL float sy[PADDED(RAID_RUN * RAID_WG)];
#endif
    for (uint t = 0; t < RAID_RUN; t++) {
        const uint k = t * RAID_WG + lid;
        if (k < ch.y) {
#if RAID_INPUT_DF
            const float2 v = xc[k];
            sx[PAD(k)] = v.x;
            sy[PAD(k)] = v.y;
#else
            sx[PAD(k)] = xc[k];
#endif
        }
    }
    RAID_BARRIER();

    raid_df acc[NACC];
    for (int k = 0; k < NACC; k++)
        acc[k] = raid_df_make(0.0f, 0.0f);

    /* Window state: the two returns before the current one (zero outside the chunk). */
    raid_df a1 = raid_df_make(0.0f, 0.0f), a2 = a1, q1 = a1, q2 = a1;
    if (b < e && b >= 1) {
        a1 = df_abs(LOCAL_VAL(b - 1));
#if RAID_PART & 4
        q1 = raid_df_pow43(a1);
#endif
    }
    if (b < e && b >= 2) {
        a2 = df_abs(LOCAL_VAL(b - 2));
#if RAID_PART & 4
        q2 = raid_df_pow43(a2);
#endif
    }

#pragma unroll
    for (uint k = 0; k < RAID_RUN; k++) {
        const uint i = b + k;
        if (i < e) {
            const raid_df r = LOCAL_VAL(i);
            const raid_df a = df_abs(r);
#if RAID_PART & 5
            const raid_df sq = df_sq(r);
#endif
#if RAID_PART & 1
            const int neg = r.hi < 0.0f;
            acc[0] = raid_df_acc(acc[0], neg ? sq.hi : 0.0f, neg ? sq.lo : 0.0f);
            acc[1] = raid_df_acc(acc[1], neg ? 0.0f : sq.hi, neg ? 0.0f : sq.lo);
#endif
#if RAID_PART & 2
            const raid_df p = df_prod(a, a1); /* a1 == 0 for the first return of the chunk */
            acc[2] = raid_df_acc(acc[2], p.hi, p.lo);
#endif
#if RAID_PART & 4
            raid_df r4 = raid_two_prod(sq.hi, sq.hi);
            r4.lo = RAID_FMAF(2.0f * sq.hi, sq.lo, r4.lo);
            acc[3] = raid_df_acc(acc[3], r4.hi, r4.lo);
            const raid_df q = raid_df_pow43(a);
            const raid_df t = raid_df_mul(raid_df_mul(q, q1), q2); /* q2 == 0 while i < 2 */
            acc[4] = raid_df_acc(acc[4], t.hi, t.lo);
            q2 = q1;
            q1 = q;
#endif
#if RAID_PART & 8
            raid_df m = med3(a, a1, a2);
            m = i >= 2 ? m : raid_df_make(0.0f, 0.0f);
            const raid_df m2 = df_prod(m, m);
            acc[5] = raid_df_acc(acc[5], m2.hi, m2.lo);
#endif
            a2 = a1;
            a1 = a;
        }
    }

    /* Fixed-order tree reduction across the work-group. */
    RAID_LOCAL float lh[NACC][RAID_WG];
    RAID_LOCAL float ll[NACC][RAID_WG];
    for (int k = 0; k < NACC; k++) {
        const raid_df v = raid_df_renorm(acc[k]);
        lh[k][lid] = v.hi;
        ll[k][lid] = v.lo;
    }
    RAID_BARRIER();
    for (uint s = RAID_WG / 2; s > 0; s >>= 1) {
        if (lid < s) {
            for (int k = 0; k < NACC; k++) {
                const raid_df v = raid_df_add(raid_df_make(lh[k][lid], ll[k][lid]),
                                              raid_df_make(lh[k][lid + s], ll[k][lid + s]));
                lh[k][lid] = v.hi;
                ll[k][lid] = v.lo;
            }
        }
        RAID_BARRIER();
    }
    /* Every slot is written whatever the width (a group narrower than NACC writes several). */
    for (uint k = lid; k < NACC; k += RAID_WG)
        part[(size_t)g * NACC + k] = RAID_FLOAT2(lh[k][0], ll[k][0]);
}
