/*
 * The device backend of raid_realized_noise_compute (kernels/noise.cl; docs/measures.md "Noise-robust
 * measures", docs/precision.md "The noise-robust measures").
 *
 * 1. Host, float64: each segment's choices (noise.c's raidNoisePlanOf: the noise ratio from the dense and
 *    sparse subgrids, then H, K and kn), exactly the cpu path's: H and K are ceilings of a function of the
 *    noise ratio, so a ratio formed on the device within 1e-13 could still move one by 1 and change rk or
 *    tsrv by far more than any rounding. O(M) per segment, on OpenMP threads.
 * 2. Host: the returns of a group of consecutive segments, each segment scaled by the power of two 2^-e
 *    that brings its largest |r| into [0.5, 1) (exact), split into double-float pairs (f32 policy: the
 *    binary32 rounding and 0) and uploaded once: resident on the device for every pass.
 * 3. Device, through the chunk reduction (src/device/chunk.h, resident input, per-chunk partials): the
 *    passes of noise.cl over ranges of positions: noise_pair (sum r^2 and sum min(|r_i|,|r_{i-1}|)^2 of
 *    each segment), noise_win (the sums of squared window sums of TSRV's K-step returns and of the
 *    pre-averaged returns, weights kn g(j/kn) as integers), noise_lags (the autocovariances of the
 *    interior jittered returns, which are returns; one pass per class of bandwidth, 2^c lags).
 * 4. Host, float64: every chunk's partials added with compensated sums in a fixed order, unscaled by
 *    2^(2e) (exact); gamma_h completed with its terms at the jittered end points (noise.c's
 *    raidNoiseGammaEnds, the cpu path's products); the combinations (raidNoiseFinish, the cpu path's).
 *
 * A segment longer than RAID_NOISE_DEVICE_MAX returns, or whose K or kn - 1 exceeds RAID_NOISE_MAX_WINDOW
 * (the windows the bound is derived for), is computed by the cpu path; so is minrv's sum where it is below
 * M 2^-100 at its segment's scale (its terms may have left binary32's normal range: the realized path's
 * underflow guard). Results depend only on the work-group width: bitwise reproducible.
 */
#include "realized/realized_internal.h"

#include "device/chunk.h"
#include "device/launch.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOISE_CHUNK 4096             /* positions per chunk of every pass */
#define NOISE_GROUP ((int64_t)1 << 27) /* returns resident at once at most (1 GiB of pairs) */

/* One pass: ranges [start[q], end[q]) of positions with their parameters (lo, p1, p2, 0), the kernel,
 * and per range its nacc sums (float64, at the segments' scale). */
typedef struct noise_pass {
    const char *kernel;
    size_t nacc, nr, cap;
    int64_t *start, *end;
    uint32_t *prm;
    uint32_t *seg; /* the segment of each range */
    double *sum;   /* nr * nacc */
} noise_pass;

static int pass_add(noise_pass *p, int64_t a, int64_t b, uint32_t lo, uint32_t p1, uint32_t p2, uint32_t seg)
{
    if (p->nr == p->cap) {
        const size_t c = p->cap ? 2 * p->cap : 64;
        int64_t *s = realloc(p->start, c * sizeof *s), *e = s ? realloc(p->end, c * sizeof *e) : NULL;
        if (s)
            p->start = s;
        if (e)
            p->end = e;
        uint32_t *q = e ? realloc(p->prm, 4 * c * sizeof *q) : NULL;
        if (q)
            p->prm = q;
        uint32_t *g = q ? realloc(p->seg, c * sizeof *g) : NULL;
        if (!g)
            return -1;
        p->seg = g;
        p->cap = c;
    }
    p->start[p->nr] = a, p->end[p->nr] = b, p->seg[p->nr] = seg;
    uint32_t *q = p->prm + 4 * p->nr++;
    q[0] = lo, q[1] = p1, q[2] = p2, q[3] = 0;
    return 0;
}

static void pass_free(noise_pass *p)
{
    free(p->start);
    free(p->end);
    free(p->prm);
    free(p->seg);
    free(p->sum);
    memset(p, 0, sizeof *p);
}

/* The chunks' partials (nchunks x nacc, chunks of a range consecutive) into p->sum: per range and slot,
 * a compensated sum over the range's chunks in chunk order. */
static void pass_combine(const RaidChunkPlan *plan, const double *part, noise_pass *p)
{
    size_t c = 0;
    for (size_t q = 0; q < p->nr; q++) {
        const size_t c0 = c;
        while (c < plan->nchunks && plan->chunks[c].seg == q)
            c++;
        for (size_t k = 0; k < p->nacc; k++) {
            RaidDd s = {0, 0};
            for (size_t i = c0; i < c; i++)
                raidDdAdd(&s, part[i * p->nacc + k]);
            p->sum[q * p->nacc + k] = raidDdValue(s);
        }
    }
}

/* Run pass p over the resident pairs xb (position i - base of the group): its parameters uploaded as
 * argument 3, the chunk reduction with per-chunk partials, the combine into p->sum. */
static raid_status pass_run(raid_ctx *ctx, const RaidBuf *xb, int64_t base, noise_pass *p)
{
    if (p->nr == 0)
        return RAID_OK;
    char opts[96];
    snprintf(opts, sizeof opts, "-DRAID_WG=%zu -DRAID_NL=%zu", ctx->wg_width, p->nacc);
    RaidChunkPlan plan;
    memset(&plan, 0, sizeof plan);
    RaidBuf pb = {NULL, 0, RAID_DT_UINT};
    double *part = NULL;
    RaidLaunch L;
    raidLaunchKernel(&L, ctx, "noise.cl", p->kernel, opts);
    if (!(p->sum = calloc(p->nr * p->nacc, sizeof *p->sum)))
        raidLaunchFail(&L, raidFail(ctx, RAID_ENOMEM, "out of memory"));
    if (L.st == RAID_OK) {
        const raid_status ps = raidPlanBuildRanges(&plan, p->start, p->end, p->nr, NOISE_CHUNK);
        if (ps != RAID_OK)
            raidLaunchFail(&L, raidFail(ctx, ps, "cannot plan %zu ranges", p->nr));
    }
    if (L.st == RAID_OK && !(part = calloc((plan.nchunks ? plan.nchunks : 1) * p->nacc, sizeof *part)))
        raidLaunchFail(&L, raidFail(ctx, RAID_ENOMEM, "out of memory"));
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_UINT, 4 * p->nr, &pb));
    RAID_LAUNCH_CALL(&L, raidBufUpload(ctx, &pb, 0, 4 * p->nr, p->prm, 1, NULL));
    RAID_LAUNCH_ARGS(&L, 3, RAID_ARG_BUF(&pb));
    if (L.st == RAID_OK) {
        RaidChunkJob job = {&plan, L.k, ctx->wg_width, 2 * sizeof(float), 1, p->nacc, NULL, NULL, NULL, part,
                              "the noise kernel", *xb, base, NULL, NULL, NULL, NULL, 0, 0, NULL, 1, 0, 0};
        raidLaunchFail(&L, raidChunkReduce(ctx, &job));
    }
    if (L.st == RAID_OK) {
        const double t = raidNow();
        pass_combine(&plan, part, p);
        ctx->timing.combine_s += raidNow() - t;
    }
    raidBufRelease(ctx, &pb);
    raidPlanFree(&plan);
    free(part);
    return raidLaunchEnd(&L);
}

/* Stage segments [g0, g1) (returns offsets[g0] .. offsets[g1]) as pairs, segment s scaled by 2^-e[s]. */
static void stage(const double *r, const int64_t *offsets, size_t g0, size_t g1, raid_precision prec, float *xs,
                  int *e)
{
    const int64_t base = offsets[g0];
#pragma omp parallel for schedule(dynamic, 1)
    for (long long sl = (long long)g0; sl < (long long)g1; sl++) {
        const size_t s = (size_t)sl;
        double mx = 0.0;
        for (int64_t i = offsets[s]; i < offsets[s + 1]; i++)
            mx = fabs(r[i]) > mx ? fabs(r[i]) : mx;
        int es = 0;
        if (mx > 0.0)
            (void)frexp(mx, &es);
        e[s] = es;
        for (int64_t i = offsets[s]; i < offsets[s + 1]; i++) {
            const size_t at = (size_t)(i - base);
            const double v = ldexp(r[i], -es);
            if (prec == RAID_PREC_F32) {
                xs[2 * at] = (float)v;
                xs[2 * at + 1] = 0.0f;
            } else {
                raidDfSplit(v, &xs[2 * at], &xs[2 * at + 1]);
            }
        }
    }
}

/* The lags of rk's pass for segment s: min(H, n - 1) + 1, n = M - 2; 0 where the device has none to sum
 * (no rk, or no interior return: M < 5). */
static size_t lags_of(const RaidNoisePlan *pl)
{
    if (!pl->H || pl->M < 5)
        return 0;
    return (size_t)((pl->H < pl->M - 3 ? pl->H : pl->M - 3) + 1);
}

/* The passes of the group [g0, g1): pair, windows, and the lags' classes (lag[c]: 2^c lags). */
static int passes_build(const int64_t *offsets, size_t g0, size_t g1, const RaidNoisePlan *plan,
                        const unsigned char *host, int64_t base, noise_pass *pair, noise_pass *win,
                        noise_pass *lag, int nclass)
{
    for (size_t s = g0; s < g1; s++) {
        const RaidNoisePlan *pl = &plan[s];
        const int64_t o = offsets[s] - base, M = pl->M;
        const uint32_t sg = (uint32_t)(s - g0);
        if (host[s] || M < 2)
            continue;
        if (pass_add(pair, o, o + M, (uint32_t)o, 0, 0, sg))
            return -1;
        if (pl->K && pass_add(win, o, o + M - pl->K + 1, (uint32_t)o, (uint32_t)pl->K, 0, sg))
            return -1;
        if (pl->kn && pass_add(win, o, o + M - pl->kn + 2, (uint32_t)o, (uint32_t)(pl->kn - 1), 1, sg))
            return -1;
        const size_t nl = lags_of(pl);
        if (nl) {
            int c = 0;
            while (((size_t)1 << c) < nl)
                c++;
            if (c >= nclass || pass_add(&lag[c], o + 2, o + M - 2, (uint32_t)(o + 2), (uint32_t)(nl - 1), 0, sg))
                return -1;
        }
    }
    return 0;
}

#define NCLASS 40

/* The sums of group [g0, g1) into sums (gamma: gam + gamoff[s], at most M - 2 values each). */
static raid_status group_sums(raid_ctx *ctx, const RaidBuf *xb, const int64_t *offsets, size_t g0, size_t g1,
                              const RaidNoisePlan *plan, const unsigned char *host, const int *e, RaidNoiseSums *sums,
                              unsigned char *mn_host)
{
    const size_t wg = ctx->wg_width;
    noise_pass pair = {"noise_pair", 2 * wg, 0, 0, NULL, NULL, NULL, NULL, NULL};
    noise_pass win = {"noise_win", wg, 0, 0, NULL, NULL, NULL, NULL, NULL};
    noise_pass lag[NCLASS];
    for (int c = 0; c < NCLASS; c++)
        lag[c] = (noise_pass){"noise_lags", (size_t)1 << c, 0, 0, NULL, NULL, NULL, NULL, NULL};
    raid_status st = RAID_OK;
    if (passes_build(offsets, g0, g1, plan, host, offsets[g0], &pair, &win, lag, NCLASS))
        st = raidFail(ctx, RAID_ENOMEM, "out of memory");
    if (st == RAID_OK)
        st = pass_run(ctx, xb, 0, &pair);
    if (st == RAID_OK)
        st = pass_run(ctx, xb, 0, &win);
    for (int c = 0; c < NCLASS && st == RAID_OK; c++)
        st = pass_run(ctx, xb, 0, &lag[c]);
    if (st == RAID_OK) {
        for (size_t q = 0; q < pair.nr; q++) { /* the work-items' partials in order */
            const size_t s = g0 + pair.seg[q];
            RaidDd a = {0, 0}, b = {0, 0};
            for (size_t k = 0; k < wg; k++) {
                raidDdAdd(&a, pair.sum[q * pair.nacc + k]);
                raidDdAdd(&b, pair.sum[q * pair.nacc + wg + k]);
            }
            sums[s].rv = ldexp(raidDdValue(a), 2 * e[s]);
            sums[s].mn = ldexp(raidDdValue(b), 2 * e[s]);
            /* minrv's terms below 2^-100 at the segment's scale may have lost accuracy in binary32 */
            mn_host[s] = raidDdValue(b) < ldexp((double)plan[s].M, -100);
        }
        for (size_t q = 0; q < win.nr; q++) {
            const size_t s = g0 + win.seg[q];
            RaidDd a = {0, 0};
            for (size_t k = 0; k < wg; k++)
                raidDdAdd(&a, win.sum[q * win.nacc + k]);
            if (win.prm[4 * q + 2]) { /* the pre-averaged returns: weights kn g, so Ybar = sum / kn */
                const double kn = (double)plan[s].kn;
                sums[s].qp = ldexp(raidDdValue(a), 2 * e[s]) / (kn * kn);
            } else {
                sums[s].qk = ldexp(raidDdValue(a), 2 * e[s]);
            }
        }
        for (int c = 0; c < NCLASS; c++)
            for (size_t q = 0; q < lag[c].nr; q++) {
                const size_t s = g0 + lag[c].seg[q];
                const size_t nl = lags_of(&plan[s]);
                for (size_t h = 0; h < nl; h++)
                    sums[s].gamma[h] = ldexp(lag[c].sum[q * lag[c].nacc + h], 2 * e[s]);
            }
    }
    pass_free(&pair);
    pass_free(&win);
    for (int c = 0; c < NCLASS; c++)
        pass_free(&lag[c]);
    return st;
}

/* Group [g0, g1): stage, upload once, the passes. */
static raid_status run_group(raid_ctx *ctx, const double *r, const int64_t *offsets, size_t g0, size_t g1,
                             const RaidNoisePlan *plan, const unsigned char *host, int *e, RaidNoiseSums *sums,
                             unsigned char *mn_host)
{
    const size_t span = (size_t)(offsets[g1] - offsets[g0]);
    float *xs = malloc((span ? span : 1) * 2 * sizeof *xs);
    if (!xs)
        return raidFail(ctx, RAID_ENOMEM, "out of memory for %zu returns", span);
    const double t0 = raidNow();
    stage(r, offsets, g0, g1, raid_ctx_precision(ctx), xs, e);
    ctx->timing.convert_s += raidNow() - t0;
    RaidBuf xb = {NULL, 0, RAID_DT_FLOAT};
    RaidEvent ev = {0};
    RaidLaunch L;
    raidLaunchUse(&L, ctx, NULL);
    RAID_LAUNCH_CALL(&L, raidBufAcquire(ctx, RAID_DT_FLOAT, 2 * span, &xb));
    RAID_LAUNCH_CALL(&L, raidBufUpload(ctx, &xb, 0, 2 * span, xs, 1, &ev));
    if (L.st == RAID_OK) {
        ctx->timing.upload_s += raidEventSeconds(&ev);
        ctx->timing.bytes_in += (uint64_t)(span * 2 * sizeof *xs);
        raidLaunchFail(&L, group_sums(ctx, &xb, offsets, g0, g1, plan, host, e, sums, mn_host));
    }
    raidEventRelease(&ev);
    raidBufRelease(ctx, &xb);
    free(xs);
    return raidLaunchEnd(&L);
}

/* 1. The plans, on OpenMP threads; host[s] = 1 for a segment the device does not take. */
static raid_status plans(raid_ctx *ctx, const double *r, const int64_t *offsets, size_t nseg, RaidNoisePlan *plan,
                         unsigned char *host)
{
    const int64_t longest = raidNoiseLongest(offsets, nseg);
    int failed = 0;
#pragma omp parallel reduction(| : failed)
    {
        RaidNoiseScratch w;
        const int ok = raidNoiseScratchInit(&w, longest) == RAID_OK;
        failed |= !ok;
#pragma omp for schedule(dynamic, 1)
        for (long long i = 0; i < (long long)nseg; i++) {
            if (!ok)
                continue;
            const int64_t M = offsets[i + 1] - offsets[i];
            raidNoisePlanOf(r + offsets[i], M, &w, &plan[i]);
            host[i] = M > RAID_NOISE_DEVICE_MAX || plan[i].K > RAID_NOISE_MAX_WINDOW ||
                      plan[i].kn - 1 > RAID_NOISE_MAX_WINDOW;
        }
        raidNoiseScratchFree(&w);
    }
    return failed ? raidFail(ctx, RAID_ENOMEM, "out of memory") : RAID_OK;
}

/* 4. The measures of segment s from its sums (device) or the cpu path (host[s]). */
static void finish_segment(const double *r, int64_t M, const RaidNoisePlan *pl, int host, int mn_host,
                           RaidNoiseSums *s, RaidNoiseScratch *w, raid_realized_noise *o)
{
    if (host) {
        raidNoiseCpuSegment(r, M, w, o);
        return;
    }
    if (mn_host)
        s->mn = raidNoiseMinSum(r, M);
    if (pl->H) { /* gamma_h = the device's interior sum + the terms at the jittered end points */
        const size_t nl = lags_of(pl);
        for (int64_t h = 0; h <= pl->H && h < M - 2; h++) {
            RaidDd g = {0, 0};
            raidDdAdd(&g, (size_t)h < nl ? s->gamma[h] : 0.0);
            raidDdAdd(&g, raidNoiseGammaEnds(r, M, h));
            s->gamma[h] = raidDdValue(g);
        }
    }
    raidNoiseFinish(pl, s, w->x, o);
}

/* 4. All segments, on OpenMP threads. */
static raid_status finish_all(raid_ctx *ctx, const double *r, const int64_t *offsets, size_t nseg,
                              const RaidNoisePlan *plan, const unsigned char *host, const unsigned char *mn_host,
                              RaidNoiseSums *sums, raid_realized_noise *out)
{
    const int64_t longest = raidNoiseLongest(offsets, nseg);
    int failed = 0;
#pragma omp parallel reduction(| : failed)
    {
        RaidNoiseScratch w;
        const int ok = raidNoiseScratchInit(&w, longest) == RAID_OK;
        failed |= !ok;
#pragma omp for schedule(dynamic, 1)
        for (long long i = 0; i < (long long)nseg; i++)
            if (ok)
                finish_segment(r + offsets[i], offsets[i + 1] - offsets[i], &plan[i], host[i], mn_host[i], &sums[i],
                               &w, &out[i]);
        raidNoiseScratchFree(&w);
    }
    return failed ? raidFail(ctx, RAID_ENOMEM, "out of memory") : RAID_OK;
}

raid_status raidRealizedNoiseDevice(raid_ctx *ctx, const double *r, const int64_t *offsets, size_t nseg,
                                    raid_realized_noise *out)
{
    RaidNoisePlan *plan = calloc(nseg, sizeof *plan);
    RaidNoiseSums *sums = calloc(nseg, sizeof *sums);
    unsigned char *host = calloc(nseg, 2);
    int *e = calloc(nseg, sizeof *e);
    size_t ngam = 0;
    for (size_t s = 0; s < nseg; s++) /* room for the autocovariances: M - 2 at most */
        ngam += offsets[s + 1] - offsets[s] > 2 ? (size_t)(offsets[s + 1] - offsets[s] - 2) : 0;
    double *gam = malloc((ngam ? ngam : 1) * sizeof *gam);
    raid_status st = RAID_OK;
    if (!plan || !sums || !host || !e || !gam) {
        st = raidFail(ctx, RAID_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t s = 0, at = 0; s < nseg; s++) {
        sums[s].gamma = gam + at;
        at += offsets[s + 1] - offsets[s] > 2 ? (size_t)(offsets[s + 1] - offsets[s] - 2) : 0;
    }
    const double t0 = raidNow();
    if ((st = plans(ctx, r, offsets, nseg, plan, host)) != RAID_OK)
        goto out;
    ctx->timing.host_s += raidNow() - t0;
    /* groups of consecutive device segments whose returns fit the resident budget */
    const int64_t dmax = (int64_t)(raidDevMaxAlloc(ctx) / (2 * sizeof(float)));
    const int64_t budget = dmax < NOISE_GROUP ? dmax : NOISE_GROUP;
    for (size_t g0 = 0; g0 < nseg && st == RAID_OK;) {
        if (host[g0] || offsets[g0 + 1] - offsets[g0] > budget) {
            host[g0] = 1;
            g0++;
            continue;
        }
        size_t g1 = g0 + 1;
        while (g1 < nseg && !host[g1] && offsets[g1 + 1] - offsets[g0] <= budget)
            g1++;
        st = run_group(ctx, r, offsets, g0, g1, plan, host, e, sums, host + nseg);
        g0 = g1;
    }
    if (st == RAID_OK) {
        const double t1 = raidNow();
        st = finish_all(ctx, r, offsets, nseg, plan, host, host + nseg, sums, out);
        ctx->timing.host_s += raidNow() - t1;
    }
out:
    free(plan);
    free(sums);
    free(host);
    free(e);
    free(gam);
    return st;
}
