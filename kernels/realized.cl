/*
 * realized.cl -- the fused realized-measures kernel.
 *
 * One work-group reduces one chunk (at most RAID_RUN * RAID_WG returns of one segment), read as the
 * returns' float64 bits (uint2: low word, high word), into six double-float partials, written as float2
 * (hi, lo) to part[chunk * 7 + k], and a seventh float2 (e, flag): the chunk's scale exponent and whether
 * a return was out of range (not finite or above RAID_MAXR):
 *   k = 0  sum r^2 1{r<0}                    (rs_neg)
 *   k = 1  sum r^2 1{r>0}                    (rs_pos; rv = rs_neg + rs_pos)
 *   k = 2  sum |r_i||r_{i-1}|                (bpv)
 *   k = 3  sum r^4                           (rq)
 *   k = 4  sum |r_i r_{i-1} r_{i-2}|^(4/3)    (tpq)
 *   k = 5  sum med(|r_i|,|r_{i-1}|,|r_{i-2}|)^2 (medrv)
 * A window term (k = 2, 4, 5) belongs to the chunk of its last return and is computed here only when the
 * whole window lies inside the chunk; the host adds the few windows that straddle chunk boundaries in
 * float64 (src/realized/realized_cl.c). The chunk is loaded with coalesced loads, scaled by the power
 * of two 2^-e that brings its largest magnitude into [0.5, 1) and split into the policy's float or
 * double-float by integer operations (raid_bits_to_df), all on the device (no float64 arithmetic, no
 * host pass over the returns), and staged in local memory; then work-item j takes the contiguous run [j*RAID_RUN, (j+1)*RAID_RUN) of the chunk there,
 * re-reading the two returns before it, so every window is computed by exactly one work-item. Terms are
 * formed exactly (TwoProd) or to below 2^-40.8 (the 4/3 powers), accumulated in double-float per
 * work-item (raid_df_acc) and reduced across the work-group by a fixed-order tree of
 * raid_df_add: the partials do not depend on scheduling.
 *
 * Compile-time parameters (set by the host):
 *   RAID_WG     work-group width (power of two)        RAID_RUN  returns per work-item
 *   RAID_INPUT_DF  0: values as floats (policy f32); 1: as double-floats (hi, lo) (policy df)
 *   RAID_MAXR_HI, RAID_MAXR_LO  the words of the largest magnitude allowed (1e74)
 *   RAID_PART   bit mask of measure groups to compute (1 rs, 2 bpv, 4 rq+tpq, 8 medrv); 15 = fused.
 *               The partial masks exist only for the benchmark's fusion ablation.
 * The scaling keeps every term below 1 (no overflow); underflow only hits terms below 2^-126 of the
 * chunk's largest, which do not matter at 2^-48 (the host recomputes a segment where they could).
 */
#pragma OPENCL FP_CONTRACT OFF

#if !defined(RAID_WG) || !defined(RAID_RUN) || !defined(RAID_INPUT_DF) || !defined(RAID_PART) || !defined(RAID_MAXR_HI) || \
    !defined(RAID_MAXR_LO)
#error "realized.cl needs RAID_WG, RAID_RUN, RAID_INPUT_DF, RAID_PART and RAID_MAXR_HI/LO (set by src/realized/realized_cl.c)"
#endif

#define NACC 6

/* Local-memory index with one padding word every 32 words. */
#define PAD(k) ((k) + ((k) >> 5))
#define PADDED(n) ((n) + ((n) >> 5) + 1)

#if RAID_INPUT_DF
#define LOCAL_VAL(k) raid_df_make(sx[PAD(k)], sy[PAD(k)])
#else
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
void realized_fused(RAID_GLOBAL const uint2 *x, RAID_GLOBAL const uint2 *chunk, RAID_GLOBAL float2 *part)
{
    const uint g = RAID_GROUP_ID(0);
    const uint lid = RAID_LOCAL_ID(0);
    const uint2 ch = chunk[g]; /* (offset of the chunk in x, number of returns) */
    const uint b = lid * RAID_RUN;
    const uint e = min(b + RAID_RUN, ch.y);
    RAID_GLOBAL const uint2 *xc = x + ch.x;

    /* Load the chunk's float64 bits with coalesced loads (return t*RAID_WG + lid by work-item lid) into
     * registers; find the chunk's largest magnitude (the high words order the exponents) and any return
     * out of range (not finite, or above RAID_MAXR: a 64-bit compare of the magnitude's words). */
    RAID_LOCAL uint s_max, s_bad;
    if (lid == 0)
        s_max = 0u, s_bad = 0u;
    uint2 v[RAID_RUN];
    uint mx = 0u, bad = 0u;
#pragma unroll
    for (uint t = 0; t < RAID_RUN; t++) {
        const uint k = t * RAID_WG + lid;
        v[t] = k < ch.y ? xc[k] : (uint2)(0u, 0u);
        const uint mag = v[t].y & 0x7FFFFFFFu;
        mx = max(mx, mag);
        bad |= (uint)(mag > RAID_MAXR_HI || (mag == RAID_MAXR_HI && v[t].x > RAID_MAXR_LO));
    }
    RAID_BARRIER();
    atomic_max(&s_max, mx);
    atomic_or(&s_bad, bad);
    RAID_BARRIER();
    /* The chunk's scale exponent sc: max |r| 2^-sc in [0.5, 1) (frexp's exponent of the largest magnitude;
     * 0 for an all-zero chunk; at least -250 for float64 subnormals, as the host's rule). */
    const uint ebits = s_max >> 20;
    const int sc = s_max == 0u ? 0 : max((int)ebits - 1022, -250);

    /* The chunk's values (scaled by 2^-sc, split by integer operations: raid_bits_to_df, bit for bit the
     * host's raid_df_split) staged in local memory, so that each work-item can walk its contiguous run.
     * One padding word every 32 keeps the runs' strided reads free of bank conflicts. */
    RAID_LOCAL float sx[PADDED(RAID_RUN * RAID_WG)];
#if RAID_INPUT_DF
    RAID_LOCAL float sy[PADDED(RAID_RUN * RAID_WG)];
#endif
#pragma unroll
    for (uint t = 0; t < RAID_RUN; t++) {
        const uint k = t * RAID_WG + lid;
        if (k < ch.y) {
            const raid_df d = raid_bits_to_df(v[t].y, v[t].x, sc);
            sx[PAD(k)] = d.hi;
#if RAID_INPUT_DF
            sy[PAD(k)] = d.lo;
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
    /* Every slot is written whatever the width (a group narrower than NACC writes several); slot NACC is
     * (e, out-of-range flag), both small integers, exact in float. */
    for (uint k = lid; k < NACC; k += RAID_WG)
        part[(size_t)g * (NACC + 1) + k] = RAID_FLOAT2(lh[k][0], ll[k][0]);
    if (lid == 0)
        part[(size_t)g * (NACC + 1) + NACC] = RAID_FLOAT2((float)sc, (float)s_bad);
}
