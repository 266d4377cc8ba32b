/*
 * realized.cl -- the fused realized-measures kernel, one per policy (both named realized_fused).
 *
 * One work-group reduces one chunk (at most RAID_RUN * RAID_WG returns of one segment) into six
 * double-float partials, written as float2 (hi, lo) to part[chunk * S + k], and, where the kernel scales
 * the chunk itself, a seventh float2 (e, flag) (S = 7; else S = 6 and the host keeps e and the flag): the
 * chunk's scale exponent and whether a return was out of range (not finite or above RAID_MAXR):
 *   k = 0  sum r^2 1{r<0}                    (rs_neg)
 *   k = 1  sum r^2 1{r>0}                    (rs_pos; rv = rs_neg + rs_pos)
 *   k = 2  sum |r_i||r_{i-1}|                (bpv)
 *   k = 3  sum r^4                           (rq)
 *   k = 4  sum |r_i r_{i-1} r_{i-2}|^(4/3)    (tpq)
 *   k = 5  sum med(|r_i|,|r_{i-1}|,|r_{i-2}|)^2 (medrv)
 * A window term (k = 2, 4, 5) belongs to the chunk of its last return and is computed here only when the
 * whole window lies inside the chunk; the host adds the few windows that straddle chunk boundaries in
 * float64 (src/realized/realized_device.c). Every chunk is scaled by the power of two 2^-e that brings its
 * largest magnitude into [0.5, 1) (exact; chunk_scale below states the rule).
 *
 * df policy (RAID_INPUT_DF 1): the returns' float64 bits (uint2: low word, high word).
 *   Loads (coalesced): work-item j takes the pairs of returns t RAID_WG + j, t = 0 .. RAID_RUN/2 - 1, of the
 *   chunk (RAID_RUN even; the host refuses odd runs), so that the 16-byte loads of a warp are consecutive; all
 *   of them go straight from global memory into registers before the scale (one 16-byte load a pair where the
 *   chunk starts on an even return of the buffer, without bounds checks for a whole chunk; single 8-byte loads
 *   otherwise). The work-group finds the chunk's largest magnitude and any return out of range with two local
 *   atomics (chunk_scale); each work-item then scales its values and splits them into double-floats with
 *   integer operations (raidBitsToDf: no float64 arithmetic, no host pass over the returns), one pair
 *   (step) at a time: a pair whose magnitudes are both within 2^-73 of the chunk's largest (and normal), as
 *   almost all are, by raidBitsToDfNear (the same bits in fewer operations: the scale is subtracted from
 *   the exponent field).
 *   Neighbours: the two returns before a pair are the previous pair, split by the neighbouring work-item
 *   (j - 1 of the same step; for j = 0, work-item RAID_WG - 1 of the step before): every work-item writes its
 *   split pair of a step into local memory (one of 4 RAID_XSTEP rotating buffers: 16 bytes x 4 RAID_XSTEP x
 *   RAID_WG, 32 KiB at width 256 with RAID_XSTEP 2) and reads its neighbour's after one barrier per
 *   RAID_XSTEP steps (a buffer is written again after the next barrier, after every read of it). Every
 *   window is computed by exactly one work-item; every return is read from global memory once. Only the
 *   rs-only ablation part (RAID_PART 1) needs no neighbours (no local buffer, no barriers in the loop).
 *   Each work-item adds its RAID_RUN terms in this order (step by step, the pair's two returns in order),
 *   renormalising every RAID_FOLD terms: a fixed order, bitwise reproducible.
 *   Terms: every term is formed as an unevaluated pair (th, tl), th the binary32 product of the high parts
 *   and tl everything else to below a few u^2 of the term (TwoProd's exact error and the cross terms by
 *   fma); |r_i r_{i-1} r_{i-2}|^(4/3) from the window's product P (formed from the bpv term) by
 *   multiplications only (raidDfPow43Raw: an inverse cube root from the bits and a polynomial, its error
 *   measured and corrected in double-float). The median's square is the square already formed for that
 *   return, chosen by exact comparisons of the double-float magnitudes. A pair is added to its accumulator
 *   (H, L) by an exact Fast2Sum of the high parts (ordered by fmax/fmin: both non-negative) whose error and
 *   tl go into L by plain float additions; (H, L) is renormalised (Fast2Sum) once every RAID_FOLD terms.
 *
 * f32 policy (RAID_INPUT_DF 0): every return is rounded to binary32 after the scale, so the values are 4
 *   bytes: the host stages them so (RAID_BITS 0, floats, the chunk's e and flag kept on the host), or, where
 *   the kernel must read the float64 bits (the caller's device memory, or batches uploaded straight from the
 *   caller's array), it scales and rounds them itself (RAID_BITS 1, the same floats). Work-item j takes
 *   groups of GRP (8, 4 or 2) consecutive returns, t RAID_WG + j, and reads the two returns before each group
 *   again (the neighbour's: cache hits), so the loop has no local memory and no barrier. Each term is added
 *   to a plain float run sum with ONE rounding (fma of the exact product into the sum; tpq's v^2 = P^(4/3)
 *   from the binary32 P, raidPow23F); the run sum is folded into the double-float (H, L) every RAID_FOLD
 *   terms, in the work-item's order: a fixed order, bitwise reproducible, the same for both inputs.
 *
 * The work-group then reduces (H, L) with a fixed-order tree of raidDfAddSameSign (group_reduce_write; the
 * partials are non-negative): they do not depend on scheduling (bitwise reproducible for a given
 * configuration). docs/precision.md derives the bounds.
 *
 * Compile-time parameters (set by the host):
 *   RAID_WG     work-group width (power of two)        RAID_RUN  returns per work-item (even)
 *   RAID_INPUT_DF  0: the f32 policy; 1: the df policy
 *   RAID_MAXR_HI, RAID_MAXR_LO  the words of the largest magnitude allowed (1e74)
 *   RAID_PART   bit mask of measure groups to compute (1 rs, 2 bpv, 4 rq+tpq, 8 medrv); 15 = fused.
 *               The partial masks exist only for the benchmark's fusion ablation.
 *   RAID_XSTEP  (df) pairs shared per barrier: 2 where RAID_RUN is a multiple of 4 and the 8 buffers fit
 *               the device's local memory, else 1 (the same bits; 2 was faster on the H200).
 *   RAID_BITS   (f32) 1: the input is float64 bits; 0: floats scaled by the host, each chunk on a 16-byte
 *               boundary.
 * and, for benchmarks only (raid_tuning_set_build_options "-DRAID_FOLD=N"; the documented bounds hold
 * for the defaults):
 *   RAID_RELOAD 1: read the returns a second time after the scale's barrier instead of holding them in
 *               registers (df; default 0)
 *   RAID_FOLD   terms per renormalisation (df; default min(RAID_RUN, 4), 1 for RAID_RUN 64) or per plain float
 *               run (f32; default min(RAID_RUN, 8)).
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
#if RAID_RUN % 2 != 0
#error "realized.cl needs an even RAID_RUN (the host refuses odd runs)"
#endif
#if RAID_INPUT_DF
#ifndef RAID_XSTEP
#error "realized.cl needs RAID_XSTEP for the df policy (set by src/realized/realized_device.c)"
#endif
#if (RAID_XSTEP != 1 && RAID_XSTEP != 2) || (RAID_RUN / 2) % RAID_XSTEP != 0
#error "RAID_XSTEP is 1, or 2 with RAID_RUN a multiple of 4"
#endif
#elif !defined(RAID_BITS)
#error "realized.cl needs RAID_BITS for the f32 policy (set by src/realized/realized_device.c)"
#endif

#define NACC 6

/* Add the non-negative pair (th, tl) to the accumulator (h, l), h >= 0: Fast2Sum of the ordered high
 * parts (exact: the larger has the larger exponent), its error and tl into l. 7 operations. */
#define ACC(h, l, th, tl)                                                                                    \
    do {                                                                                                     \
        const float big_ = RAID_FMAXF((h), (th)), small_ = RAID_FMINF((h), (th));                            \
        const float s_ = big_ + small_;                                                                      \
        (l) = (l) + ((small_ - (s_ - big_)) + (tl));                                                         \
        (h) = s_;                                                                                            \
    } while (0)

/* The chunk's scale exponent: max |r| 2^-e in [0.5, 1) (frexp's exponent of the largest magnitude; 0 for an
 * all-zero chunk; at least -250 for float64 subnormals, as the host's rule), from every work-item's returns'
 * float64 bits v[0 .. RAID_RUN), and in *bad_out whether one is out of range (not finite, or above
 * RAID_MAXR). s_max and s_bad are the group's local words, zeroed before a barrier the whole group has
 * passed. The high words order the exponents; a return out of range has a high word above RAID_MAXR_HI, or
 * equal to it with a larger low word: the low words are looked at only in that rare case. One barrier, two
 * in that case. */
RAID_FN int chunk_scale(const uint2 *v, RAID_LOCAL uint *s_max, RAID_LOCAL uint *s_bad, uint *bad_out)
{
    uint mx = 0u;
#pragma unroll
    for (uint t = 0; t < RAID_RUN; t++)
        mx = RAID_MAX(mx, v[t].y & 0x7FFFFFFFu);
    RAID_ATOMIC_MAX(s_max, mx);
#if RAID_RELOAD
    /* the returns are read again after the barrier (cache hits) instead of held in registers across it */
    RAID_BARRIER_GLOBAL();
#else
    RAID_BARRIER();
#endif
    const uint smax = *s_max;
    uint sbad = smax > RAID_MAXR_HI;
    if (smax == RAID_MAXR_HI) { /* the same for the whole group */
        uint bad = 0u;
        for (uint t = 0; t < RAID_RUN; t++)
            bad |= (uint)((v[t].y & 0x7FFFFFFFu) == RAID_MAXR_HI && v[t].x > RAID_MAXR_LO);
        RAID_ATOMIC_OR(s_bad, bad);
        RAID_BARRIER();
        sbad = *s_bad;
    }
    *bad_out = sbad;
    return smax == 0u ? 0 : RAID_MAX((int)(smax >> 20) - 1022, -250);
}

/* The fixed-order tree reduction of the work-items' accumulators (H, L) across the work-group (lw: NACC *
 * RAID_WG float2 of local memory, each (hi, lo) one 8-byte word): the chunk's NACC partials are written to
 * out[0 .. NACC) and, where tail, (e, out-of-range flag) to out[NACC], both small integers, exact in float.
 * The partials are non-negative (raidDfAddSameSign); every slot is written whatever the width (a group
 * narrower than NACC writes several). Bitwise reproducible: the order does not depend on scheduling. */
RAID_FN void group_reduce_write(const float *H, const float *L, RAID_LOCAL float2 *lw, uint lid,
                                RAID_GLOBAL float2 *out, int tail, int e, uint flag)
{
    for (int k = 0; k < NACC; k++) {
        const RaidDf v = raidFastTwoSum(H[k], L[k]);
        lw[k * RAID_WG + lid] = RAID_FLOAT2(v.hi, v.lo);
    }
    RAID_BARRIER();
    for (uint s = RAID_WG / 2; s > 0; s >>= 1) {
        if (lid < s) {
            for (int k = 0; k < NACC; k++) {
                const float2 a = lw[k * RAID_WG + lid], b = lw[k * RAID_WG + lid + s];
                const RaidDf v = raidDfAddSameSign(raidDfMake(a.x, a.y), raidDfMake(b.x, b.y));
                lw[k * RAID_WG + lid] = RAID_FLOAT2(v.hi, v.lo);
            }
        }
        RAID_BARRIER();
    }
    for (uint k = lid; k < NACC; k += RAID_WG)
        out[k] = lw[k * RAID_WG];
    if (tail && lid == 0)
        out[NACC] = RAID_FLOAT2((float)e, (float)flag);
}

#if RAID_INPUT_DF
/* ================================================================ the df policy: realized_fused */

/* The chunk index of the t-th return of work-item lid (t = 0 .. RAID_RUN-1, in the work-item's order): the
 * pairs t/2 RAID_WG + lid. */
#define RET_INDEX(t, lid) (2u * (((t) / 2u) * RAID_WG + (lid)) + (t) % 2u)
#ifndef RAID_DF_GROUPS
#define RAID_DF_GROUPS 0
#endif
#if RAID_DF_GROUPS
/* The groups layout (a benchmark variant, -DRAID_DF_GROUPS=1): work-item lid takes groups of DGRP
 * consecutive returns, t RAID_WG + lid, as the f32 kernel does, and splits the two returns before each
 * group itself (read again) instead of sharing split pairs through local memory: no barrier in the loop,
 * two more splits a group. Other bits than the pairs layout (another order), the same bounds. */
#define DGRP (RAID_RUN % 8 == 0 ? 8 : RAID_RUN % 4 == 0 ? 4 : 2)
#undef RET_INDEX
#define RET_INDEX(t, lid) (DGRP * (((t) / DGRP) * RAID_WG + (lid)) + (t) % DGRP)
#endif

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
            const uint4 q = ((RAID_GLOBAL const uint4 *)xc)[RET_INDEX(2 * t, lid) / 2];
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
#if RAID_DF_GROUPS
    uint2 pb[2 * (RAID_RUN / DGRP)]; /* the two returns before each group (zeros before the chunk's start) */
#pragma unroll
    for (uint t = 0; t < RAID_RUN / DGRP; t++) {
        const uint b = RET_INDEX(t * DGRP, lid);
        pb[2 * t] = b && b - 2u < ch.y ? xc[b - 2u] : RAID_UINT2(0u, 0u);
        pb[2 * t + 1] = b && b - 1u < ch.y ? xc[b - 1u] : RAID_UINT2(0u, 0u);
    }
#endif
    RAID_BARRIER(); /* s_max, s_bad set; before the loads arrive, so that the group meets once after them */

    uint sbad;
    const int sc = chunk_scale(v, &s_max, &s_bad, &sbad);
    /* every magnitude's high word is at most the largest's, so one at least near_min is in
     * raidBitsToDfNear's range */
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
     * magnitudes' bits (the split is symmetric: |split(r)| = split(|r|)), with their squares (the
     * median's payload) and their order. */
    float a1h = 0.0f, a2h = 0.0f;
    float a1l = 0.0f, a2l = 0.0f, p1 = 0.0f, pl1 = 0.0f, p2 = 0.0f, pl2 = 0.0f;
    int lt12 = 0;
#define WINDOW_SET(h1, l1, h2, l2)                                                                            \
    do {                                                                                                     \
        a1h = (h1), a1l = (l1), a2h = (h2), a2l = (l2);                                                      \
        p1 = a1h * a1h, pl1 = RAID_FMAF(2.0f * a1h, a1l, RAID_FMAF(a1h, a1h, -p1));                          \
        p2 = a2h * a2h, pl2 = RAID_FMAF(2.0f * a2h, a2l, RAID_FMAF(a2h, a2h, -p2));                          \
        lt12 = DF_LT(a1h, a1l, a2h, a2l);                                                                    \
    } while (0)
    /* The split pairs in local memory, (hi, lo) of both returns: each
     * work-item's pair of a step in one of 4 RAID_XSTEP rotating buffers (one barrier per RAID_XSTEP
     * steps). XS_PREV(s): the pair s WG + lid - 1, the previous work-item's of step s, or for lid 0
     * work-item WG-1's of step s-1 (none at the chunk's start: then anything, masked by XS_WINDOW). */
#define XS_T float4
#define XS_PACK(q, a, b) ((q).x = (a).hi, (q).y = (a).lo, (q).z = (b).hi, (q).w = (b).lo)
#define XS_WINDOW(q, f0) WINDOW_SET((f0) ? 0.0f : (q).z, (f0) ? 0.0f : (q).w, (f0) ? 0.0f : (q).x, (f0) ? 0.0f : (q).y)
    RaidDf g0 = raidDfMake(0.0f, 0.0f), g1 = g0, gs[2 * RAID_XSTEP];
#if RAID_PART & 14 && !RAID_DF_GROUPS
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
#if RAID_PART & 14 && !RAID_DF_GROUPS
                XS_PACK(qs[j], gs[2 * j], gs[2 * j + 1]);
                xs[((t / 2 + j) & (XS_NBUF - 1u)) * RAID_WG + lid] = qs[j];
#endif
            }
#if RAID_PART & 14 && !RAID_DF_GROUPS
            RAID_BARRIER();
#pragma unroll
            for (uint j = 0; j < RAID_XSTEP; j++)
                qs[j] = XS_PREV(t / 2 + j);
#endif
        }
        if (t % 2 == 0) { /* a pair starts: its split values, the previous pair's from the neighbour */
            const uint j = (t / 2) % RAID_XSTEP;
            g0 = gs[2 * j], g1 = gs[2 * j + 1];
#if RAID_PART & 14 && !RAID_DF_GROUPS
            XS_WINDOW(qs[j], t == 0 && lid == 0);
#endif
        }
#if RAID_DF_GROUPS
        if (t % DGRP == 0) { /* a group starts: the two returns before it, split here */
            const uint2 q2 = pb[2 * (t / DGRP)], q1 = pb[2 * (t / DGRP) + 1];
            const uint c2 = q2.y & 0x7FFFFFFFu, c1 = q1.y & 0x7FFFFFFFu;
            const RaidDf w2 = c2 >= near_min ? raidBitsToDfNear(c2, q2.x, k1) : raidBitsToDf(c2, q2.x, sc);
            const RaidDf w1 = c1 >= near_min ? raidBitsToDfNear(c1, q1.x, k1) : raidBitsToDf(c1, q1.x, sc);
            WINDOW_SET(w1.hi, w1.lo, w2.hi, w2.lo);
        }
#endif
        const RaidDf r = t % 2 ? g1 : g0; /* |r| */
        const int neg = (int)(v[t].y >> 31);                                 /* -0 gives a zero term */
        const float ah = r.hi;
        const int full = i - 2u < lim; /* the window (i-2, i-1, i) lies inside the chunk */
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
    }

    RAID_SHARED float2 lw[NACC * RAID_WG];
    group_reduce_write(H, L, lw, lid, part + (size_t)g * (NACC + 1), 1, sc, sbad);
}
#else /* RAID_INPUT_DF 0: the f32 policy */
/* ================================================================ the f32 policy: realized_fused
 * Work-item lid takes the groups of GRP consecutive returns t RAID_WG + lid, t = 0 .. RAID_RUN/GRP - 1, of
 * the chunk, and reads the two returns before each group again (from the cache: they are the neighbouring
 * work-item's): no local memory and no barrier until the final reduction. The values are the chunk's returns
 * scaled by 2^-e and rounded to binary32, either staged so by the host (RAID_BITS 0: floats, the chunk's e
 * and out-of-range flag kept on the host; the chunk starts on a 16-byte boundary) or formed here from the
 * float64 bits (RAID_BITS 1: the caller's device memory, or batches uploaded straight from the caller's
 * array: chunk_scale, then raidBitsToDf's hi, the same float as the host's (float)ldexp(r, -e)). Both give
 * the same floats, and everything after the loads is the same code: the same bits. */
#define GRP (RAID_RUN % 8 == 0 ? 8 : RAID_RUN % 4 == 0 ? 4 : 2)
#define NGRP (RAID_RUN / GRP)
#if RAID_BITS
#define XT uint2
#else
#define XT float
#endif

#if RAID_BITS
/* The f32 policy's float of the return with float64 bits q in a chunk of scale exponent sc (near_min, k1:
 * raidBitsToDfNear's range and constant for that scale): raidBitsToDf's hi, with the return's sign. */
RAID_FN float bits_f32(uint2 q, int sc, uint near_min, uint k1)
{
    const uint b = q.y & 0x7FFFFFFFu;
    const float m = b >= near_min ? raidBitsToDfNear(b, q.x, k1).hi : raidBitsToDf(b, q.x, sc).hi;
    return RAID_AS_FLOAT(RAID_AS_UINT(m) | (q.y & 0x80000000u));
}
#endif

RAID_KERNEL RAID_REQD_WG(RAID_WG)
void realized_fused(RAID_GLOBAL const XT *x, RAID_GLOBAL const uint2 *chunk, RAID_GLOBAL float2 *part)
{
    const uint g = RAID_GROUP_ID(0);
    const uint lid = RAID_LOCAL_ID(0);
    const uint2 ch = chunk[g]; /* (offset of the chunk in x, number of returns) */
    RAID_GLOBAL const XT *xc = x + ch.x;
    const uint n = ch.y;
    float w[RAID_RUN];    /* the work-item's values: group t's at w[t GRP ..] */
    float pv[2 * NGRP];   /* the two values before each group (zeros before the chunk's start) */
#if RAID_BITS
    RAID_SHARED uint s_max, s_bad;
    if (lid == 0)
        s_max = 0u, s_bad = 0u;
    uint2 v[RAID_RUN], pb[2 * NGRP];
#pragma unroll
    for (uint t = 0; t < NGRP; t++) {
        const uint b = GRP * (t * RAID_WG + lid);
#pragma unroll
        for (uint i = 0; i < GRP; i++)
            v[t * GRP + i] = b + i < n ? xc[b + i] : RAID_UINT2(0u, 0u);
        pb[2 * t] = b && b - 2u < n ? xc[b - 2u] : RAID_UINT2(0u, 0u);
        pb[2 * t + 1] = b && b - 1u < n ? xc[b - 1u] : RAID_UINT2(0u, 0u);
    }
    RAID_BARRIER(); /* s_max, s_bad set */
    uint sbad;
    const int sc = chunk_scale(v, &s_max, &s_bad, &sbad);
    const uint near_min = (uint)(sc + 950) << 20, k1 = (uint)(sc + 896) << 20;
#pragma unroll
    for (uint u = 0; u < RAID_RUN; u++)
        w[u] = bits_f32(v[u], sc, near_min, k1);
#pragma unroll
    for (uint u = 0; u < 2 * NGRP; u++)
        pv[u] = bits_f32(pb[u], sc, near_min, k1);
#else
    if (n == RAID_RUN * RAID_WG) { /* a whole chunk: vector loads, no bounds to check */
#pragma unroll
        for (uint t = 0; t < NGRP; t++) {
            const uint b = GRP * (t * RAID_WG + lid);
#if GRP == 2
            const float2 q = ((RAID_GLOBAL const float2 *)xc)[b / 2];
            w[t * GRP] = q.x, w[t * GRP + 1] = q.y;
#else
#pragma unroll
            for (uint j = 0; j < GRP / 4; j++) {
                const float4 q = ((RAID_GLOBAL const float4 *)xc)[b / 4 + j];
                w[t * GRP + 4 * j] = q.x, w[t * GRP + 4 * j + 1] = q.y;
                w[t * GRP + 4 * j + 2] = q.z, w[t * GRP + 4 * j + 3] = q.w;
            }
#endif
            const float2 p = b ? ((RAID_GLOBAL const float2 *)xc)[b / 2 - 1] : RAID_FLOAT2(0.0f, 0.0f);
            pv[2 * t] = p.x, pv[2 * t + 1] = p.y;
        }
    } else {
#pragma unroll
        for (uint t = 0; t < NGRP; t++) {
            const uint b = GRP * (t * RAID_WG + lid);
#pragma unroll
            for (uint i = 0; i < GRP; i++)
                w[t * GRP + i] = b + i < n ? xc[b + i] : 0.0f;
            pv[2 * t] = b && b - 2u < n ? xc[b - 2u] : 0.0f;
            pv[2 * t + 1] = b && b - 1u < n ? xc[b - 1u] : 0.0f;
        }
    }
#endif
    /* return i closes a window of three inside the chunk iff i - 2 < lim (unsigned) */
    const uint lim = RAID_MAX(n, 2u) - 2u;
    /* (H, L): the double-float accumulators; F: the plain float run sums folded into them */
    float H[NACC], L[NACC], F[NACC];
    for (int k = 0; k < NACC; k++)
        H[k] = 0.0f, L[k] = 0.0f, F[k] = 0.0f;
    /* Every return of the work-item, the zeros past the chunk's end included: their terms are exact zeros
     * and the median's window is masked. Each term is added to its run sum with one rounding (the fma of
     * the exact product). */
#pragma unroll
    for (uint t = 0; t < NGRP; t++) {
        const uint b = GRP * (t * RAID_WG + lid);
        float a2 = RAID_FABSF(pv[2 * t]), a1 = RAID_FABSF(pv[2 * t + 1]); /* |r| of the two before */
#pragma unroll
        for (uint i = 0; i < GRP; i++) {
            const uint u = t * GRP + i;
            const float r = w[u], ah = RAID_FABSF(r);
#if RAID_PART & 1
            const float xn = r < 0.0f ? ah : 0.0f, xp = r < 0.0f ? 0.0f : ah;
            F[0] = RAID_FMAF(xn, xn, F[0]);
            F[1] = RAID_FMAF(xp, xp, F[1]);
#endif
#if RAID_PART & 2
            F[2] = RAID_FMAF(ah, a1, F[2]); /* 0 for the chunk's first return */
#endif
#if RAID_PART & 4
            {
                const float sq = ah * ah;
                F[3] = RAID_FMAF(sq, sq, F[3]);
                const float pp = (ah * a1) * a2; /* 0 while i < 2 */
                const float q = raidPow23F(pp); /* pp^(4/3) = q^2 */
                F[4] = RAID_FMAF(q, q, F[4]);
            }
#endif
#if RAID_PART & 8
            {
                /* masked (a select, not a branch) unless the window (i-2, i-1, i) lies inside the chunk: adding
                 * 0 * 0 to the non-negative run sum changes no bit */
                const float m = RAID_FMAXF(RAID_FMINF(ah, a1), RAID_FMINF(RAID_FMAXF(ah, a1), a2));
                const float mm = b + i - 2u < lim ? m : 0.0f;
                F[5] = RAID_FMAF(mm, mm, F[5]);
            }
#endif
            a2 = a1, a1 = ah;
            if (u % RAID_FOLD == RAID_FOLD - 1)
                for (int k = 0; k < NACC; k++) {
                    ACC(H[k], L[k], F[k], 0.0f);
                    F[k] = 0.0f;
                }
        }
    }
#if RAID_RUN % RAID_FOLD != 0
    /* the last (partial) run */
    for (int k = 0; k < NACC; k++)
        ACC(H[k], L[k], F[k], 0.0f);
#endif
    RAID_SHARED float2 lw[NACC * RAID_WG];
#if RAID_BITS
    group_reduce_write(H, L, lw, lid, part + (size_t)g * (NACC + 1), 1, sc, sbad);
#else /* the host keeps the chunk's e and flag */
    group_reduce_write(H, L, lw, lid, part + (size_t)g * NACC, 0, 0, 0u);
#endif
}
#endif

