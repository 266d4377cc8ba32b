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
#include "device/launch.h"
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

/* What a group's columns (X's k, then y) need: their scale exponents, centres, the constant column j0 (-1:
 * none) and whether the scores are formed in the basis of each problem's own centre (own). */
typedef struct meat_cols {
    int ex[RAID_REG_MAX_D];
    double cen[RAID_REG_MAX_D];
    int j0, own;
} meat_cols;

/* Of the group's span: bad[i + 1] = the rows of [0, i] with a value that is not finite (bad[0] = 0); each
 * column's centre (its mean over the valid rows), and its range and largest |value| into cmin, cmax, mx. */
static void scan_columns(const double *X, const double *y, int k, const meat_group *G, int64_t *bad, double *mx,
                         double *cen, double *cmin, double *cmax)
{
    const size_t span = (size_t)(G->hi - G->lo);
    long double csum[RAID_REG_MAX_D] = {0};
    for (int p = 0; p <= k; p++)
        mx[p] = 0, cmin[p] = INFINITY, cmax[p] = -INFINITY;
    bad[0] = 0;
    for (size_t i = 0; i < span; i++) {
        const double *x = X + (size_t)(G->lo + (int64_t)i) * (size_t)k;
        const double yy = y[G->lo + (int64_t)i];
        int ok = isfinite(yy) != 0;
        for (int p = 0; p < k; p++)
            ok &= isfinite(x[p]) != 0;
        bad[i + 1] = bad[i] + !ok;
        if (!ok)
            continue;
        for (int p = 0; p <= k; p++) {
            const double v = p < k ? x[p] : yy;
            mx[p] = fmax(mx[p], fabs(v));
            csum[p] += v;
            cmin[p] = fmin(cmin[p], v);
            cmax[p] = fmax(cmax[p], v);
        }
    }
    /* the centre: the column's mean over the group's valid rows (any value is exact; the mean keeps the
     * centred values, and so the residual's rounding, small) */
    const int64_t nvalid = (int64_t)span - bad[span];
    for (int p = 0; p <= k; p++)
        cen[p] = nvalid > 0 ? (double)(csum[p] / (long double)nvalid) : 0.0;
}

/* The scores' basis. With a constant column j0 (the intercept) the device forms the scores of the columns
 * centred at a point m of each problem's own rows (the mean of up to 8 rows spread over it),
 * u~_t[p] = e_t (x_t[p] - m_p) for p != j0 and u~_t[j0] = e_t x_t[j0], and the host maps the sums back
 * (u = A u~, A = I + v e_j0', v_p = m_p / c_j0) in float64 (unscale_problem): the device's error is then
 * relative to the problem's centred terms, not to the levels, and what the levels amplify is float64's
 * rounding, as on the cpu path (the device's robust errors grew with the level of log regressors before:
 * 1.6e-12 at level 0 to 1.9e-9 with rv scaled by 1e140; problems of several symbols in one call share the
 * group's centres c, hence a centre per problem). Without a constant column, d = c: the scores of
 * x_t = (x_t - c) + c. With the caller's centres (raid_reg_meat_ranges_at) the scores are e_t (x_t - centre)
 * and stay in that basis: no mapping back. Scales: by the largest |value| of the column; with j0, by the
 * largest centred |value| (the device sees only centred values then, and the scores of the centred columns
 * keep clear of binary32's underflow however large the levels). */
static void basis(int k, const double *centre, const double *mx, const double *cmin, const double *cmax,
                  meat_cols *mc)
{
    mc->j0 = -1;
    for (int p = 0; p < k && mc->j0 < 0; p++)
        if (cmin[p] == cmax[p] && cmin[p] != 0)
            mc->j0 = p, mc->cen[p] = cmin[p]; /* its centred values exactly 0 */
    mc->own = centre == NULL && mc->j0 >= 0;
    for (int p = 0; p <= k; p++) {
        const double cm = cmin[p] <= cmax[p] ? fmax(fabs(cmax[p] - mc->cen[p]), fabs(cmin[p] - mc->cen[p])) : 0.0;
        mc->ex[p] = col_exponent((centre || mc->j0 >= 0) && cm > 0 ? cm : mx[p]);
    }
}

/* The span's rows centred and scaled, in the input policy, into rows (k + 1 values a row; a row with a
 * value that is not finite staged as zeros). */
static void stage_rows(const double *X, const double *y, int k, const meat_group *G, const int64_t *bad,
                       const meat_cols *mc, raid_precision prec, void *rows)
{
    const size_t kk1 = (size_t)k + 1;
    const long long n = (long long)(G->hi - G->lo);
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n; i++) {
        const double *x = X + (size_t)(G->lo + i) * (size_t)k;
        const int ok = bad[i + 1] == bad[i];
        for (int p = 0; p < k; p++)
            raidStageValue(rows, (size_t)i * kk1 + (size_t)p, ok ? ldexp(x[p] - mc->cen[p], -mc->ex[p]) : 0.0, prec);
        raidStageValue(rows, (size_t)i * kk1 + (size_t)k, ok ? ldexp(y[G->lo + i] - mc->cen[k], -mc->ex[k]) : 0.0,
                         prec);
    }
}

/* Problem g's 2k + 1 double-float pairs at bz of bdev: its coefficients beta_p 2^(a_p - b), a = sum_p c_p
 * beta_p - c_y (scaled as y), and the score offsets d = c - m; its scores' centre m (the caller's, or with
 * own the mean of up to 8 rows spread over the problem with 0 on j0, or 0: the scores e_t x_t) into m.
 * Returns 1 where a pair is beyond 2^60 (binary32's range could matter: the problem goes to the host). */
static int stage_problem(const double *X, int k, const int64_t *start, const int64_t *end, const double *beta,
                         const double *centre, size_t g, const meat_cols *mc, float *bdev, size_t bz, double *m)
{
    int host = 0;
    if (centre)
        memcpy(m, centre + g * (size_t)k, (size_t)k * sizeof *m);
    else
        memset(m, 0, (size_t)k * sizeof *m);
    if (mc->own) {
        const int64_t len = end[g] - start[g], np = len < 8 ? len : 8;
        for (int p = 0; p < k; p++) { /* any value is exact in form (A uses the same m): double will do */
            if (p == mc->j0)
                continue;
            double acc = 0;
            for (int64_t r = 0; r < np; r++)
                acc += X[(size_t)(start[g] + r * len / np) * (size_t)k + (size_t)p];
            m[p] = np ? acc / (double)np : mc->cen[p];
        }
    }
    for (int p = 0; p < k; p++) { /* as double-float pairs whatever the input policy */
        const double d = mc->cen[p] - m[p];
        if (!(fabs(ldexp(d, -mc->ex[p])) < 0x1p60))
            host = 1;
        raidStageValue(bdev, bz + (size_t)k + 1 + (size_t)p, ldexp(d, -mc->ex[p]), RAID_PREC_DF);
    }
    long double a = -(long double)mc->cen[k];
    for (int p = 0; p <= k; p++) {
        double b;
        if (p < k) {
            b = ldexp(beta[g * (size_t)k + (size_t)p], mc->ex[p] - mc->ex[k]);
            a += (long double)mc->cen[p] * beta[g * (size_t)k + (size_t)p];
        } else {
            b = ldexp((double)a, -mc->ex[k]); /* a = sum_p c_p beta_p - c_y, scaled as y */
        }
        if (!(fabs(b) < 0x1p60))
            host = 1;
        raidStageValue(bdev, bz + (size_t)p, b, RAID_PREC_DF);
    }
    return host;
}

/* Problem g's sums (nc of them at o) unscaled and, with own, mapped back to the original basis
 * (M = A M~ A' for every lag); 1 (untouched) where binary32 may have spoilt them: a lag-0 diagonal below
 * m 2^-100 or a sum that is not finite, for the host. m: the problem's scores' centre (stage_problem). */
static int unscale_problem(int k, size_t nc, int64_t rows, const meat_cols *mc, const double *unscale,
                           const double *m, double *o)
{
    const double floor_ = ldexp((double)rows, -100);
    for (int p = 0; p < k; p++)
        if (!(o[(size_t)p * k + (size_t)p] >= floor_) && rows > 0)
            return 1;
    for (size_t c = 0; c < nc; c++)
        if (!isfinite(o[c]))
            return 1;
    const size_t kk = (size_t)k * (size_t)k;
    const int j0 = mc->j0;
    for (size_t c = 0; c < nc; c++)
        o[c] *= unscale[c % kk];
    if (!mc->own)
        return 0;
    double v[RAID_REG_MAX_K] = {0}; /* m / c_j0 (m_j0 = 0) */
    for (int p = 0; p < k; p++)
        v[p] = m[p] / mc->cen[j0];
    for (size_t l = 0; l < nc / kk; l++) {
        double *M = o + l * kk;
        for (int p = 0; p < k; p++) /* rows: M~[p][.] + v_p M~[j0][.] */
            if (p != j0)
                for (int q = 0; q < k; q++)
                    M[p * k + q] += v[p] * M[j0 * k + q];
        for (int p = 0; p < k; p++) /* columns: N[.][q] + N[.][j0] v_q */
            for (int q = 0; q < k; q++)
                if (q != j0)
                    M[p * k + q] += M[p * k + j0] * v[q];
    }
    return 0;
}

/* 2. The span's rows (rows, ebytes a row) and the problems' pairs (bdev, nbeta pairs) uploaded once; the
 *    chunk reduction over the chunks of the group's problems (the rows resident), its sums into out. The
 *    pairs are the kernel's argument 3 (0 .. 2: the chunk reduction's). */
static raid_status upload_reduce(raid_ctx *ctx, RaidKernel *kern, size_t wg, size_t chunk, size_t nc,
                                 const int64_t *start, const int64_t *end, const meat_group *G, const void *rows,
                                 size_t ebytes, const float *bdev, size_t nbeta, double *out)
{
    const size_t ng = G->g1 - G->g0, span = (size_t)(G->hi - G->lo);
    RaidBuf rbuf = {NULL, 0, RAID_DT_FLOAT}, bbuf = {NULL, 0, RAID_DT_FLOAT};
    RaidChunkPlan plan;
    memset(&plan, 0, sizeof plan);
    RaidEvent ev = {0};
    RaidLaunch L;
    raidLaunchUse(&L, ctx, kern);
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_FLOAT, span * ebytes / sizeof(float), &rbuf));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_FLOAT, nbeta * 2, &bbuf));
    RAID_LAUNCH_CALL(&L, raidBufUpload(ctx, &rbuf, 0, rbuf.n, rows, 1, &ev));
    RAID_LAUNCH_CALL(&L, raidBufUpload(ctx, &bbuf, 0, bbuf.n, bdev, 1, NULL));
    RAID_LAUNCH_ARGS(&L, 3, RAID_ARG_BUF(&bbuf));
    ctx->timing.upload_s += raidEventSeconds(&ev);
    raidEventRelease(&ev);
    if (L.st == RAID_OK) {
        ctx->timing.bytes_in += (uint64_t)(span * ebytes);
        const raid_status ps = raidPlanBuildRanges(&plan, start + G->g0, end + G->g0, ng, chunk);
        if (ps != RAID_OK)
            raidLaunchFail(&L, raidFail(ctx, ps, "cannot plan %zu problems", ng));
    }
    if (L.st == RAID_OK) {
        RaidChunkJob job = {&plan, kern, wg, ebytes, 1, nc, NULL, NULL, NULL, out + G->g0 * nc, "the meat kernel",
                              rbuf, G->lo, NULL, NULL, NULL, NULL, 0, 0, NULL, 0, 0, 0};
        raidLaunchFail(&L, raidChunkReduce(ctx, &job));
    }
    raidBufRelease(ctx, &rbuf);
    raidBufRelease(ctx, &bbuf);
    raidPlanFree(&plan);
    return raidLaunchEnd(&L);
}

/* One group: scale, upload, launch, combine, unscale; problems left to the host are marked in `host`. */
static raid_status meat_group_run(raid_ctx *ctx, RaidKernel *kern, size_t wg, size_t chunk, const double *X,
                                  const double *y, int k, const int64_t *start, const int64_t *end,
                                  const double *beta, const double *centre, int max_lag, const meat_group *G,
                                  double *out, unsigned char *host)
{
    const raid_precision prec = raid_ctx_precision(ctx);
    const size_t nc = (size_t)(max_lag + 1) * (size_t)k * (size_t)k;
    const size_t ng = G->g1 - G->g0, span = (size_t)(G->hi - G->lo), kk1 = (size_t)k + 1;
    const size_t ebytes = kk1 * (prec == RAID_PREC_F32 ? 4 : 8);
    const size_t per = 2 * (size_t)k + 1, nbeta = ng * per; /* per problem: beta, a, score offsets d */
    double mx[RAID_REG_MAX_D], cmin[RAID_REG_MAX_D], cmax[RAID_REG_MAX_D];
    meat_cols mc;
    raid_status st = RAID_OK;
    int64_t *bad = malloc((span + 1) * sizeof *bad); /* prefix counts of non-finite rows of the span */
    void *rows = malloc(span * ebytes);
    float *bdev = malloc(nbeta * 2 * sizeof *bdev);
    double *pcen = malloc(ng * (size_t)k * sizeof *pcen); /* per problem: the centre of its scores */
    if (!bad || !rows || !bdev || !pcen) {
        st = raidFail(ctx, RAID_ENOMEM, "out of memory for %zu rows", span);
        goto done;
    }
    /* 1. column scales over the span (a non-finite value counts as bad and is staged as 0) */
    const double tc = raidNow();
    scan_columns(X, y, k, G, bad, mx, mc.cen, cmin, cmax);
    basis(k, centre, mx, cmin, cmax, &mc);
    stage_rows(X, y, k, G, bad, &mc, prec, rows);
    for (size_t g = G->g0; g < G->g1; g++) {
        if (bad[end[g] - G->lo] != bad[start[g] - G->lo])
            host[g] = 1; /* the host path names the problem */
        else if (stage_problem(X, k, start, end, beta, centre, g, &mc, bdev, (g - G->g0) * per,
                               pcen + (g - G->g0) * (size_t)k))
            host[g] = 1;
    }
    ctx->timing.convert_s += raidNow() - tc;
    if ((st = upload_reduce(ctx, kern, wg, chunk, nc, start, end, G, rows, ebytes, bdev, nbeta, out)) != RAID_OK)
        goto done;
    /* 3. unscale; problems whose sums binary32 may have spoilt go to the host */
    const double tu = raidNow();
    double unscale[(RAID_REG_MAX_K) * (RAID_REG_MAX_K)]; /* 2^(2b + a_p + a_q): exact */
    for (int p = 0; p < k; p++)
        for (int q = 0; q < k; q++)
            unscale[p * k + q] = ldexp(1.0, 2 * mc.ex[k] + mc.ex[p] + mc.ex[q]);
    const long long gl0 = (long long)G->g0, gl1 = (long long)G->g1;
#pragma omp parallel for schedule(static)
    for (long long g = gl0; g < gl1; g++)
        if (!host[g] && unscale_problem(k, nc, end[g] - start[g], &mc, unscale, pcen + (size_t)(g - gl0) * (size_t)k,
                                        out + (size_t)g * nc))
            host[g] = 1;
    ctx->timing.convert_s += raidNow() - tu;
done:
    free(bad);
    free(rows);
    free(bdev);
    free(pcen);
    return st;
}

/* Pairs (t, t-l) with t-l in an earlier chunk of the same problem, added in float64 from the float64 scores
 * (problems left to the host skipped). RAID_ENOMEM when a thread's scores do not fit. */
static raid_status add_straddles(raid_ctx *ctx, const double *X, const double *y, int k, const int64_t *start,
                                 const int64_t *end, size_t nreg, const double *beta, const double *centre,
                                 int max_lag, size_t chunk, const unsigned char *host, double *out)
{
    const size_t nc = (size_t)(max_lag + 1) * (size_t)k * (size_t)k;
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
        return raidFail(ctx, RAID_ENOMEM, "out of memory for the scores across chunk boundaries (lag %d)", max_lag);
    return RAID_OK;
}

/* The kernel's chunk (rows): MEAT_CHUNK_MAX unless the chunk's scores do not fit in the device's local
 * memory, then half as many, down to MEAT_CHUNK_MIN; and the rows of one group at most (max_rows). */
static raid_status meat_shape(raid_ctx *ctx, int k, const int64_t *start, const int64_t *end, size_t nreg,
                              size_t *chunk_out, int64_t *max_rows_out)
{
    const raid_precision prec = raid_ctx_precision(ctx);
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
    *chunk_out = chunk;
    *max_rows_out = max_rows;
    return RAID_OK;
}

raid_status raidRegMeatRangesDevice(raid_ctx *ctx, const double *X, const double *y, int k, const int64_t *start,
                                      const int64_t *end, size_t nreg, const double *beta, const double *centre,
                                      int max_lag, double *out, int blocks)
{
    (void)blocks; /* the cpu path's choice */
    const size_t nc = (size_t)(max_lag + 1) * (size_t)k * (size_t)k;
    size_t chunk = 0;
    int64_t max_rows = 0;
    raid_status st = meat_shape(ctx, k, start, end, nreg, &chunk, &max_rows);
    if (st != RAID_OK)
        return st;
    const size_t wg = meat_wg(ctx, nc);
    char opts[512];
    snprintf(opts, sizeof opts, "-DRAID_WG=%zu -DRAID_CHUNK=%zu -DRAID_K=%d -DRAID_L=%d -DRAID_INPUT_DF=%d %s", wg,
             chunk, k, max_lag, raid_ctx_precision(ctx) == RAID_PREC_DF, raidTuneBuildOptions(ctx));
    RaidKernel *kern;
    if ((st = raidKernelGet(ctx, "meat.cl", "reg_meat", opts, &kern)) != RAID_OK)
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
    raidKernelPut(ctx, kern);
    const double tw = raidNow();
    if (st == RAID_OK)
        st = add_straddles(ctx, X, y, k, start, end, nreg, beta, centre, max_lag, chunk, host, out);
    /* Problems left to the host: the cpu path, rows and long double (it names a problem whose scores are not
     * finite): part of this entry, not a choice of backend. */
    for (size_t g = 0; g < nreg && st == RAID_OK; g++)
        if (host[g]) {
            st = raidRegMeatRangesCpu(NULL, X, y, k, start + g, end + g, 1, beta + g * (size_t)k,
                                        centre ? centre + g * (size_t)k : NULL, max_lag, out + g * nc, 1);
            if (st != RAID_OK)
                st = raidFail(ctx, st, "problem %zu: a residual times a regressor is not finite (X or y not "
                               "finite, or overflow)", g);
            ctx->timing.host_segments++;
        }
    if (st == RAID_OK)
        ctx->timing.convert_s += raidNow() - tw;
    free(host);
    return st;
}

raid_status raidRegMeatDevice(raid_ctx *ctx, const double *X, const double *y, int k, const int64_t *offsets,
                                size_t nreg, const double *beta, int max_lag, double *out)
{
    return raidRegMeatRangesDevice(ctx, X, y, k, offsets, offsets + 1, nreg, beta, NULL, max_lag, out, 1);
}
