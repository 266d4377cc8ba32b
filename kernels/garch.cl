/*
 * garch.cl -- batched GARCH-family log-likelihoods and scores: one work-item per point (series, theta).
 *
 * The host (src/models/garch_eval_device.c) scales each series to unit variance (r' = r / s) and uploads it
 * once as double-float pairs (hi, lo); per point it computes in float64 and uploads, as double-float
 * pairs, the scaled parameters, the constants of the error distribution and EGARCH's kappa, and the
 * first state (h_1' or g_1' = log h_1') with its derivatives in the scaled parameters. The kernel runs
 * the recursion of the state and of its derivatives forward (as src/models/garch_lik.c), everything in
 * double-float (docs/garch.md, "The device path and its bound", says why), and returns per point:
 *   out[0]      1 if the point left the range where the bound holds (the host evaluates it in float64);
 *   out[1..2]   GARCH/GJR: the product of h_t' (df, renormalised to [1, 2), the int exponent's bits in
 *               out[3]);
 *               EGARCH: sum_t g_t' (df, out[3] = 0);
 *   out[4..5]   Normal: sum_t e_t'^2 / h_t'; t: the product of b_t = (nu - 2) h_t' + e_t'^2
 *               (EGARCH: (nu - 2) + z_t^2), the exponent's bits in out[6];
 *   out[7..8]   t: sum_t q_t / (1 + q_t) (q_t = e_t'^2 / ((nu - 2) h_t'));
 *   out[9 + 2j] the score part sum_t dl_t/dtheta'_j of the log-likelihood's terms that the kernel sees
 *               (the state's part, and the residual's part for mu), df.
 * The host forms logs of the products and the constant parts in float64 (garch_eval_device.c).
 *
 * Compile-time parameters: GM_MODEL (0 GARCH, 1 GJR, 2 EGARCH), GM_T (0 Normal, 1 Student-t), GM_MU
 * (1 constant mean, 0 zero mean), GM_DNU (1: EGARCH-t with kappa = E|z|, so the state depends on nu).
 */
#pragma OPENCL FP_CONTRACT OFF

#if !defined(GM_MODEL) || !defined(GM_T) || !defined(GM_MU) || !defined(GM_DNU)
#error "garch.cl needs GM_MODEL, GM_T, GM_MU and GM_DNU (set by src/models/garch_eval_device.c)"
#endif

/* Positions in theta (garch_lik.h's layout) */
#define IMU 0
#define IOM (GM_MU)
#define IAL (IOM + 1)
#define IGA (IAL + 1)
#define IBE (IAL + 1 + (GM_MODEL != 0))
#define INU (IBE + 1)
#define GM_K (IBE + 1 + GM_T)

/* Per point: GM_NPAR double-float values (see garch_eval_device.c), GM_NOUT floats of results */
#define GM_NPAR 16
#define GM_NOUT 24
#define P_MU 0
#define P_OMEGA 1
#define P_ALPHA 2
#define P_GAMMA 3
#define P_BETA 4
#define P_NM2 5
#define P_NP1 6
#define P_KAPPA 7
#define P_ADKAPPA 8
#define P_S0 9
#define P_D0 10

/* Range of the scaled state where the bound holds (docs/garch.md): outside, the point goes to the host */
#define GM_HMIN 0x1p-40f
#define GM_HMAX 0x1p40f
#define GM_GMAX 27.0f /* |g'| <= 27 < 40 log 2 */

RAID_FN RaidDf df_neg(RaidDf x) { return raidDfMake(-x.hi, -x.lo); }
RAID_FN RaidDf df_sub(RaidDf x, RaidDf y) { return raidDfAdd(x, df_neg(y)); }

/* Multiply a positive product (p, exponent ex) by a positive df v (h' in [2^-40, 2^40] by the range
 * checks, b at least 2^-60; a factor that overflows makes the results not finite and the host takes the
 * point), renormalising p to [1, 2) by an exact power of two every step, so that p and its low part stay
 * normal whatever T. */
RAID_FN void prod_acc(RaidDf *p, int *ex, RaidDf v)
{
    const RaidDf q = raidDfMul(*p, v);
    const int e = RAID_ILOGBF(q.hi);
    *p = raidDfMake(RAID_LDEXPF(q.hi, -e), RAID_LDEXPF(q.lo, -e));
    *ex += e;
}

RAID_FN RaidDf ldf(RAID_GLOBAL const float2 *v, int i) { return raidDfMake(v[i].x, v[i].y); }

RAID_KERNEL void garch_lik(RAID_GLOBAL const float2 *r, RAID_GLOBAL const uint2 *span,
                           RAID_GLOBAL const float2 *par, RAID_GLOBAL float *out, uint npts)
{
    const uint p = RAID_GLOBAL_ID(0);
    if (p >= npts)
        return;
    const uint2 sp = span[p]; /* (first return, T) */
    RAID_GLOBAL const float2 *pp = par + (size_t)p * GM_NPAR;
    RAID_GLOBAL const float2 *x = r + sp.x;
    const uint T = sp.y;

    const RaidDf mu = GM_MU ? ldf(pp, P_MU) : raidDfMake(0.0f, 0.0f);
    const RaidDf omega = ldf(pp, P_OMEGA), alpha = ldf(pp, P_ALPHA), beta = ldf(pp, P_BETA);
#if GM_MODEL != 0
    const RaidDf gamma = ldf(pp, P_GAMMA);
#endif
#if GM_T
    const RaidDf nm2 = ldf(pp, P_NM2), np1 = ldf(pp, P_NP1);
    const RaidDf np1h = raidDfMake(0.5f * np1.hi, 0.5f * np1.lo);
#endif
#if GM_MODEL == 2
    const RaidDf kappa = ldf(pp, P_KAPPA);
#if GM_DNU
    const RaidDf adk = ldf(pp, P_ADKAPPA);
#endif
#endif
    RaidDf d[GM_K], gs[GM_K];
    for (int j = 0; j < GM_K; j++) {
        d[j] = ldf(pp, P_D0 + j);
        gs[j] = raidDfMake(0.0f, 0.0f);
    }
    RaidDf s = ldf(pp, P_S0); /* h' (GARCH, GJR) or g' = log h' (EGARCH) */
    RaidDf A = raidDfMake(GM_MODEL == 2 ? 0.0f : 1.0f, 0.0f), B = raidDfMake(GM_T ? 1.0f : 0.0f, 0.0f);
    RaidDf Q = raidDfMake(0.0f, 0.0f);
    int ea = 0, eb = 0;
    int bad = 0;
    RaidDf e_prev = raidDfMake(0.0f, 0.0f);
#if GM_MODEL == 2
    RaidDf z_prev = e_prev; /* (each model declares only the state it reads: no unused variable) */
#if GM_MU
    RaidDf w_prev = e_prev;
#endif
#else
    RaidDf e2_prev = e_prev;
#endif

    for (uint t = 0; t < T; t++) {
        if (t > 0) {
#if GM_MODEL == 2
            /* EGARCH: dz_j = -z/2 dg_j (- 1/sigma for mu); dg_j = beta dg_j + (alpha sign z + gamma) dz_j + ... */
            const RaidDf az = z_prev.hi < 0.0f ? df_neg(z_prev) : z_prev;
            const RaidDf sgn = raidDfAdd(z_prev.hi < 0.0f ? df_neg(alpha) : alpha, gamma);
            const RaidDf hz = raidDfMake(-0.5f * z_prev.hi, -0.5f * z_prev.lo);
            const RaidDf azk = df_sub(az, kappa);
            for (int j = 0; j < GM_K; j++) {
                RaidDf dz = raidDfMul(hz, d[j]);
#if GM_MU
                if (j == IMU)
                    dz = df_sub(dz, w_prev);
#endif
                d[j] = raidDfAdd(raidDfMul(beta, d[j]), raidDfMul(sgn, dz));
            }
            d[IOM] = raidDfAddF(d[IOM], 1.0f);
            d[IAL] = raidDfAdd(d[IAL], azk);
            d[IGA] = raidDfAdd(d[IGA], z_prev);
            d[IBE] = raidDfAdd(d[IBE], s);
#if GM_T && GM_DNU
            d[INU] = df_sub(d[INU], adk);
#endif
            s = raidDfAdd(raidDfAdd(omega, raidDfMul(alpha, azk)),
                            raidDfAdd(raidDfMul(gamma, z_prev), raidDfMul(beta, s)));
#else
            /* GARCH, GJR: dh_j = beta dh_j + (1, e^2, 1[e<0] e^2, h, -2 a e) */
#if GM_MODEL == 1
            const int neg = e_prev.hi < 0.0f;
            const RaidDf a = neg ? raidDfAdd(alpha, gamma) : alpha;
#else
            const RaidDf a = alpha;
#endif
            for (int j = 0; j < GM_K; j++)
                d[j] = raidDfMul(beta, d[j]);
            d[IOM] = raidDfAddF(d[IOM], 1.0f);
            d[IAL] = raidDfAdd(d[IAL], e2_prev);
#if GM_MODEL == 1
            if (neg)
                d[IGA] = raidDfAdd(d[IGA], e2_prev);
#endif
            d[IBE] = raidDfAdd(d[IBE], s);
#if GM_MU
            {
                const RaidDf ae = raidDfMul(a, e_prev);
                d[IMU] = df_sub(d[IMU], raidDfMake(2.0f * ae.hi, 2.0f * ae.lo));
            }
#endif
            s = raidDfAdd(raidDfAdd(omega, raidDfMul(a, e2_prev)), raidDfMul(beta, s));
#endif
        }
        const RaidDf e = raidDfAdd(raidDfMake(x[t].x, x[t].y), df_neg(mu));
#if GM_MODEL == 2
        if (!(RAID_FABSF(s.hi) <= GM_GMAX)) { /* also NaN */
            bad = 1;
            break;
        }
        /* w = exp(-g/2) = 1/sigma, z = e w */
        const RaidDf w = raidDfExp(raidDfMake(-0.5f * s.hi, -0.5f * s.lo));
        const RaidDf z = raidDfMul(e, w);
        const RaidDf z2 = raidDfMul(z, z);
        A = raidDfAdd(A, s);
        RaidDf dlds; /* dl/dg */
#if GM_T
        const RaidDf b = raidDfAdd(nm2, z2);
        const RaidDf ib = raidDfRecip(b);
        const RaidDf qq = raidDfMul(z2, ib);
        prod_acc(&B, &eb, b);
        Q = raidDfAdd(Q, qq);
        dlds = raidDfAddF(raidDfMul(np1h, qq), -0.5f);
#if GM_MU
        const RaidDf dle = raidDfMul(raidDfMul(np1, z), raidDfMul(w, ib)); /* -dl/de */
#endif
#else
        B = raidDfAdd(B, z2);
        dlds = raidDfAddF(raidDfMake(0.5f * z2.hi, 0.5f * z2.lo), -0.5f);
#if GM_MU
        const RaidDf dle = raidDfMul(z, w);
#endif
#endif
#if GM_MU
        w_prev = w;
#endif
        z_prev = z;
#else
        if (!(s.hi >= GM_HMIN && s.hi <= GM_HMAX)) { /* also NaN */
            bad = 1;
            break;
        }
        const RaidDf e2 = raidDfMul(e, e);
        prod_acc(&A, &ea, s);
        RaidDf dlds; /* dl/dh */
        const RaidDf ih = raidDfRecip(s);
#if GM_T
        const RaidDf b = raidDfAdd(raidDfMul(nm2, s), e2);
        const RaidDf ib = raidDfRecip(b);
        const RaidDf qq = raidDfMul(e2, ib);
        prod_acc(&B, &eb, b);
        Q = raidDfAdd(Q, qq);
        dlds = raidDfMul(raidDfAddF(raidDfMul(np1h, qq), -0.5f), ih);
#if GM_MU
        const RaidDf dle = raidDfMul(np1, raidDfMul(e, ib));
#endif
#else
        const RaidDf z2 = raidDfMul(e2, ih);
        B = raidDfAdd(B, z2);
        dlds = raidDfMul(raidDfAddF(raidDfMake(0.5f * z2.hi, 0.5f * z2.lo), -0.5f), ih);
#if GM_MU
        const RaidDf dle = raidDfMul(e, ih);
#endif
#endif
        e2_prev = e2;
#endif
        for (int j = 0; j < GM_K; j++)
            gs[j] = raidDfAdd(gs[j], raidDfMul(dlds, d[j]));
#if GM_MU
        gs[IMU] = raidDfAdd(gs[IMU], dle);
#endif
        e_prev = e;
    }

    RAID_GLOBAL float *o = out + (size_t)p * GM_NOUT;
    o[0] = bad ? 1.0f : 0.0f;
    o[1] = A.hi;
    o[2] = A.lo;
    o[3] = RAID_AS_FLOAT(ea); /* the exponents travel as their bits */
    o[4] = B.hi;
    o[5] = B.lo;
    o[6] = RAID_AS_FLOAT(eb);
    o[7] = Q.hi;
    o[8] = Q.lo;
    for (int j = 0; j < GM_K; j++) {
        o[9 + 2 * j] = gs[j].hi;
        o[10 + 2 * j] = gs[j].lo;
    }
}
