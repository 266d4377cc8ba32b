/* Device backend of the batched GARCH evaluator (kernels/garch.cl): one work-item per point.
 *
 * create: per series, in float64 once, the scale s (the standard deviation about the sample mean for a
 *   constant mean, the root mean square for a zero mean), the sample mean rbar and the centred second
 *   moment m2c (long double sums) for the `sample` start, the fixed `backcast` start; the series scaled to
 *   unit variance, r' = r / s, uploaded once as double-float pairs (resident until destroy). A series
 *   whose s is not positive and finite (a constant series) is evaluated on the host.
 * run: per point on the host in float64: the parameter rules (raidGarchLikValid: invalid points are
 *   +inf with a zero gradient, never sent); the scaled parameters (mu' = mu/s, GARCH/GJR omega' =
 *   omega/s^2, EGARCH omega' = omega - (1 - beta) log s^2); the starting variance v0 = m2c + (rbar - mu)^2
 *   (sample: no cancellation, dv0/dmu = -2 (rbar - mu)) or the fixed backcast, and from it the first state
 *   h_1' (g_1') with its derivatives; nu - 2, nu + 1, EGARCH's kappa and alpha dkappa/dnu (OpenMP over
 *   points). Points are sorted by series (stable) so that neighbouring work-items read the same returns;
 *   a point not sent gets a span of 0 returns (its work-item does nothing). The kernel returns
 *   products and sums (garch.cl); the host forms their logs and the constant parts in float64, adds
 *   T log s, and un-scales the gradient by the chain rule (d/dmu = d/dmu' / s; GARCH/GJR d/domega =
 *   d/domega' / s^2; EGARCH d/domega = d/domega', d/dbeta = d/dbeta' + log(s^2) d/domega').
 *   A point the kernel flags (its state left the range of the bound) or whose results are not finite is
 *   evaluated on the host by raidGarchLikNll, so its result is the cpu path's.
 * docs/garch.md ("The device path and its bound") derives the bound against the cpu path. */
#include "models/garch_eval_internal.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/launch.h"

/* Per point: double-float parameters and results (kernels/garch.cl's GM_NPAR, GM_NOUT and slots) */
#define GM_NPAR 16
#define GM_NOUT 24
enum { P_MU, P_OMEGA, P_ALPHA, P_GAMMA, P_BETA, P_NM2, P_NP1, P_KAPPA, P_ADKAPPA, P_S0, P_D0 };
#define GM_WG 64
#define LN2 0.69314718055994530942

typedef struct gm_series {
    double s, logs2;  /* scale and log s^2; s = 0: on the host */
    double rbar, m2c; /* sample mean and centred second moment (1/T) sum (r - rbar)^2, original units */
    double bc;        /* backcast starting variance (original units) */
    uint32_t off;     /* first return in the device buffer */
} gm_series;

typedef struct gm_state {
    gm_series *ser;
    RaidBuf r;
    RaidKernel *kern;
} gm_state;

/* raidDfSplit, with lo 0 where hi overflowed float (such a point goes to the host: no NaN uploaded). */
static void split(double x, float *hi, float *lo)
{
    raidDfSplit(x, hi, lo);
    if (!isfinite(*hi)) *lo = 0.0f;
}

raid_status raidGarchEvalDeviceCreate(RaidGarchEval *ev)
{
    raid_ctx *ctx = ev->ctx;
    gm_state *g = calloc(1, sizeof *g);
    if (!g) return raidFail(ctx, RAID_ENOMEM, "out of memory (GARCH evaluator)");
    raid_status st = RAID_OK;
    float *stage = NULL;
    size_t total = 0;
    g->ser = calloc(ev->nseries ? ev->nseries : 1, sizeof *g->ser);
    if (!g->ser) {
        st = raidFail(ctx, RAID_ENOMEM, "out of memory (GARCH evaluator)");
        goto fail;
    }
    const RaidGarchLikSpec *spec = &ev->spec;
    const int profile = getenv("RAID_GARCH_PROFILE") != NULL;
    double tc[5];
    tc[0] = raidNow();
    for (size_t i = 0; i < ev->nseries; i++) { /* the offsets */
        if (total + ev->T[i] > UINT32_MAX) {
            st = raidFail(ctx, RAID_EUNSUPPORTED, "GARCH on a device: more than 2^32 returns in one evaluator");
            goto fail;
        }
        g->ser[i].off = (uint32_t)total;
        total += ev->T[i];
    }
    const long long ns = (long long)ev->nseries;
#pragma omp parallel for schedule(dynamic, 16)
    for (long long ii = 0; ii < ns; ii++) { /* each series' own sums: independent of the thread count */
        const size_t i = (size_t)ii;
        const double *r = ev->r[i];
        const size_t T = ev->T[i];
        gm_series *S = &g->ser[i];
        long double s1 = 0.0L, s2 = 0.0L, q = 0.0L;
        for (size_t t = 0; t < T; t++) s1 += r[t];
        const long double m = s1 / (long double)T;
        for (size_t t = 0; t < T; t++) {
            const long double c = (long double)r[t] - m;
            s2 += c * c;
            q += (long double)r[t] * r[t];
        }
        S->rbar = (double)m;
        S->m2c = (double)(s2 / (long double)T);
        const double var = spec->mean == RAID_GARCH_LIK_MEAN_CONSTANT ? S->m2c : (double)(q / (long double)T);
        S->s = sqrt(var);
        if (!(S->s > 0.0) || !isfinite(S->s) || !isfinite(1.0 / S->s)) S->s = 0.0;
        S->logs2 = S->s > 0.0 ? 2.0 * log(S->s) : 0.0;
        S->bc = spec->init == RAID_GARCH_LIK_INIT_BACKCAST ? raidGarchLikBackcastAt(spec, r, T, S->rbar) : 0.0;
    }
    const size_t n = total ? total : 1;
    tc[1] = raidNow();
    st = raidBufAcquire(ctx, RAID_DT_FLOAT, 2 * n, &g->r);
    if (st != RAID_OK) goto fail;
    st = raidHostAcquire(ctx, 2 * n * sizeof(float), (void **)&stage);
    if (st != RAID_OK) goto fail;
    const double tacq = raidNow();
    stage[0] = stage[1] = 0.0f; /* total = 0 */
#pragma omp parallel for schedule(dynamic, 16)
    for (long long ii = 0; ii < ns; ii++) {
        const size_t i = (size_t)ii;
        const gm_series *S = &g->ser[i];
        float *o = stage + 2 * (size_t)S->off;
        if (S->s == 0.0) { /* on the host: its slots are never read */
            memset(o, 0, 2 * ev->T[i] * sizeof *o);
            continue;
        }
        const double inv = 1.0 / S->s;
        for (size_t t = 0; t < ev->T[i]; t++) split(ev->r[i][t] * inv, &o[2 * t], &o[2 * t + 1]);
    }
    tc[2] = raidNow();
    st = raidBufUpload(ctx, &g->r, 0, 2 * n, stage, 1, NULL);
    if (st != RAID_OK) goto fail;
    tc[3] = raidNow();
    char opts[400];
    snprintf(opts, sizeof opts, "-DGM_MODEL=%d -DGM_T=%d -DGM_MU=%d -DGM_DNU=%d %s", (int)spec->model,
             spec->dist == RAID_GARCH_LIK_T, spec->mean == RAID_GARCH_LIK_MEAN_CONSTANT,
             spec->model == RAID_GARCH_LIK_EGARCH && spec->dist == RAID_GARCH_LIK_T && spec->ez == RAID_GARCH_LIK_EZ_DIST,
             raidTuneBuildOptions(ctx));
    st = raidKernelGet(ctx, "garch.cl", "garch_lik", opts, &g->kern);
    if (st != RAID_OK) goto fail;
    raidHostRelease(ctx, stage);
    tc[4] = raidNow();
    if (profile)
        fprintf(stderr,
                "garch profile: device create: moments %.3f s, staging buffer %.3f s, fill %.3f s, upload %.3f s, "
                "kernel %.3f s\n",
                tc[1] - tc[0], tacq - tc[1], tc[2] - tacq, tc[3] - tc[2], tc[4] - tc[3]);
    ev->cl = g;
    return RAID_OK;
fail:
    if (stage) raidHostRelease(ctx, stage);
    raidBufRelease(ctx, &g->r);
    free(g->ser);
    free(g);
    return st;
}

/* The kernel's inputs for point theta on series S (scaled; garch.cl's slots) into par, and the t's
 * constant c(nu) and dc/dnu into cst[0..1] for the combine. Returns 0 when the point must go to the host
 * (a starting variance that is not positive and finite, or nu - 2 outside the range of the bound). */
static int point_params(const RaidGarchLikSpec *spec, const RaidGarchLikLayout *l, const gm_series *S,
                        const double *th, float *par, double *cst)
{
    double v[GM_NPAR] = {0};
    const double s = S->s, L = S->logs2;
    const double mu = l->mu >= 0 ? th[l->mu] : 0.0;
    const double omega = th[l->omega], alpha = th[l->alpha], beta = th[l->beta];
    const double gamma = l->gamma >= 0 ? th[l->gamma] : 0.0;
    const double nu = l->nu >= 0 ? th[l->nu] : 0.0;
    const int egarch = spec->model == RAID_GARCH_LIK_EGARCH;
    double v0, dv0 = 0.0;
    if (spec->init == RAID_GARCH_LIK_INIT_BACKCAST) {
        v0 = S->bc;
    } else {
        const double c = S->rbar - mu;
        v0 = S->m2c + c * c;
        dv0 = -2.0 * c;
    }
    if (!(v0 > 0.0) || !isfinite(v0)) return 0;
    const double v0s = v0 / (s * s), dv0s = dv0 / s;
    if (!(v0s > 0.0) || !isfinite(v0s)) return 0;
    v[P_MU] = mu / s;
    v[P_OMEGA] = egarch ? omega - (1.0 - beta) * L : omega / (s * s);
    v[P_ALPHA] = alpha;
    v[P_GAMMA] = gamma;
    v[P_BETA] = beta;
    if (l->nu >= 0) {
        if (!(nu - 2.0 >= 0x1p-20 && nu <= 0x1p20)) return 0;
        v[P_NM2] = nu - 2.0;
        v[P_NP1] = nu + 1.0;
    }
    double kappa, dkappa;
    raidGarchLikConsts(spec, nu, &cst[0], &cst[1], &kappa, &dkappa);
    v[P_KAPPA] = kappa;
    v[P_ADKAPPA] = alpha * dkappa;
    double *d = v + P_D0;
    if (egarch) {
        const double lv0 = log(v0s);
        v[P_S0] = v[P_OMEGA] + beta * lv0;
        d[l->omega] = 1.0;
        d[l->beta] = lv0;
        if (l->mu >= 0) d[l->mu] = beta * dv0s / v0s;
    } else {
        const double p = alpha + 0.5 * gamma + beta;
        v[P_S0] = v[P_OMEGA] + p * v0s;
        d[l->omega] = 1.0;
        d[l->alpha] = v0s;
        if (l->gamma >= 0) d[l->gamma] = 0.5 * v0s;
        d[l->beta] = v0s;
        if (l->mu >= 0) d[l->mu] = p * dv0s;
    }
    for (int j = 0; j < GM_NPAR; j++) split(v[j], &par[2 * j], &par[2 * j + 1]);
    return 1;
}

/* nll and grad of point theta on series S from the kernel's results o (garch.cl) and cst = (c, dc/dnu);
 * 0 if not finite. */
static int point_combine(const RaidGarchLikSpec *spec, const RaidGarchLikLayout *l, size_t k,
                         const gm_series *S, size_t T, const double *th, const float *o, const double *cst,
                         double *nll, double *grad)
{
    const int egarch = spec->model == RAID_GARCH_LIK_EGARCH;
    const double Td = (double)T;
    const double nu = l->nu >= 0 ? th[l->nu] : 0.0;
    const double c = cst[0], dc = cst[1];
    const double a = (double)o[1] + (double)o[2], b = (double)o[4] + (double)o[5];
    int32_t ea, eb; /* the products' exponents (their bits travel in float slots) */
    memcpy(&ea, &o[3], sizeof ea);
    memcpy(&eb, &o[6], sizeof eb);
    const double slogh = egarch ? a : log(a) + (double)ea * LN2; /* sum_t log h_t' */
    double ll, l1q = 0.0;
    if (l->nu >= 0) {
        l1q = log(b) + (double)eb * LN2 - Td * log(nu - 2.0) - (egarch ? 0.0 : slogh); /* sum log(1 + q) */
        ll = Td * c - 0.5 * slogh - 0.5 * (nu + 1.0) * l1q;
    } else {
        ll = Td * c - 0.5 * slogh - 0.5 * b;
    }
    *nll = -ll + 0.5 * Td * S->logs2;
    if (!isfinite(*nll)) return 0;
    if (!grad) return 1;
    double gp[RAID_GARCH_LIK_MAXPAR];
    for (size_t j = 0; j < k; j++) gp[j] = (double)o[9 + 2 * j] + (double)o[10 + 2 * j];
    if (l->nu >= 0) {
        const double qsum = (double)o[7] + (double)o[8];
        gp[l->nu] += Td * dc - 0.5 * l1q + 0.5 * (nu + 1.0) / (nu - 2.0) * qsum;
    }
    if (l->mu >= 0) gp[l->mu] /= S->s;
    if (egarch) {
        gp[l->beta] += S->logs2 * gp[l->omega];
    } else {
        gp[l->omega] /= S->s * S->s;
    }
    for (size_t j = 0; j < k; j++) {
        grad[j] = -gp[j];
        if (!isfinite(grad[j])) return 0;
    }
    return 1;
}

/* What becomes of a point (in sorted order). */
enum { PT_DEVICE = 0, PT_INVALID = 1, PT_HOST = 2 };

/* Per point, in sorted order (order: a stable counting sort of the points by series, so that neighbouring
 * work-items read the same returns): what becomes of it (what), the kernel's inputs (par, cst) and its span
 * of returns (span; 0 returns for a point not sent). count: nseries + 1 entries of scratch. */
static void prepare_points(const RaidGarchEval *ev, size_t npts, const size_t *series, const double *theta,
                           size_t *order, size_t *count, unsigned char *what, float *par, uint32_t *span, double *cst)
{
    const gm_state *g = ev->cl;
    const RaidGarchLikSpec *spec = &ev->spec;
    const RaidGarchLikLayout l = raidGarchLikLayoutOf(spec);
    const size_t k = ev->k;
    memset(count, 0, (ev->nseries + 1) * sizeof *count);
    for (size_t p = 0; p < npts; p++) {
        assert(series[p] < ev->nseries);
        count[series[p] + 1]++;
    }
    for (size_t i = 0; i < ev->nseries; i++) count[i + 1] += count[i];
    for (size_t p = 0; p < npts; p++) order[count[series[p]]++] = p;
    const long long n = (long long)npts;
#pragma omp parallel for schedule(static)
    for (long long qq = 0; qq < n; qq++) {
        const size_t q = (size_t)qq, p = order[q], i = series[p];
        const double *th = theta + p * k;
        const gm_series *S = &g->ser[i];
        span[2 * q] = 0;
        span[2 * q + 1] = 0;
        if (!raidGarchLikValid(spec, th)) {
            what[q] = PT_INVALID;
        } else if (S->s == 0.0 || !point_params(spec, &l, S, th, par + q * 2 * GM_NPAR, cst + 2 * q)) {
            what[q] = PT_HOST;
        } else {
            what[q] = PT_DEVICE;
            span[2 * q] = S->off;
            span[2 * q + 1] = (uint32_t)ev->T[i];
        }
    }
}

/* One launch over the npts points: spans and parameters uploaded (not waiting: the caller drains after a
 * failure before their staging goes back), the kernel, its results read back into out. */
static raid_status launch_points(raid_ctx *ctx, gm_state *g, size_t npts, const uint32_t *span, const float *par,
                                 float *out)
{
    RaidBuf bspan = {NULL, 0, RAID_DT_UINT}, bpar = {NULL, 0, RAID_DT_FLOAT}, bout = {NULL, 0, RAID_DT_FLOAT};
    RaidEvent ev_k = {0};
    RaidLaunch L;
    raidLaunchUse(&L, ctx, g->kern);
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, 2 * npts, &bspan));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_FLOAT, 2 * GM_NPAR * npts, &bpar));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_FLOAT, GM_NOUT * npts, &bout));
    RAID_LAUNCH_CALL(&L, raidBufUpload(ctx, &bspan, 0, 2 * npts, span, 0, NULL));
    RAID_LAUNCH_CALL(&L, raidBufUpload(ctx, &bpar, 0, 2 * GM_NPAR * npts, par, 0, NULL));
    raidLaunchSize(&L, npts, GM_WG);
    RAID_LAUNCH_ARGS(&L, 0, RAID_ARG_BUF(&g->r), RAID_ARG_BUF(&bspan), RAID_ARG_BUF(&bpar), RAID_ARG_BUF(&bout),
                     RAID_ARG_U32(npts));
    raidLaunchGo(&L, &ev_k);
    RAID_LAUNCH_CALL(&L, raidBufDownload(ctx, &bout, 0, GM_NOUT * npts, out, 1, NULL));
    if (L.st == RAID_OK) {
        ctx->timing.kernel_s += raidEventSeconds(&ev_k);
        ctx->timing.bytes_in += npts * (2 * GM_NPAR + 2) * sizeof(float);
    }
    raidEventRelease(&ev_k);
    if (L.st != RAID_OK) raidDevDrain(ctx); /* before the buffers go back to the pool */
    raidBufRelease(ctx, &bspan);
    raidBufRelease(ctx, &bpar);
    raidBufRelease(ctx, &bout);
    return raidLaunchEnd(&L);
}

raid_status raidGarchEvalDeviceRun(RaidGarchEval *ev, size_t npts, const size_t *series, const double *theta,
                                     double *nll, double *grad)
{
    raid_ctx *ctx = ev->ctx;
    gm_state *g = ev->cl;
    const RaidGarchLikSpec *spec = &ev->spec;
    const RaidGarchLikLayout l = raidGarchLikLayoutOf(spec);
    const size_t k = ev->k;
    raid_status st = RAID_OK;
    size_t *order = malloc((npts + ev->nseries + 1) * sizeof *order);
    unsigned char *what = malloc(npts);
    double *cst = malloc(2 * npts * sizeof *cst);
    float *par = NULL, *out = NULL;
    uint32_t *span = NULL;
    if (!order || !what || !cst) {
        st = raidFail(ctx, RAID_ENOMEM, "out of memory (GARCH evaluator, %zu points)", npts);
        goto done;
    }
    if (npts > UINT32_MAX) {
        st = raidFail(ctx, RAID_EUNSUPPORTED, "GARCH on a device: more than 2^32 points in one call");
        goto done;
    }
    double t0 = raidNow();
    memset(&ctx->timing, 0, sizeof ctx->timing);
    st = raidHostAcquire(ctx, npts * (2 * GM_NPAR + 2 + GM_NOUT) * sizeof(float), (void **)&par);
    if (st != RAID_OK) goto done;
    span = (uint32_t *)(par + npts * 2 * GM_NPAR);
    out = (float *)(span + 2 * npts);
    prepare_points(ev, npts, series, theta, order, order + npts, what, par, span, cst);
    ctx->timing.convert_s += raidNow() - t0;
    if ((st = launch_points(ctx, g, npts, span, par, out)) != RAID_OK) goto done;

    /* combine in float64; the points left to the cpu path (raidGarchLikNll) */
    t0 = raidNow();
    unsigned long long nhost = 0;
    const long long n = (long long)npts;
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : nhost)
    for (long long qq = 0; qq < n; qq++) {
        const size_t q = (size_t)qq, p = order[q], i = series[p];
        const double *th = theta + p * k;
        double *gr = grad ? grad + p * k : NULL;
        if (what[q] == PT_INVALID) {
            nll[p] = INFINITY;
            if (gr) memset(gr, 0, k * sizeof *gr);
            continue;
        }
        if (what[q] == PT_DEVICE) {
            const float *o = out + q * GM_NOUT;
            if (o[0] == 0.0f && point_combine(spec, &l, k, &g->ser[i], ev->T[i], th, o, cst + 2 * q, &nll[p], gr))
                continue;
        }
        nhost++;
        nll[p] = raidGarchLikNll(spec, ev->r[i], ev->T[i], th, gr);
    }
    ctx->timing.host_segments += nhost;
    ctx->timing.convert_s += raidNow() - t0;
done:
    /* span and par were uploaded without waiting: launch_points drained the queue after a failure behind
     * them, before their staging goes back (or, where the staging is ordinary memory, is freed) */
    if (par) raidHostRelease(ctx, par);
    free(order);
    free(what);
    free(cst);
    return st;
}

void raidGarchEvalDeviceDestroy(RaidGarchEval *ev)
{
    gm_state *g = ev->cl;
    if (!g) return;
    raidKernelPut(ev->ctx, g->kern);
    raidBufRelease(ev->ctx, &g->r);
    free(g->ser);
    free(g);
    ev->cl = NULL;
}
