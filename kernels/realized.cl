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
 * float64 (src/realized/realized_device.c).
 *
 * Loads (coalesced): work-item j takes the pairs of returns t RAID_WG + j, t = 0 .. RAID_RUN/2 - 1, of the
 * chunk (RAID_RUN even; the host refuses odd runs), so that the 16-byte loads of a warp are consecutive; all
 * of them go straight from global memory into registers before the scale (one 16-byte load a pair where the
 * chunk starts on an even return of the buffer, without bounds checks for a whole chunk; single 8-byte loads
 * otherwise). The work-group finds the chunk's largest magnitude (the high words order the exponents) and
 * any return out of range with two local atomics; each work-item then scales its values by the power of two
 * 2^-e that brings that magnitude into [0.5, 1) and splits them into the policy's float or double-float with
 * integer operations (raidBitsToDf: no float64 arithmetic, no host pass over the returns), one pair
 * (step) at a time: a pair whose magnitudes are both within 2^-73 of the chunk's largest (and normal), as
 * almost all are, by raidBitsToDfNear (the same bits in fewer operations: the scale is subtracted from
 * the exponent field).
 * Neighbours: the two returns before a pair are the previous pair, split by the neighbouring work-item
 * (j - 1 of the same step; for j = 0, work-item RAID_WG - 1 of the step before): every work-item writes its
 * split pair of a step into local memory (one of 4 RAID_XSTEP rotating buffers: 16 bytes (df; 8 for f32) x
 * 4 RAID_XSTEP x RAID_WG, 32 KiB for df at width 256 with RAID_XSTEP 2) and reads its neighbour's after
 * one barrier per RAID_XSTEP steps (a buffer is written again after the next barrier, after every read of
 * it). Every window is computed by exactly one work-item; every return is read from global memory once.
 * Only the rs-only ablation part (RAID_PART 1) needs no neighbours (no local buffer, no barriers in the
 * loop).
 * Each work-item adds its RAID_RUN terms in this order (step by step, the pair's two returns in order),
 * renormalising every RAID_FOLD terms: a fixed order, bitwise reproducible.
 *
 * Terms and accumulation (docs/precision.md derives the bounds):
 *   df policy (RAID_INPUT_DF 1): every term is formed as an unevaluated pair (th, tl), th the binary32
 *     product of the high parts and tl everything else to below a few u^2 of the term (TwoProd's exact
 *     error and the cross terms by fma); |r_i r_{i-1} r_{i-2}|^(4/3) from the window's product P (formed
 *     from the bpv term) by multiplications only (raidDfPow43Raw: an inverse cube root from the bits and
 *     a polynomial, its error measured and corrected in double-float). The median's square is
 *     the square already formed for that return, chosen by exact comparisons of the double-float
 *     magnitudes. A pair is added to its accumulator (H, L) by an exact Fast2Sum of the high parts (ordered
 *     by fmax/fmin: both non-negative) whose error and tl go into L by plain float additions; (H, L) is
 *     renormalised (Fast2Sum) once every RAID_FOLD terms.
 *   f32 policy (RAID_INPUT_DF 0): each term is added to a plain float run sum with ONE rounding (fma of
 *     the exact product into the sum; tpq's v^2 = P^(4/3) from the binary32 P, raidPow23F); the run sum
 *     is folded into the double-float (H, L) every RAID_FOLD returns.
 * The work-group then reduces (H, L) with a fixed-order tree of raidDfAddSameSign (the partials are
 * non-negative): they do not depend on scheduling (bitwise reproducible for a given configuration).
 *
 * Compile-time parameters (set by the host):
 *   RAID_WG     work-group width (power of two)        RAID_RUN  returns per work-item (even)
 *   RAID_INPUT_DF  0: values as floats (policy f32); 1: as double-floats (hi, lo) (policy df)
 *   RAID_MAXR_HI, RAID_MAXR_LO  the words of the largest magnitude allowed (1e74)
 *   RAID_PART   bit mask of measure groups to compute (1 rs, 2 bpv, 4 rq+tpq, 8 medrv); 15 = fused.
 *               The partial masks exist only for the benchmark's fusion ablation.
 *   RAID_XSTEP  pairs shared per barrier: 2 where RAID_RUN is a multiple of 4 and the 8 buffers fit
 *               the device's local memory, else 1 (the same bits; 2 was faster on the H200).
 * and, for benchmarks only (raid_tuning_set_build_options "-DRAID_FOLD=N"; the documented bounds hold
 * for the defaults):
 *   RAID_RELOAD 1: read the returns a second time after the scale's barrier instead of holding them in registers
 *               (default 0)
 *   RAID_FOLD   terms per renormalisation (df; default min(RAID_RUN, 4), 1 for RAID_RUN 64) or per plain float run (f32;
 *               default min(RAID_RUN, 8)).
 * The scaling keeps every term below 1 (no overflow); underflow only hits terms below 2^-126 of the
 * chunk's largest, whose absolute errors stay below a few 2^-149 and do not matter at 2^-48 unless the
 * whole sum is that small (the host then recomputes the segment: the underflow guard of realized_device.c).
 */
#pragma OPENCL FP_CONTRACT OFF

#if !defined(RAID_WG) || !defined(RAID_RUN) || !defined(RAID_INPUT_DF) || !defined(RAID_PART) || !defined(RAID_MAXR_HI) || \
    !defined(RAID_MAXR_LO)
#error "realized.cl needs RAID_WG, RAID_RUN, RAID_INPUT_DF, RAID_PART and RAID_MAXR_HI/LO (set by src/realized/realized_device.c)"
#endif

#ifndef RAID_FOLD
#if RAID_INPUT_DF
#define RAID_FOLD (RAID_RUN > 32 ? 1 : RAID_RUN < 4 ? RAID_RUN : 4)
#else
#define RAID_FOLD (RAID_RUN < 8 ? RAID_RUN : 8)
#endif
#endif

#ifndef RAID_RELOAD
#define RAID_RELOAD 0
#endif
#ifndef RAID_XSTEP
#error "realized.cl needs RAID_XSTEP (set by src/realized/realized_device.c)"
#endif
#if (RAID_XSTEP != 1 && RAID_XSTEP != 2) || (RAID_RUN / 2) % RAID_XSTEP != 0
#error "RAID_XSTEP is 1, or 2 with RAID_RUN a multiple of 4"
#endif

#if RAID_RUN % 2 != 0
#error "realized.cl needs an even RAID_RUN (pairs of returns; the host refuses odd runs)"
#endif
/* The chunk index of the t-th return of work-item lid (t = 0 .. RAID_RUN-1, in the work-item's order): the
 * pairs t/2 RAID_WG + lid. */
#define RET_INDEX(t, lid) (2u * (((t) / 2u) * RAID_WG + (lid)) + (t) % 2u)

#define NACC 6

/* Add the non-negative pair (th, tl) to the accumulator (h, l), h >= 0: Fast2Sum of the ordered high
 * parts (exact: the larger has the larger exponent), its error and tl into l. 7 operations. */
#define ACC(h, l, th, tl)                                                                                    \
    do {                                                                                                     \
        const float big_ = RAID_FMAXF((h), (th)), small_ = RAID_FMINF((h), (th));                                        \
        const float s_ = big_ + small_;                                                                      \
        (l) = (l) + ((small_ - (s_ - big_)) + (tl));                                                         \
        (h) = s_;                                                                                            \
    } while (0)

/* Order of non-negative double-float magnitudes (hi first, then lo: the order of the values). */
#define DF_LT(ah, al, bh, bl) (((ah) < (bh)) | (((ah) == (bh)) & ((al) < (bl))))

/* Load the work-item's returns RET_INDEX(t, lid), t = 0 .. RAID_RUN-1, of the chunk (n returns at offset off
 * of the buffer; zeros past its end) into v: the pairs t/2 RAID_WG + lid, so that the work-items of a warp
 * read consecutive 16-byte pairs (coalesced); as 16-byte vectors where the chunk starts on an even return of
 * the buffer (the same for the whole group), one return at a time otherwise. */
RAID_FN void load_run(RAID_GLOBAL const uint2 *xc, uint lid, uint off, uint n, uint2 *v)
{
    if ((off & 1u) == 0u && n == RAID_RUN * RAID_WG) { /* a whole chunk: no bounds to check */
#pragma unroll
        for (uint t = 0; t < RAID_RUN / 2; t++) {
            const uint4 q = ((RAID_GLOBAL const uint4 *)xc)[t * RAID_WG + lid];
            v[2 * t] = RAID_UINT2(q.x, q.y);
            v[2 * t + 1] = RAID_UINT2(q.z, q.w);
        }
        return;
    }
    if ((off & 1u) == 0u) {
#pragma unroll
        for (uint t = 0; t < RAID_RUN / 2; t++) {
            const uint k = RET_INDEX(2 * t, lid);
            uint4 q = RAID_UINT4(0u, 0u, 0u, 0u);
            if (k + 1 < n)
                q = ((RAID_GLOBAL const uint4 *)xc)[k / 2];
            else if (k < n)
                q = RAID_UINT4(xc[k].x, xc[k].y, 0u, 0u);
            v[2 * t] = RAID_UINT2(q.x, q.y);
            v[2 * t + 1] = RAID_UINT2(q.z, q.w);
        }
        return;
    }
#pragma unroll
    for (uint t = 0; t < RAID_RUN; t++) {
        const uint k = RET_INDEX(t, lid);
        v[t] = k < n ? xc[k] : RAID_UINT2(0u, 0u);
    }
}

RAID_KERNEL RAID_REQD_WG(RAID_WG)
void realized_fused(RAID_GLOBAL const uint2 *x, RAID_GLOBAL const uint2 *chunk, RAID_GLOBAL float2 *part)
{
    const uint g = RAID_GROUP_ID(0);
    const uint lid = RAID_LOCAL_ID(0);
    const uint2 ch = chunk[g]; /* (offset of the chunk in x, number of returns) */
    RAID_GLOBAL const uint2 *xc = x + ch.x;

    /* Load this work-item's returns' float64 bits into registers (load_run); the two returns before each
     * pair come split from the neighbouring work-item in the loop below. */
    RAID_SHARED uint s_max, s_bad;
    if (lid == 0)
        s_max = 0u, s_bad = 0u;
    uint2 v[RAID_RUN];
    load_run(xc, lid, ch.x, ch.y, v);
    RAID_BARRIER(); /* s_max, s_bad set; before the loads arrive, so that the group meets once after them */

    /* The chunk's largest magnitude (the high words order the exponents). A return out of range (not
     * finite, or above RAID_MAXR) has a high word above RAID_MAXR_HI, or equal to it with a larger low
     * word: the low words are looked at only in that rare case. */
    uint mx = 0u;
#pragma unroll
    for (uint t = 0; t < RAID_RUN; t++)
        mx = RAID_MAX(mx, v[t].y & 0x7FFFFFFFu);
    RAID_ATOMIC_MAX(&s_max, mx);
#if RAID_RELOAD
    /* read the returns again after the barrier (cache hits) instead of holding them in registers across it */
    RAID_BARRIER_GLOBAL();
#else
    RAID_BARRIER();
#endif
    const uint smax = s_max;
    uint sbad = smax > RAID_MAXR_HI;
    if (smax == RAID_MAXR_HI) { /* the same for the whole group */
        uint bad = 0u;
        for (uint t = 0; t < RAID_RUN; t++)
            bad |= (uint)((v[t].y & 0x7FFFFFFFu) == RAID_MAXR_HI && v[t].x > RAID_MAXR_LO);
        RAID_ATOMIC_OR(&s_bad, bad);
        RAID_BARRIER();
        sbad = s_bad;
    }
    /* The chunk's scale exponent sc: max |r| 2^-sc in [0.5, 1) (frexp's exponent of the largest magnitude;
     * 0 for an all-zero chunk; at least -250 for float64 subnormals, as the host's rule). */
    const uint ebits = smax >> 20;
    const int sc = smax == 0u ? 0 : RAID_MAX((int)ebits - 1022, -250);
    /* every magnitude's high word is at most smax, so one at least near_min is in raidBitsToDfNear's range */
    const uint near_min = (uint)(sc + 950) << 20, k1 = (uint)(sc + 896) << 20;
#if RAID_RELOAD
    load_run(xc, lid, ch.x, ch.y, v);
#endif
    /* return i closes a window of three inside the chunk iff i - 2 < lim (unsigned) */
    const uint lim = RAID_MAX(ch.y, 2u) - 2u;

    /* The accumulators (H, L) per measure. */
    float H[NACC], L[NACC];
    for (int k = 0; k < NACC; k++)
        H[k] = 0.0f, L[k] = 0.0f;

    /* Window state: |r| of the two returns before the current one (zero before the chunk's start), set
     * by WINDOW_SET before each pair from the neighbour's split pair. The values are split from the
     * magnitudes' bits (the split is symmetric: |split(r)| = split(|r|)); df: also their squares (the
     * median's payload) and their order. */
    float a1h = 0.0f, a2h = 0.0f;
#if RAID_INPUT_DF
    float a1l = 0.0f, a2l = 0.0f, p1 = 0.0f, pl1 = 0.0f, p2 = 0.0f, pl2 = 0.0f;
    int lt12 = 0;
#define WINDOW_SET(h1, l1, h2, l2)                                                                            \
    do {                                                                                                     \
        a1h = (h1), a1l = (l1), a2h = (h2), a2l = (l2);                                                      \
        p1 = a1h * a1h, pl1 = RAID_FMAF(2.0f * a1h, a1l, RAID_FMAF(a1h, a1h, -p1));                          \
        p2 = a2h * a2h, pl2 = RAID_FMAF(2.0f * a2h, a2l, RAID_FMAF(a2h, a2h, -p2));                          \
        lt12 = DF_LT(a1h, a1l, a2h, a2l);                                                                    \
    } while (0)
#else
#define WINDOW_SET(h1, l1, h2, l2) (a1h = (h1), a2h = (h2))
    float F[NACC]; /* the plain float run sums */
    for (int k = 0; k < NACC; k++)
        F[k] = 0.0f;
#endif
    /* The split pairs in local memory, (hi, lo) of both returns (df) or their floats (f32): each
     * work-item's pair of a step in one of 4 RAID_XSTEP rotating buffers (one barrier per RAID_XSTEP
     * steps). XS_PREV(s): the pair s WG + lid - 1, the previous work-item's of step s, or for lid 0
     * work-item WG-1's of step s-1 (none at the chunk's start: then anything, masked by XS_WINDOW). */
#if RAID_INPUT_DF
#define XS_T float4
#define XS_PACK(q, a, b) ((q).x = (a).hi, (q).y = (a).lo, (q).z = (b).hi, (q).w = (b).lo)
#define XS_WINDOW(q, f0) WINDOW_SET((f0) ? 0.0f : (q).z, (f0) ? 0.0f : (q).w, (f0) ? 0.0f : (q).x, (f0) ? 0.0f : (q).y)
#else
#define XS_T float2
#define XS_PACK(q, a, b) ((q).x = (a).hi, (q).y = (b).hi)
#define XS_WINDOW(q, f0) WINDOW_SET((f0) ? 0.0f : (q).y, 0.0f, (f0) ? 0.0f : (q).x, 0.0f)
#endif
    RaidDf g0 = raidDfMake(0.0f, 0.0f), g1 = g0, gs[2 * RAID_XSTEP];
#if RAID_PART & 14
#define XS_NBUF (4u * RAID_XSTEP)
    RAID_SHARED XS_T xs[XS_NBUF * RAID_WG];
    XS_T qs[RAID_XSTEP];
#define XS_PREV(s) xs[(((s) & (XS_NBUF - 1u)) * RAID_WG + lid + XS_NBUF * RAID_WG - 1u) & (XS_NBUF * RAID_WG - 1u)]
#endif

    /* Every return of the work-item, the zeros past the chunk's end included: their terms are exact zeros (adding
     * them changes no bit) and the median's window is masked. */
#pragma unroll
    for (uint t = 0; t < RAID_RUN; t++) {
        const uint i = RET_INDEX(t, lid);
        if (t % (2 * RAID_XSTEP) == 0) { /* RAID_XSTEP pairs start: split them and share them (one barrier) */
#pragma unroll
            for (uint j = 0; j < RAID_XSTEP; j++) {
                const uint u = t + 2 * j;
                const uint b0 = v[u].y & 0x7FFFFFFFu, b1 = v[u + 1].y & 0x7FFFFFFFu;
                if (RAID_MIN(b0, b1) >= near_min) {
                    gs[2 * j] = raidBitsToDfNear(b0, v[u].x, k1);
                    gs[2 * j + 1] = raidBitsToDfNear(b1, v[u + 1].x, k1);
                } else {
                    gs[2 * j] = raidBitsToDf(b0, v[u].x, sc);
                    gs[2 * j + 1] = raidBitsToDf(b1, v[u + 1].x, sc);
                }
#if RAID_PART & 14
                XS_PACK(qs[j], gs[2 * j], gs[2 * j + 1]);
                xs[((t / 2 + j) & (XS_NBUF - 1u)) * RAID_WG + lid] = qs[j];
#endif
            }
#if RAID_PART & 14
            RAID_BARRIER();
#pragma unroll
            for (uint j = 0; j < RAID_XSTEP; j++)
                qs[j] = XS_PREV(t / 2 + j);
#endif
        }
        if (t % 2 == 0) { /* a pair starts: its split values, the previous pair's from the neighbour */
            const uint j = (t / 2) % RAID_XSTEP;
            g0 = gs[2 * j], g1 = gs[2 * j + 1];
#if RAID_PART & 14
            XS_WINDOW(qs[j], t == 0 && lid == 0);
#endif
        }
        const RaidDf r = t % 2 ? g1 : g0; /* |r| */
        const int neg = (int)(v[t].y >> 31);                                 /* -0 gives a zero term */
        const float ah = r.hi;
        const int full = i - 2u < lim; /* the window (i-2, i-1, i) lies inside the chunk */
#if RAID_INPUT_DF
        const float al = r.lo;
        /* r^2 = p + pl (+ al^2 < u^2 p, dropped) */
        const float p = ah * ah;
        const float pl = RAID_FMAF(2.0f * ah, al, RAID_FMAF(ah, ah, -p));
#if RAID_PART & 1
        {
            float hs = neg ? H[0] : H[1], ls = neg ? L[0] : L[1];
            ACC(hs, ls, p, pl);
            H[0] = neg ? hs : H[0], L[0] = neg ? ls : L[0];
            H[1] = neg ? H[1] : hs, L[1] = neg ? L[1] : ls;
        }
#endif
#if RAID_PART & 6
        /* |r_i r_{i-1}| = bh + bl (a1 = 0 for the chunk's first return) */
        const float bh = ah * a1h;
        const float bl = RAID_FMAF(ah, a1l, RAID_FMAF(al, a1h, RAID_FMAF(ah, a1h, -bh)));
#endif
#if RAID_PART & 2
        ACC(H[2], L[2], bh, bl);
#endif
#if RAID_PART & 4
        {
            /* r^4 = (p + pl)^2 */
            const float q = p * p;
            const float ql = RAID_FMAF(pl, pl, RAID_FMAF(2.0f * p, pl, RAID_FMAF(p, p, -q)));
            ACC(H[3], L[3], q, ql);
            /* P = |r_i r_{i-1} r_{i-2}| = ph + pl3 (0 while i < 2), then P^(4/3) by multiplications only */
            const float ph = bh * a2h;
            const float pl3 = RAID_FMAF(bh, a2l, RAID_FMAF(bl, a2h, RAID_FMAF(bh, a2h, -ph)));
            const RaidDf tq = raidDfPow43Raw(raidDfMake(ph, pl3));
            ACC(H[4], L[4], tq.hi, tq.lo);
        }
#endif
#if RAID_PART & 8
        {
            /* the median of (|r_i|, |r_{i-1}|, |r_{i-2}|) by exact comparisons; its square is the one
             * already formed for that return */
            const int x01 = DF_LT(ah, al, a1h, a1l), x02 = DF_LT(ah, al, a2h, a2l);
            const int is0 = x01 != x02, is1 = !is0 && x01 == lt12;
            const float mh = is0 ? p : (is1 ? p1 : p2), ml = is0 ? pl : (is1 ? pl1 : pl2);
            if (full) /* (adding a zero pair would change no bit) */
                ACC(H[5], L[5], mh, ml);
            lt12 = x01;
        }
#endif
        p2 = p1, pl2 = pl1, p1 = p, pl1 = pl;
        a2h = a1h, a2l = a1l, a1h = ah, a1l = al;
        if (t % RAID_FOLD == RAID_FOLD - 1)
            for (int k = 0; k < NACC; k++) {
                const RaidDf s = raidFastTwoSum(H[k], L[k]);
                H[k] = s.hi, L[k] = s.lo;
            }
#else /* f32: plain float run sums, one rounding per term */
#if RAID_PART & 1
        const float hn = neg ? ah : 0.0f, hp = neg ? 0.0f : ah;
        F[0] = RAID_FMAF(hn, hn, F[0]);
        F[1] = RAID_FMAF(hp, hp, F[1]);
#endif
#if RAID_PART & 2
        F[2] = RAID_FMAF(ah, a1h, F[2]);
#endif
#if RAID_PART & 4
        {
            const float sq = ah * ah;
            F[3] = RAID_FMAF(sq, sq, F[3]);
            const float pp = (ah * a1h) * a2h; /* 0 while i < 2 */
            const float v = raidPow23F(pp); /* pp^(4/3) = v^2 */
            F[4] = RAID_FMAF(v, v, F[4]);
        }
#endif
#if RAID_PART & 8
        {
            const float m = RAID_FMAXF(RAID_FMINF(ah, a1h), RAID_FMINF(RAID_FMAXF(ah, a1h), a2h));
            if (full)
                F[5] = RAID_FMAF(m, m, F[5]);
        }
#endif
        a2h = a1h, a1h = ah;
        if (t % RAID_FOLD == RAID_FOLD - 1)
            for (int k = 0; k < NACC; k++) {
                ACC(H[k], L[k], F[k], 0.0f);
                F[k] = 0.0f;
            }
#endif
    }
#if !RAID_INPUT_DF && RAID_RUN % RAID_FOLD != 0
    /* the last (partial) run */
    for (int k = 0; k < NACC; k++)
        ACC(H[k], L[k], F[k], 0.0f);
#endif

    /* Fixed-order tree reduction across the work-group, each (hi, lo) one 8-byte word of local memory. */
    RAID_SHARED float2 lw[NACC][RAID_WG];
    for (int k = 0; k < NACC; k++) {
        const RaidDf v = raidFastTwoSum(H[k], L[k]);
        lw[k][lid] = RAID_FLOAT2(v.hi, v.lo);
    }
    RAID_BARRIER();
    for (uint s = RAID_WG / 2; s > 0; s >>= 1) {
        if (lid < s) {
            for (int k = 0; k < NACC; k++) {
                const float2 a = lw[k][lid], b = lw[k][lid + s];
                const RaidDf v = raidDfAddSameSign(raidDfMake(a.x, a.y), raidDfMake(b.x, b.y));
                lw[k][lid] = RAID_FLOAT2(v.hi, v.lo);
            }
        }
        RAID_BARRIER();
    }
    /* Every slot is written whatever the width (a group narrower than NACC writes several); slot NACC is
     * (e, out-of-range flag), both small integers, exact in float. */
    for (uint k = lid; k < NACC; k += RAID_WG)
        part[(size_t)g * (NACC + 1) + k] = lw[k][0];
    if (lid == 0)
        part[(size_t)g * (NACC + 1) + NACC] = RAID_FLOAT2((float)sc, (float)sbad);
}
