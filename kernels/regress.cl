/*
 * regress.cl -- sufficient statistics of many least-squares problems, from the float64 bits of the rows.
 *
 * One work-group reduces one chunk of rows of one problem. The chunk arrives as the float64 bits of its
 * rows exactly as the caller holds them (src/regress/stats.c copies them into page-locked staging):
 * the chunk's len rows of X (row-major, K = RAID_D - 1 values each), then its len values of y, each value
 * a uint2 (low word, high word). Nothing is converted on the host; on the device (integer operations,
 * no float64 arithmetic):
 *   1. per column p: the largest exponent eu_p of the chunk's values, and whether a value is out of range
 *      (not finite, or above RAID_MAXV in magnitude: a 64-bit compare of the words);
 *   2. the column as 64-bit fixed point in units of 2^(eu_p - 1083) (raidBitsToFixed), shifted by the
 *      chunk's first value of the column: exact differences D = v - v_0, whose mean is summed in
 *      double-float (raidFixedToDf) and rounded to an integer K_p (a centre within about 2^-42 of
 *      the chunk's range of the chunk's mean: the device's rounding then scales with the chunk's centred
 *      values, not with the levels nor with an outlying first value);
 *   3. the centred column D2 = v - (v_0 + K_p), exact, and the bit length L_p of its largest magnitude;
 *   4. z_p = D2 2^-L_p (largest |z| in [0.5, 1), every column at its own scale) split into the policy's
 *      float or double-float, and per row the cross-products z_p z_q (p <= q: exact TwoProd for f32,
 *      double-float products for df) and first moments z_p, accumulated in double-float
 *      (raidDfAdd: the terms have either sign) and reduced by a fixed-order tree in local memory.
 * Output per chunk (SLOTS float2): NA = D(D+1)/2 + D partials (hi, lo) at part[chunk * SLOTS + a],
 *   a = 0 .. D(D+1)/2 - 1   sum z_p z_q for p <= q, row by row of the upper triangle
 *   then D entries          sum z_p
 * then as floats (all small integers, exact): e_p = L_p + eu_p - 1083 (z_p 2^e_p = v - centre) for each
 * p, the out-of-range flag, and per column eu_p and K_p in three signed 21-bit parts (high first): the
 * host forms the centre exactly from the first value, which it holds, and merges the chunks' centred
 * statistics (Chan, Golub and LeVeque) in chunk order. The chunk layer (src/device/chunk.c) unscales
 * the partials: chunk_nexp = D exponents, partial (p, q) times 2^(e_p + e_q), first moment p times 2^e_p.
 * Work-item lid takes rows t RAID_WG + lid, t = 0 .. RAID_RUN - 1 (coalesced loads); results do not
 * depend on scheduling.
 *
 * Compile-time parameters: RAID_WG (power of two), RAID_RUN (rows per work-item), RAID_D (columns, 2 .. 9),
 * RAID_INPUT_DF (0: float per value, policy f32; 1: double-float, policy df), RAID_MAXV_HI and
 * RAID_MAXV_LO (the words of the largest magnitude allowed, 1e150).
 * (Until 2026-12-02 a second kernel here took rows centred, scaled and converted on the host: removed
 * with that path, docs/regression.md.)
 */
#pragma OPENCL FP_CONTRACT OFF

#if !defined(RAID_WG) || !defined(RAID_RUN) || !defined(RAID_D) || !defined(RAID_INPUT_DF) || !defined(RAID_MAXV_HI) \
    || !defined(RAID_MAXV_LO)
#error "regress.cl needs RAID_WG, RAID_RUN, RAID_D, RAID_INPUT_DF and RAID_MAXV_HI/LO (set by src/regress/stats.c)"
#endif

#define KX (RAID_D - 1)
#define NA (RAID_D * (RAID_D + 1) / 2 + RAID_D)
#define NT (5 * RAID_D + 1)
#define SLOTS (NA + (NT + 1) / 2)
#define GROUP 8

#if RAID_INPUT_DF
#define PROD(a, b) raidDfMul((a), (b))
#else
#define PROD(a, b) raidTwoProd((a).hi, (b).hi)
#endif

/* The bits of column p of row i of the chunk. */
#define BITS(p, i) ((p) < KX ? xc[(size_t)(i) * KX + (p)] : xc[(size_t)len * KX + (i)])

/* Fixed-order tree sum across the work-group of the first n (<= GROUP) rows of lh/ll, which every
 * work-item has filled at its own column lid: the sums end in lh[j][0], ll[j][0]. The callers copy their
 * accumulators in and out with unrolled loops, so that the accumulators stay in registers. */
RAID_FN void tree_group(RAID_LOCAL float (*lh)[RAID_WG], RAID_LOCAL float (*ll)[RAID_WG], uint lid, int n)
{
    RAID_BARRIER();
    for (uint s = RAID_WG / 2; s > 0; s >>= 1) {
        if (lid < s) {
#pragma unroll
            for (int j = 0; j < GROUP; j++)
                if (j < n) {
                    const RaidDf v = raidDfAdd(raidDfMake(lh[j][lid], ll[j][lid]),
                                                  raidDfMake(lh[j][lid + s], ll[j][lid + s]));
                    lh[j][lid] = v.hi;
                    ll[j][lid] = v.lo;
                }
        }
        RAID_BARRIER();
    }
}

RAID_KERNEL RAID_REQD_WG(RAID_WG)
void reg_stats(RAID_GLOBAL const uint2 *x, RAID_GLOBAL const uint2 *chunk, RAID_GLOBAL float2 *part)
{
    const uint g = RAID_GROUP_ID(0);
    const uint lid = RAID_LOCAL_ID(0);
    const uint2 ch = chunk[g]; /* (first row of the chunk in x, number of rows) */
    const uint len = ch.y;
    RAID_GLOBAL const uint2 *xc = x + (size_t)ch.x * RAID_D;

    RAID_SHARED uint s_max[RAID_D], s_len[RAID_D], s_bad;
    RAID_SHARED float lh[GROUP][RAID_WG];
    RAID_SHARED float ll[GROUP][RAID_WG];
    RAID_SHARED RaidDf s_sum[RAID_D];
    if (lid == 0)
        s_bad = 0u;
    for (uint p = lid; p < RAID_D; p += RAID_WG)
        s_max[p] = 0u, s_len[p] = 0u;
    RAID_BARRIER();

    /* 1. Largest exponent per column (the high words order the magnitudes), values out of range. */
    {
        uint mx[RAID_D];
        uint bad = 0u;
#pragma unroll
        for (int p = 0; p < RAID_D; p++)
            mx[p] = 0u;
        for (uint t = 0; t < RAID_RUN; t++) {
            const uint i = t * RAID_WG + lid;
            if (i >= len)
                continue;
#pragma unroll
            for (int p = 0; p < RAID_D; p++) {
                const uint2 b = BITS(p, i);
                const uint mag = b.y & 0x7FFFFFFFu;
                mx[p] = RAID_MAX(mx[p], mag);
                bad |= (uint)(mag > RAID_MAXV_HI || (mag == RAID_MAXV_HI && b.x > RAID_MAXV_LO));
            }
        }
#pragma unroll
        for (int p = 0; p < RAID_D; p++)
            RAID_ATOMIC_MAX(&s_max[p], mx[p]);
        if (bad)
            RAID_ATOMIC_OR(&s_bad, bad);
    }
    RAID_BARRIER();
    int eu[RAID_D];
    RaidI64 ref[RAID_D];
#pragma unroll
    for (int p = 0; p < RAID_D; p++) {
        eu[p] = RAID_MAX((int)(s_max[p] >> 20), 1);
        const uint2 b0 = BITS(p, 0);
        ref[p] = raidBitsToFixed(b0.y, b0.x, eu[p]);
    }

    /* 2. The chunk's mean of D = v - v_0 per column, rounded to an integer K_p: the centre v_0 + K_p. */
    RaidI64 kc[RAID_D];
    {
        RaidDf sm[RAID_D];
#pragma unroll
        for (int p = 0; p < RAID_D; p++)
            sm[p] = raidDfMake(0.0f, 0.0f);
        for (uint t = 0; t < RAID_RUN; t++) {
            const uint i = t * RAID_WG + lid;
            if (i >= len)
                continue;
#pragma unroll
            for (int p = 0; p < RAID_D; p++) {
                const uint2 b = BITS(p, i);
                sm[p] = raidDfAdd(sm[p], raidFixedToDf(raidBitsToFixed(b.y, b.x, eu[p]) - ref[p], 1.0f));
            }
        }
#pragma unroll
        for (int a0 = 0; a0 < RAID_D; a0 += GROUP) {
#pragma unroll
            for (int j = 0; j < GROUP; j++)
                if (a0 + j < RAID_D) {
                    lh[j][lid] = sm[a0 + j].hi;
                    ll[j][lid] = sm[a0 + j].lo;
                }
            tree_group(lh, ll, lid, RAID_D - a0);
            for (uint j = lid; j < GROUP && a0 + (int)j < RAID_D; j += RAID_WG)
                s_sum[a0 + j] = raidDfMake(lh[j][0], ll[j][0]);
            RAID_BARRIER();
        }
        const float n = (float)len;
#pragma unroll
        for (int p = 0; p < RAID_D; p++) {
            /* s / n in two steps: q1 (within a few ulps), then the remainder s - q1 n (q1 n exact by TwoProd) */
            const RaidDf s = s_sum[p];
            const float q1 = s.hi / n;
            const RaidDf pr = raidTwoProd(q1, n);
            const RaidDf r = raidDfAdd(s, raidDfMake(-pr.hi, -pr.lo));
            const float q2 = r.hi / n;
            kc[p] = RAID_F32_TO_I64(q1) + RAID_F32_TO_I64(q2);
            ref[p] += kc[p];
        }
    }

    /* 3. Bit length of the largest centred magnitude per column. */
    {
        uint bl[RAID_D];
#pragma unroll
        for (int p = 0; p < RAID_D; p++)
            bl[p] = 0u;
        for (uint t = 0; t < RAID_RUN; t++) {
            const uint i = t * RAID_WG + lid;
            if (i >= len)
                continue;
#pragma unroll
            for (int p = 0; p < RAID_D; p++) {
                const uint2 b = BITS(p, i);
                const RaidI64 d2 = raidBitsToFixed(b.y, b.x, eu[p]) - ref[p];
                const RaidU64 m = (RaidU64)(d2 < 0 ? -d2 : d2);
                bl[p] = RAID_MAX(bl[p], (uint)(64 - RAID_CLZ64(m)));
            }
        }
#pragma unroll
        for (int p = 0; p < RAID_D; p++)
            RAID_ATOMIC_MAX(&s_len[p], bl[p]);
    }
    RAID_BARRIER();
    float sc[RAID_D];
#pragma unroll
    for (int p = 0; p < RAID_D; p++)
        sc[p] = RAID_AS_FLOAT((uint)(127 - (int)s_len[p]) << 23); /* 2^-L, L <= 63 */

    /* 4. Cross-products and first moments of z = D2 2^-L. */
    RaidDf acc[NA];
#pragma unroll
    for (int a = 0; a < NA; a++)
        acc[a] = raidDfMake(0.0f, 0.0f);
    for (uint t = 0; t < RAID_RUN; t++) {
        const uint i = t * RAID_WG + lid;
        if (i < len) {
            RaidDf z[RAID_D];
#pragma unroll
            for (int p = 0; p < RAID_D; p++) {
                const uint2 b = BITS(p, i);
                z[p] = raidFixedToDf(raidBitsToFixed(b.y, b.x, eu[p]) - ref[p], sc[p]);
#if !RAID_INPUT_DF
                z[p].lo = 0.0f;
#endif
            }
            int a = 0;
#pragma unroll
            for (int p = 0; p < RAID_D; p++)
#pragma unroll
                for (int q = p; q < RAID_D; q++) {
                    acc[a] = raidDfAdd(acc[a], PROD(z[p], z[q]));
                    a++;
                }
#pragma unroll
            for (int p = 0; p < RAID_D; p++) {
                acc[a] = raidDfAdd(acc[a], z[p]);
                a++;
            }
        }
    }
#pragma unroll
    for (int a0 = 0; a0 < NA; a0 += GROUP) {
#pragma unroll
        for (int j = 0; j < GROUP; j++)
            if (a0 + j < NA) {
                lh[j][lid] = acc[a0 + j].hi;
                ll[j][lid] = acc[a0 + j].lo;
            }
        tree_group(lh, ll, lid, NA - a0);
        /* every slot is written whatever the width (a group narrower than GROUP writes several) */
        for (uint j = lid; j < GROUP && a0 + (int)j < NA; j += RAID_WG)
            part[(size_t)g * SLOTS + a0 + j] = RAID_FLOAT2(lh[j][0], ll[j][0]);
        RAID_BARRIER();
    }

    /* The tail: exponents, flag, and per column eu and K in three signed 21-bit parts. */
    if (lid == 0) {
        RAID_GLOBAL float *tl = (RAID_GLOBAL float *)(part + (size_t)g * SLOTS + NA);
#pragma unroll
        for (int p = 0; p < RAID_D; p++)
            tl[p] = (float)((int)s_len[p] + eu[p] - 1083);
        tl[RAID_D] = (float)s_bad;
#pragma unroll
        for (int p = 0; p < RAID_D; p++) {
            const RaidU64 m = (RaidU64)(kc[p] < 0 ? -kc[p] : kc[p]);
            const float sg = kc[p] < 0 ? -1.0f : 1.0f;
            tl[RAID_D + 1 + 4 * p] = (float)eu[p];
            tl[RAID_D + 2 + 4 * p] = sg * (float)(uint)(m >> 42);
            tl[RAID_D + 3 + 4 * p] = sg * (float)(uint)((m >> 21) & 0x1FFFFFu);
            tl[RAID_D + 4 + 4 * p] = sg * (float)(uint)(m & 0x1FFFFFu);
        }
        if (NT % 2)
            tl[NT] = 0.0f;
    }
}

