/*
 * Device pass of the residual cross-products (kernels/meat.cl), through the chunk reduction
 * (src/device/chunk.h) shared with the other kernels, for problems given as row ranges that may overlap (rolling
 * windows share rows but not coefficients):
 *   1. problems are taken in groups whose rows span at most a device buffer; per group the host centres
 *      each column of X and y by its mean c over the group's rows and scales it by a power of two (2^-a_p,
 *      2^-b: the column's largest |value| in [0.5, 1)), and uploads the span's rows ONCE, converted to the
 *      input policy, with the centres and every problem's coefficients and a = sum_p c_p beta_p - c_y in
 *      the same units (beta_p 2^(a_p - b), as double-float pairs);
 *   2. one work-group per chunk of MEAT_CHUNK rows of a problem forms the scores u_t = e_t x_t in
 *      double-float on the device and sums u_t[p] u_{t-l}[q] over the pairs inside the chunk in
 *      double-float, one (l, p, q) per work-item: the host never forms or uploads a window's scores, so
 *      a window costs the device its rows once and the host nothing but its coefficients;
 *   3. the host combines the chunks' partials in float64 in chunk order, unscales the sums (exact: powers
 *      of two), and adds the pairs that straddle chunk boundaries in float64 from the float64 scores.
 * With a constant column j0 (an intercept), the scores are formed in the basis of the columns centred
 * at a point m of each problem's rows (x_t[p] - m_p for p != j0, x_t[j0]) and mapped back by the host in
 * float64 (below, at "The scores' basis"). Bound, relative to sum_t w_t[p] w_{t-l}[q] with w_t[p] =
 * (|e_t| + |y_t - c_y| + sum_j |(x_t[j] - c_j) beta_j| + |a|) z_t[p], z_t[p] = |x_t[p] - m_p| (with j0;
 * |x_t[j0]| for j0) or |x_t[p] - c_p| + |c_p| (without), mapped back by A = I + v e_j0' (exactly in form, in
 * float64), plus that mapping's rounding (the residual's cancellation is carried in double-float but its
 * inputs are rounded to the policy):
 * df 2e-11 (values to 2^-48, up to 1024 sequential double-float additions at 3u^2), f32 4u(1 + 2u)
 * + 2e-11. A problem whose sums come out non-finite or so small that binary32's range could matter
 * (coefficients or score offsets beyond 2^60 in the scaled units, or a lag-0 diagonal below m 2^-100) is
 * done on the host.
 */
#include "device/chunk.h"
#include "regress/ols_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows per chunk: MEAT_CHUNK_MAX (a 1,000-row window is one chunk, so nothing straddles) unless the
 * chunk's scores do not fit in the device's local memory, then half as many, down to MEAT_CHUNK_MIN. */
#define MEAT_CHUNK_MAX 1024
#define MEAT_CHUNK_MIN 64
/* Rows of one group's upload at most (also bounded by the device's largest buffer). */
#define MEAT_GROUP_ROWS ((int64_t)1 << 26)

/* Exponent a with max * 2^-a in [0.5, 1) (0 for an all-zero column). */
static int col_exponent(double mx)
{
    int e = 0;
    if (mx > 0)
        frexp(mx, &e);
    return e;
}

/* The kernel's work-group width: the fewest passes over the NC = (L + 1) k^2 combinations that the
 * context's width allows, with the narrowest multiple of 32 work-items that covers them in that many
 * passes (the result does not depend on it: each work-item sums its combination's rows in order). */
static size_t meat_wg(const raid_ctx *ctx, size_t nc)
{
    size_t w = ctx->wg_width, maxw = raidDevMaxWg(ctx);
    if (w > maxw)
        w = maxw;
    const size_t passes = (nc + w - 1) / w;
    size_t need = (nc + passes - 1) / passes;
    need = (need + 31) / 32 * 32;
    return need < w ? need : w;
}

typedef struct meat_group {
    size_t g0, g1;      /* problems [g0, g1) */
    int64_t lo, hi;     /* their rows' span */
} meat_group;

/* One group: scale, upload, launch, combine, unscale; problems left to the host are marked in `host`. */
static raid_status meat_group_run(raid_ctx *ctx, RaidKernel *kern, size_t wg, size_t chunk, const double *X,
                                  const double *y,
                                  int k, const int64_t *start, const int64_t *end, const double *beta,
                                  const double *centre, int max_lag, const meat_group *G, double *out,
                                  unsigned char *host)
{
    const raid_precision prec = raid_ctx_precision(ctx);
    const size_t nc = (size_t)(max_lag + 1) * (size_t)k * (size_t)k;
    const size_t ng = G->g1 - G->g0, span = (size_t)(G->hi - G->lo), kk1 = (size_t)k + 1;
    const size_t ebytes = kk1 * (prec == RAID_PREC_F32 ? 4 : 8);
    int ex[RAID_REG_MAX_K + 1];
    double mx[RAID_REG_MAX_K + 1] = {0}, cen[RAID_REG_MAX_K + 1] = {0};
    double cmin[RAID_REG_MAX_K + 1], cmax[RAID_REG_MAX_K + 1];
    for (int p = 0; p <= k; p++)
        cmin[p] = INFINITY, cmax[p] = -INFINITY;
    long double csum[RAID_REG_MAX_K + 1] = {0};
    raid_status st = RAID_OK;
    void *rows = NULL;
    float *bdev = NULL;
    double *pcen = NULL; /* per problem: the centre of its scores (original units), with j0 below */
    int64_t *bad = NULL; /* prefix counts of non-finite rows of the span */
    RaidBuf rbuf = {NULL, 0, RAID_DT_FLOAT}, bbuf = {NULL, 0, RAID_DT_FLOAT};
    RaidChunkPlan plan;
    memset(&plan, 0, sizeof plan);

    /* 1. column scales over the span (a non-finite value counts as bad and is staged as 0) */
    bad = malloc((span + 1) * sizeof *bad);
    rows = malloc(span * ebytes);
    const size_t per = 2 * (size_t)k + 1, nbeta = ng * per; /* per problem: beta, a, score offsets d */
    bdev = malloc(nbeta * 2 * sizeof *bdev);
    pcen = malloc(ng * (size_t)k * sizeof *pcen);
    if (!bad || !rows || !bdev || !pcen) {
        st = raidFail(ctx, RAID_ENOMEM, "out of memory for %zu rows", span);
        goto done;
    }
    const double tc = raidNow();
    bad[0] = 0;
    for (size_t i = 0; i < span; i++) {
        const double *x = X + (size_t)(G->lo + (int64_t)i) * (size_t)k;
        const double yy = y[G->lo + (int64_t)i];
        int ok = isfinite(yy) != 0;
        for (int p = 0; p < k; p++)
            ok &= isfinite(x[p]) != 0;
        bad[i + 1] = bad[i] + !ok;
        if (ok) {
            for (int p = 0; p < k; p++) {
                mx[p] = fmax(mx[p], fabs(x[p]));
                csum[p] += x[p];
                cmin[p] = fmin(cmin[p], x[p]);
                cmax[p] = fmax(cmax[p], x[p]);
            }
            mx[k] = fmax(mx[k], fabs(yy));
            csum[k] += yy;
            cmin[k] = fmin(cmin[k], yy);
            cmax[k] = fmax(cmax[k], yy);
        }
    }
    for (int p = 0; p <= k; p++) {
        /* the centre: the column's mean over the group's valid rows (any value is exact; the mean keeps
         * the centred values, and so the residual's rounding, small) */
        const int64_t nvalid = (int64_t)span - bad[span];
        cen[p] = nvalid > 0 ? (double)(csum[p] / (long double)nvalid) : 0.0;
    }
    /* The scores' basis. With a constant column j0 (the intercept) the device forms the scores of the
     * columns centred at a point m of each problem's own rows (the mean of up to 8 rows spread over it),
     * u~_t[p] = e_t (x_t[p] - m_p) for p != j0 and u~_t[j0] = e_t x_t[j0], and the host maps the sums back
     * (u = A u~, A = I + v e_j0', v_p = m_p / c_j0) in float64 below: the device's error is then relative
     * to the problem's centred terms, not to the levels, and what the levels amplify is float64's
     * rounding, as on the cpu path (the device's robust errors grew with the level of log regressors
     * before: 1.6e-12 at level 0 to 1.9e-9 with rv scaled by 1e140; problems of several symbols
     * in one call share the group's centres c, hence a centre per problem). Without a constant column,
     * d = c: the scores of x_t = (x_t - c) + c. */
    int j0 = -1;
    for (int p = 0; p < k && j0 < 0; p++)
        if (cmin[p] == cmax[p] && cmin[p] != 0)
            j0 = p, cen[p] = cmin[p]; /* its centred values exactly 0 */
    /* With the caller's centres (raid_reg_meat_ranges_at) the scores are e_t (x_t - centre) and stay in
     * that basis: no mapping back. */
    const int own = centre == NULL && j0 >= 0;
    /* Scales: by the largest |value| of the column; with j0, by the largest centred |value| (the device
     * sees only centred values then, and the scores of the centred columns keep clear of binary32's
     * underflow however large the levels). */
    for (int p = 0; p <= k; p++) {
        const double cm = cmin[p] <= cmax[p] ? fmax(fabs(cmax[p] - cen[p]), fabs(cmin[p] - cen[p])) : 0.0;
        ex[p] = col_exponent((centre || j0 >= 0) && cm > 0 ? cm : mx[p]);
    }
    {
        const long long n = (long long)span;
#pragma omp parallel for schedule(static)
        for (long long i = 0; i < n; i++) {
            const double *x = X + (size_t)(G->lo + i) * (size_t)k;
            const int ok = bad[i + 1] == bad[i];
            for (int p = 0; p < k; p++)
                raidStageValue(rows, (size_t)i * kk1 + (size_t)p, ok ? ldexp(x[p] - cen[p], -ex[p]) : 0.0, prec);
            raidStageValue(rows, (size_t)i * kk1 + (size_t)k, ok ? ldexp(y[G->lo + i] - cen[k], -ex[k]) : 0.0,
                             prec);
        }
    }
    for (size_t g = G->g0; g < G->g1; g++) {
        const size_t i = g - G->g0;
        if (bad[end[g] - G->lo] != bad[start[g] - G->lo]) {
            host[g] = 1; /* the host path names the problem */
            continue;
        }
        const size_t bz = i * per; /* this problem's first pair in bdev */
        /* the scores' centre m: the caller's, or (own) the mean of up to 8 rows spread over the problem with
         * 0 on j0, or 0 (the scores e_t x_t); the device gets the offsets d = c - m */
        double *m = pcen + i * (size_t)k;
        if (centre)
            memcpy(m, centre + g * (size_t)k, (size_t)k * sizeof *m);
        else
            memset(m, 0, (size_t)k * sizeof *m);
        if (own) {
            const int64_t len = end[g] - start[g], np = len < 8 ? len : 8;
            for (int p = 0; p < k; p++) { /* any value is exact in form (A uses the same m): double will do */
                if (p == j0)
                    continue;
                double acc = 0;
                for (int64_t r = 0; r < np; r++)
                    acc += X[(size_t)(start[g] + r * len / np) * (size_t)k + (size_t)p];
                m[p] = np ? acc / (double)np : cen[p];
            }
        }
        for (int p = 0; p < k; p++) { /* as double-float pairs whatever the input policy */
            const double d = cen[p] - m[p];
            if (!(fabs(ldexp(d, -ex[p])) < 0x1p60))
                host[g] = 1;
            raidStageValue(bdev, bz + (size_t)k + 1 + (size_t)p, ldexp(d, -ex[p]), RAID_PREC_DF);
        }
        long double a = -(long double)cen[k];
        for (int p = 0; p <= k; p++) {
            double b;
            if (p < k) {
                b = ldexp(beta[g * (size_t)k + (size_t)p], ex[p] - ex[k]);
                a += (long double)cen[p] * beta[g * (size_t)k + (size_t)p];
            } else {
                b = ldexp((double)a, -ex[k]); /* a = sum_p c_p beta_p - c_y, scaled as y */
            }
            if (!(fabs(b) < 0x1p60))
                host[g] = 1;
            raidStageValue(bdev, bz + (size_t)p, b, RAID_PREC_DF);
        }
    }
    ctx->timing.convert_s += raidNow() - tc;

    /* 2. upload once, launch over the chunks of the group's problems */
    if ((st = raidBufAcquire(ctx, RAID_DT_FLOAT, span * ebytes / sizeof(float), &rbuf)) != RAID_OK ||
        (st = raidBufAcquire(ctx, RAID_DT_FLOAT, nbeta * 2, &bbuf)) != RAID_OK)
        goto done;
    {
        RaidEvent ev = {NULL};
        st = raidBufUpload(ctx, &rbuf, 0, rbuf.n, rows, 1, &ev);
        if (st == RAID_OK)
            st = raidBufUpload(ctx, &bbuf, 0, bbuf.n, bdev, 1, NULL);
        if (st == RAID_OK)
            st = raidArgBuf(ctx, kern, 3, &bbuf);
        ctx->timing.upload_s += raidEventSeconds(&ev);
        raidEventRelease(&ev);
        if (st != RAID_OK) /* the message names the failed call */
            goto done;
        ctx->timing.bytes_in += (uint64_t)(span * ebytes);
    }
    if ((st = raidPlanBuildRanges(&plan, start + G->g0, end + G->g0, ng, chunk)) != RAID_OK) {
        st = raidFail(ctx, st, "cannot plan %zu problems", ng);
        goto done;
    }
    {
        RaidChunkJob job = {&plan, kern, wg, ebytes, 1, nc, NULL, NULL, NULL, out + G->g0 * nc, "the meat kernel",
                              rbuf, G->lo, NULL, NULL, NULL, NULL, 0, 0, NULL, 0};
        if ((st = raidChunkReduce(ctx, &job)) != RAID_OK)
            goto done;
    }

    /* 3. unscale; problems whose sums binary32 may have spoilt go to the host */
    const double tu = raidNow();
    const long long gl0 = (long long)G->g0, gl1 = (long long)G->g1;
    double unscale[(RAID_REG_MAX_K) * (RAID_REG_MAX_K)]; /* 2^(2b + a_p + a_q): exact */
    for (int p = 0; p < k; p++)
        for (int q = 0; q < k; q++)
            unscale[p * k + q] = ldexp(1.0, 2 * ex[k] + ex[p] + ex[q]);
#pragma omp parallel for schedule(static)
    for (long long g = gl0; g < gl1; g++) {
        double *o = out + (size_t)g * nc;
        const double floor_ = ldexp((double)(end[g] - start[g]), -100);
        for (int p = 0; p < k && !host[g]; p++)
            if (!(o[(size_t)p * k + (size_t)p] >= floor_) && end[g] - start[g] > 0)
                host[g] = 1;
        for (size_t c = 0; c < nc && !host[g]; c++)
            if (!isfinite(o[c]))
                host[g] = 1;
        if (host[g])
            continue;
        const size_t kk = (size_t)k * (size_t)k;
        for (size_t c = 0; c < nc; c++)
            o[c] *= unscale[c % kk];
        double v[RAID_REG_MAX_K] = {0}; /* m / c_j0 (m_j0 = 0) */
        for (int p = 0; p < k && own; p++)
            v[p] = pcen[(size_t)(g - gl0) * (size_t)k + (size_t)p] / cen[j0];
        if (own) /* M = A M~ A' for every lag (the basis above) */
            for (size_t l = 0; l < nc / kk; l++) {
                double *m = o + l * kk;
                for (int p = 0; p < k; p++) /* rows: M~[p][.] + v_p M~[j0][.] */
                    if (p != j0)
                        for (int q = 0; q < k; q++)
                            m[p * k + q] += v[p] * m[j0 * k + q];
                for (int p = 0; p < k; p++) /* columns: N[.][q] + N[.][j0] v_q */
                    for (int q = 0; q < k; q++)
                        if (q != j0)
                            m[p * k + q] += m[p * k + j0] * v[q];
            }
    }
    ctx->timing.convert_s += raidNow() - tu;
done:
    raidBufRelease(ctx, &rbuf);
    raidBufRelease(ctx, &bbuf);
    raidPlanFree(&plan);
    free(bad);
    free(rows);
    free(bdev);
    free(pcen);
    return st;
}

raid_status raidRegMeatCl(raid_ctx *ctx, const double *X, const double *y, int k, const int64_t *start,
                             const int64_t *end, size_t nreg, const double *beta, const double *centre,
                             int max_lag, double *out)
{
    const raid_precision prec = raid_ctx_precision(ctx);
    const size_t nc = (size_t)(max_lag + 1) * (size_t)k * (size_t)k;
    const size_t row_local = (size_t)k * (prec == RAID_PREC_DF ? 2 : 1) * sizeof(float);
    size_t chunk = MEAT_CHUNK_MAX;
    while (chunk > MEAT_CHUNK_MIN && chunk * row_local > raidDevLocalMem(ctx))
        chunk /= 2;
    if (chunk * row_local > raidDevLocalMem(ctx))
        return raidFail(ctx, RAID_EUNSUPPORTED, "the meat kernel needs %zu bytes of local memory",
                         chunk * row_local);
    const size_t ebytes = ((size_t)k + 1) * (prec == RAID_PREC_F32 ? 4 : 8);
    int64_t max_rows = (int64_t)(raidDevMaxAlloc(ctx) / ebytes);
    if (max_rows > MEAT_GROUP_ROWS)
        max_rows = MEAT_GROUP_ROWS;
    const size_t tuned = raidTuneMaxBatchElems(ctx);
    if (tuned && (int64_t)tuned < max_rows) /* tests: many groups */
        max_rows = (int64_t)tuned;
    for (size_t g = 0; g < nreg; g++)
        if (end[g] - start[g] > max_rows)
            return raidFail(ctx, RAID_EUNSUPPORTED, "problem %zu has %lld rows, more than the %lld of one device "
                             "buffer", g, (long long)(end[g] - start[g]), (long long)max_rows);
    const size_t wg = meat_wg(ctx, nc);
    char opts[512];
    snprintf(opts, sizeof opts, "-DRAID_WG=%zu -DRAID_CHUNK=%zu -DRAID_K=%d -DRAID_L=%d -DRAID_INPUT_DF=%d %s", wg,
             chunk, k, max_lag, prec == RAID_PREC_DF, raidTuneBuildOptions(ctx));
    RaidKernel *kern;
    raid_status st = raidKernelGet(ctx, "meat.cl", "reg_meat", opts, &kern);
    if (st != RAID_OK)
        return st;
    memset(&ctx->timing, 0, sizeof ctx->timing);
    {
        const long long ng = (long long)nreg;
#pragma omp parallel for schedule(static)
        for (long long g = 0; g < ng; g++)
            memset(out + (size_t)g * nc, 0, nc * sizeof *out);
    }
    unsigned char *host = calloc(nreg ? nreg : 1, 1);
    if (!host) {
        raidKernelPut(ctx, kern);
        return raidFail(ctx, RAID_ENOMEM, "out of memory");
    }

    /* Groups of consecutive problems whose rows span at most max_rows (windows in order share rows). */
    for (size_t g0 = 0; g0 < nreg && st == RAID_OK;) {
        meat_group G = {g0, g0 + 1, start[g0], end[g0]};
        while (G.g1 < nreg) {
            const int64_t lo = start[G.g1] < G.lo ? start[G.g1] : G.lo, hi = end[G.g1] > G.hi ? end[G.g1] : G.hi;
            if (hi - lo > max_rows)
                break;
            G.lo = lo;
            G.hi = hi;
            G.g1++;
        }
        if (G.hi > G.lo)
            st = meat_group_run(ctx, kern, wg, chunk, X, y, k, start, end, beta, centre, max_lag, &G, out, host);
        g0 = G.g1;
    }

    /* Pairs (t, t-l) with t-l in an earlier chunk of the same problem, in float64. */
    if (st == RAID_OK) {
        const double tw = raidNow();
        const long long ng = (long long)nreg;
        int oom = 0;
#pragma omp parallel
        {
            /* the scores of the rows that pair across one boundary: [cs - L, cs + min(L, chunk)) at most */
            double *ub = malloc((size_t)(max_lag + (int64_t)chunk) * RAID_REG_MAX_K * sizeof *ub);
            if (!ub) {
#pragma omp atomic write
                oom = 1;
            }
#pragma omp for schedule(dynamic, 64)
            for (long long g = 0; g < ng; g++) {
                if (host[g] || !ub)
                    continue;
                double *o = out + (size_t)g * nc;
                const double *b = beta + (size_t)g * k, *cg = centre ? centre + (size_t)g * k : NULL;
                for (int64_t cs = start[g] + (int64_t)chunk; cs < end[g]; cs += (int64_t)chunk) {
                    /* scores of rows [r0, r1): the rows that pair across the boundary at cs */
                    const int64_t r0 = cs - max_lag > start[g] ? cs - max_lag : start[g];
                    int64_t r1 = cs + max_lag < end[g] ? cs + max_lag : end[g];
                    if (r1 > cs + (int64_t)chunk)
                        r1 = cs + (int64_t)chunk;
                    for (int64_t t = r0; t < r1; t++)
                        raidRegScoreAt(X, y, k, t, b, cg, ub + (size_t)(t - r0) * RAID_REG_MAX_K);
                    for (int64_t t = cs; t < r1; t++) {
                        const double *pt = ub + (size_t)(t - r0) * RAID_REG_MAX_K;
                        for (int l = (int)(t - cs) + 1; l <= max_lag && t - l >= start[g]; l++) {
                            const double *ps = ub + (size_t)(t - l - r0) * RAID_REG_MAX_K;
                            for (int p = 0; p < k; p++)
                                for (int q = 0; q < k; q++)
                                    o[((size_t)l * k + p) * k + q] += pt[p] * ps[q];
                        }
                    }
                }
            }
            free(ub);
        }
        if (oom)
            st = raidFail(ctx, RAID_ENOMEM, "out of memory for the scores across chunk boundaries (lag %d)", max_lag);
        /* Problems left to the host: its long double path (it names a problem whose scores are not finite). */
        for (size_t g = 0; g < nreg && st == RAID_OK; g++)
            if (host[g]) {
                st = raid_reg_meat_ranges_at(NULL, X, y, k, start + g, end + g, 1, beta + g * (size_t)k,
                                             centre ? centre + g * (size_t)k : NULL, max_lag, out + g * nc);
                if (st != RAID_OK)
                    st = raidFail(ctx, st, "problem %zu: a residual times a regressor is not finite (X or y not "
                                   "finite, or overflow)", g);
                ctx->timing.host_segments++;
            }
        ctx->timing.convert_s += raidNow() - tw;
    }
    free(host);
    raidKernelPut(ctx, kern);
    return st;
}
