/*
 * bench_regress: speed of the regression path on a HAR-shaped panel (not a test; bench/README.md).
 *
 * S symbols x T days of a log-normal AR(1) "rv" series; the HAR-RV design (const, rv_d, rv_w, rv_m; y the
 * next day's rv), R = T - 23 design rows per symbol; rolling windows of W rows ending every D rows
 * (D = 1 by default: re-estimated every day, as `raid har --window rolling:W` does). The algorithm of
 * `raid har` (docs/har.md), run over the whole panel:
 *   stats   raid_reg_stats_compute of every block of B rows of every symbol in one call;
 *   windows the statistics of each window from the blocks it covers (raid_reg_stats_combine) and its
 *           partial edge blocks (raid_reg_stats_compute on the cpu), then raid_ols_from_stats;
 *   meat    raid_reg_meat_ranges_at (Newey-West, L lags, about each window's means) of all windows of a
 *           batch of symbols in one call;
 *   robust  raid_ols_robust_at per window.
 * The device backend runs on all S symbols; the cpu backend on the first C symbols (--cpu-symbols), and
 * its time is also scaled by S / C (symbols are independent and alike): the output says which numbers
 * are scaled. Both backends also run on the same C symbols, side by side, and the largest relative
 * differences of their coefficients and Newey-West standard errors over those windows are printed (the
 * device meat's bound is in docs/regression.md).
 * --cpu-threads N runs the cpu backend on N OpenMP threads (default: OpenMP's); --device none runs the cpu
 * backend alone (no device runs, no comparison). --meat-rows 1 adds a cpu run whose meat is summed from
 * every window's rows (RAID_TUNE_MEAT_ROWS: the row-wise oracle, the cpu path before the block sums of
 * src/regress/meat_block.c) and prints the largest differences of the cpu run's standard errors from it.
 * --reps N repeats each cpu run N times (the first faults in the output buffers, the later ones reuse them,
 * as a user's loop would), printing each repetition's times.
 * --e2e N runs only raid_reg_stats_compute on N float64 values in host memory (rows of
 * k = --e2e-k regressors and y, problems of --e2e-seg rows), best of --reps plain calls, and prints one line:
 * the end-to-end rate (8 bytes per value) beside the host-to-device bandwidth measured
 * in the same run (raid_tuning_upload_bandwidth, page-locked and pageable), their ratio (target: at least
 * 0.5) and the breakdown of the wall time (staging copy, upload and kernel by events, the chunks' merge on
 * the host; the device receives the float64 bits and centres each chunk: the one device path since the
 * host-converting path was removed on 2026-12-02, whose H200 figures bench/RESULTS.md keeps).
 * usage: bench_regress [--device D|none] [--precision f32|df] [--symbols S] [--days T] [--window W]
 *                      [--block B] [--step D] [--nw-lag L] [--cpu-symbols C] [--batch-symbols G]
 *                      [--cpu-threads N] [--meat-rows 0|1] [--reps N]
 *        bench_regress --e2e N [--device D] [--precision f32|df] [--e2e-k K] [--e2e-seg L] [--reps R]
 */
#define _POSIX_C_SOURCE 200809L
#include "raid.h"

#include "bench_common.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct panel {
    long S, R, B, nblk; /* symbols, rows per symbol, block rows, blocks per symbol (last one partial) */
    int k;
    double *X, *y;
} panel;

typedef struct times {
    double stats, windows, meat, meat_kernel, meat_host, robust;
    size_t nwin;
    long failed;
} times;

/* Windows of symbols [s0, s1): statistics from blocks, OLS, meat (one call), robust standard errors. */
static int run_windows(raid_ctx *ctx, raid_ctx *const *cpus, const panel *P, const raid_reg_stats *blk, long s0, long s1,
                       long W, long D, int L, times *tm, raid_ols *keep)
{
    const int k = P->k;
    const long nws = (P->R - W) / D + 1; /* windows per symbol: ends e = W, W + D, ... <= R */
    const size_t nw = (size_t)(s1 - s0) * (size_t)nws, nc = (size_t)(L + 1) * k * k;
    /* buffers kept across batches (a user's loop would not fault in fresh pages for every batch) */
    static int64_t *ws, *we;
    static double *beta, *meat, *cen;
    static raid_reg_stats *wst;
    static raid_ols *wo;
    static size_t cap;
    if (nw > cap) {
        free(ws), free(we), free(beta), free(meat), free(wst), free(wo), free(cen);
        ws = malloc(nw * sizeof *ws);
        we = malloc(nw * sizeof *we);
        beta = malloc(nw * k * sizeof *beta);
        cen = malloc(nw * k * sizeof *cen);
        meat = malloc(nw * nc * sizeof *meat);
        wst = malloc(nw * sizeof *wst);
        wo = malloc(nw * sizeof *wo);
        cap = nw;
        if (!ws || !we || !beta || !meat || !wst || !wo || !cen) {
            fprintf(stderr, "bench_regress: out of memory for %zu windows\n", nw);
            return 1;
        }
    }
    long bad = 0;
    double t0 = bench_now();
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : bad)
    for (size_t w = 0; w < nw; w++) {
        raid_ctx *cpu = cpus[omp_get_thread_num()]; /* a context serves one thread at a time */
        const long s = s0 + (long)(w / (size_t)nws);
        const long e = W + (long)(w % (size_t)nws) * D, a = e - W; /* symbol rows [a, e) */
        const size_t row0 = (size_t)s * (size_t)P->R;
        raid_reg_stats st;
        memset(&st, 0, sizeof st);
        st.k = k;
        const raid_status r = raid_reg_stats_range(cpu, blk + s * P->nblk, (size_t)P->B, P->X + row0 * k, P->y + row0,
                                                   k, a, e, &st);
        raid_ols o;
        if (r != RAID_OK || raid_ols_from_stats(&st, 1, &o) != RAID_OK) {
            bad++;
            memset(o.beta, 0, sizeof o.beta);
            o.k = 0; /* no robust errors for this window */
        }
        wst[w] = st;
        wo[w] = o;
        memcpy(beta + w * k, o.beta, k * sizeof *beta);
        raid_reg_stats_centre(&st, cen + w * k);
        ws[w] = (int64_t)(row0 + (size_t)a);
        we[w] = (int64_t)(row0 + (size_t)e);
    }
    tm->windows += bench_now() - t0;
    t0 = bench_now();
    if (raid_reg_meat_ranges_at(ctx, P->X, P->y, k, ws, we, nw, beta, cen, L, meat) != RAID_OK) {
        fprintf(stderr, "bench_regress: %s\n", raid_ctx_errmsg(ctx));
        return 1;
    }
    tm->meat += bench_now() - t0;
    raid_timing tt;
    raid_ctx_last_timing(ctx, &tt);
    tm->meat_kernel += tt.kernel_s;
    tm->meat_host += tt.convert_s;
    t0 = bench_now();
#pragma omp parallel for schedule(static) reduction(+ : bad)
    for (size_t w = 0; w < nw; w++)
        if (wo[w].k && raid_ols_robust_at(&wst[w], meat + w * nc, cen + w * k, L, RAID_SE_NW, &wo[w]) != RAID_OK)
            bad++;
    tm->robust += bench_now() - t0;
    if (keep) /* the windows of symbols [s0, s1) in symbol-major order, for the side-by-side comparison */
        memcpy(keep + (size_t)s0 * (size_t)nws, wo, nw * sizeof *wo);
    tm->nwin += nw;
    tm->failed += bad;
    return 0;
}

static void print_times(const char *backend, long nsym, const times *t, double scale)
{
    const double total = t->stats + t->windows + t->meat + t->robust;
    printf("backend=%s symbols=%ld windows=%zu stats_s=%.3f windows_s=%.3f meat_s=%.3f meat_kernel_s=%.3f "
           "meat_host_s=%.3f robust_s=%.3f total_s=%.3f per_window_us=%.3f failed=%ld",
           backend, nsym, t->nwin, t->stats, t->windows, t->meat, t->meat_kernel, t->meat_host, t->robust, total,
           total / (double)t->nwin * 1e6, t->failed);
    if (scale != 1)
        printf(" scaled_total_s=%.1f (x%.1f: scaled to all symbols, not run)", total * scale, scale);
    printf("\n");
    fflush(stdout);
}

/* Splitmix64 uniform in [-0.5, 0.5) of (i, seed): the --e2e data, generated in parallel. */
static double e2e_unif(uint64_t i, uint64_t seed)
{
    uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ULL + seed;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return (double)((x ^ (x >> 31)) >> 11) * 0x1p-53 - 0.5;
}

/* Best wall time of reps plain calls (the timing of the best into *tm); -1 on failure (message printed). */
static double e2e_wall(raid_ctx *dev, const double *X, const double *y, int k, const int64_t *off, size_t nreg,
                       raid_reg_stats *out, int reps, raid_timing *tm)
{
    double best = INFINITY;
    for (int r = 0; r < reps; r++) {
        const double t0 = bench_now();
        if (raid_reg_stats_compute(dev, X, y, k, off, nreg, out) != RAID_OK) {
            fprintf(stderr, "bench_regress: %s\n", raid_ctx_errmsg(dev));
            return -1;
        }
        const double w = bench_now() - t0;
        if (w < best) {
            best = w;
            raid_ctx_last_timing(dev, tm);
        }
    }
    return best;
}

/* --e2e: the statistics from float64 arrays in host memory (see the top of the file). */
static int e2e(const char *device, raid_precision prec, double nvals, int k, long seg, int reps)
{
    const int d = k + 1;
    const size_t n = (size_t)(nvals / d), nreg = (n + (size_t)seg - 1) / (size_t)seg;
    if (k < 1 || k > RAID_REG_MAX_K || seg < 1 || n < 1 || reps < 1) {
        fprintf(stderr, "bench_regress: --e2e needs N >= k + 1, 1 <= k <= %d, --e2e-seg >= 1, --reps >= 1\n",
                RAID_REG_MAX_K);
        return 1;
    }
    double *X = malloc(n * k * sizeof *X), *y = malloc(n * sizeof *y);
    int64_t *off = malloc((nreg + 1) * sizeof *off);
    raid_reg_stats *a = malloc(nreg * sizeof *a);
    if (!X || !y || !off || !a) {
        fprintf(stderr, "bench_regress: out of memory for %zu rows\n", n);
        return 1;
    }
    /* an intercept, then columns at levels up to 1e4 times their spread, y linear in them plus noise */
    const double mu[RAID_REG_MAX_K] = {1, 5.0, 1e3, -2e4, 0.25, 7.0, -3.0, 1e2};
    const double sd[RAID_REG_MAX_K] = {0, 1.0, 10.0, 2.0, 1e-3, 1.0, 0.5, 3.0};
    const long long nl = (long long)n;
#pragma omp parallel for schedule(static)
    for (long long t = 0; t < nl; t++) {
        double yy = 0.1 * e2e_unif((uint64_t)t, 99);
        for (int p = 0; p < k; p++) {
            const double v = mu[p] + sd[p] * e2e_unif((uint64_t)t * RAID_REG_MAX_K + (uint64_t)p, 7);
            X[(size_t)t * k + p] = v;
            yy += 0.3 / (p + 1) * v;
        }
        y[t] = yy;
    }
    for (size_t g = 0; g <= nreg; g++)
        off[g] = (int64_t)(g * (size_t)seg < n ? g * (size_t)seg : n);
    raid_ctx *dev;
    if (raid_ctx_create(&dev, device) != RAID_OK || raid_ctx_set_precision(dev, prec) != RAID_OK) {
        fprintf(stderr, "bench_regress: %s\n", raid_errmsg());
        return 1;
    }
    const double bytes = (double)n * d * 8;
    double pinned = NAN, pageable = NAN;
    const size_t hb = bytes < (double)((size_t)1 << 30) ? (size_t)bytes : (size_t)1 << 30;
    if (raid_tuning_upload_bandwidth(dev, hb, reps, &pinned, &pageable) != RAID_OK)
        pinned = pageable = NAN;
    printf("# e2e: %zu rows x %d values (%.3g values, %.2f GB), %zu problems of %ld rows, precision %s, "
           "threads %d\n", n, d, (double)n * d, bytes / 1e9, nreg, seg, prec == RAID_PREC_DF ? "df" : "f32",
           omp_get_max_threads());
    fflush(stdout);
    raid_reg_stats_compute(dev, X, y, k, off, nreg, a); /* kernel build, first touch */
    raid_timing tm;
    const double w = e2e_wall(dev, X, y, k, off, nreg, a, reps, &tm);
    if (w < 0)
        return 1;
    printf("e2e path=bits precision=%s values=%.4g bytes=%.0f wall_s=%.4f end_to_end_GBps=%.2f "
           "h2d_pinned_GBps=%.2f h2d_pageable_GBps=%.2f end_to_end_vs_h2d=%.3f breakdown: staging_s=%.4f "
           "upload_s=%.4f kernel_s=%.4f combine_s=%.4f merge_s=%.4f launches=%llu\n",
           prec == RAID_PREC_DF ? "df" : "f32", (double)n * d, bytes, w, bytes / w / 1e9, pinned / 1e9,
           pageable / 1e9, bytes / w / pinned, tm.convert_s, tm.upload_s, tm.kernel_s, tm.combine_s, tm.host_s,
           (unsigned long long)tm.launches);
    raid_ctx_destroy(dev);
    free(X), free(y), free(off), free(a);
    return 0;
}

int main(int argc, char **argv)
{
    const char *device = "opencl";
    raid_precision prec = RAID_PREC_DF;
    long S = 1000, T = 5000, W = 1000, B = 50, D = 1, C = 32, G = 64;
    int L = 22, cpu_threads = 0, meat_rows = 0, e2e_k = 4, reps = 1;
    double e2e_n = 0;
    long e2e_seg = 23400;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--device")) device = argv[i + 1];
        else if (!strcmp(argv[i], "--precision")) prec = bench_precision("bench_regress", argv[i + 1]);
        else if (!strcmp(argv[i], "--symbols")) S = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--days")) T = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--window")) W = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--block")) B = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--step")) D = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--nw-lag")) L = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--cpu-symbols")) C = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--batch-symbols")) G = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--cpu-threads")) cpu_threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--meat-rows")) meat_rows = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--e2e")) e2e_n = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--e2e-k")) e2e_k = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--e2e-seg")) e2e_seg = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
        else {
            fprintf(stderr, "bench_regress: unknown option %s\n", argv[i]);
            return 1;
        }
    }
    if (e2e_n > 0)
        return e2e(device, prec, e2e_n, e2e_k, e2e_seg, reps);
    panel P = {S, T - 23, B, 0, 4, NULL, NULL};
    if (S < 1 || P.R < W || W < 2 || B < 1 || D < 1 || L < 0 || G < 1 || reps < 1) {
        fprintf(stderr, "bench_regress: need S >= 1, T - 23 >= W >= 2, B, D, G, reps >= 1, L >= 0\n");
        return 1;
    }
    if (C > S)
        C = S;
    P.nblk = (P.R + B - 1) / B;
    const int k = P.k;
    const size_t n = (size_t)S * (size_t)P.R;
    P.X = malloc(n * k * sizeof *P.X);
    P.y = malloc(n * sizeof *P.y);
    int64_t *off = malloc(((size_t)S * P.nblk + 1) * sizeof *off);
    raid_reg_stats *blk = malloc((size_t)S * P.nblk * sizeof *blk);
    if (!P.X || !P.y || !off || !blk)
        return 1;
#pragma omp parallel for schedule(static)
    for (long s = 0; s < S; s++) {
        double *rv = malloc((size_t)T * sizeof *rv), h = 0;
        for (long t = 0; t < T; t++) {
            h = 0.95 * h + 0.3 * bench_gauss((uint64_t)(s * T + t), 0);
            rv[t] = 1e-4 * exp(h);
        }
        for (long i = 0; i < P.R; i++) {
            const long t = 22 + i;
            double w = 0, m = 0;
            for (int j = 0; j < 5; j++) w += rv[t - j];
            for (int j = 0; j < 22; j++) m += rv[t - j];
            double *x = P.X + ((size_t)s * P.R + i) * k;
            x[0] = 1; x[1] = rv[t]; x[2] = w / 5; x[3] = m / 22;
            P.y[(size_t)s * P.R + i] = rv[t + 1];
        }
        free(rv);
    }
    for (long s = 0; s < S; s++)
        for (long b = 0; b < P.nblk; b++)
            off[s * P.nblk + b] = (int64_t)(s * P.R + (b * B < P.R ? b * B : P.R));
    off[S * P.nblk] = (int64_t)n;
    raid_ctx *ctx[3] = {NULL, NULL, NULL};
    const int nthr = omp_get_max_threads();
    raid_ctx **cpus = calloc((size_t)nthr, sizeof *cpus);
    const int no_device = !strcmp(device, "none");
    if (!cpus || raid_ctx_create(&ctx[0], no_device ? "cpu" : device) != RAID_OK ||
        raid_ctx_create(&ctx[2], "cpu") != RAID_OK || raid_tuning_set(ctx[2], RAID_TUNE_MEAT_ROWS, 1) != RAID_OK ||
        raid_ctx_create(&ctx[1], "cpu") != RAID_OK) {
        fprintf(stderr, "%s\n", cpus ? raid_errmsg() : "out of memory");
        return 1;
    }
    cpus[0] = ctx[1];
    for (int i = 1; i < nthr; i++)
        if (raid_ctx_create(&cpus[i], "cpu") != RAID_OK) {
            fprintf(stderr, "%s\n", raid_errmsg());
            return 1;
        }
    raid_ctx_set_precision(ctx[0], prec);
    const long nws = (P.R - W) / D + 1;
    printf("# %s%s, precision %s, %ld symbols x %ld days (%ld design rows each), rolling window %ld rows every %ld "
           "(%ld windows per symbol), blocks %ld, NW lag %d, cpu on %ld symbols, batches of %ld symbols, threads %d\n",
           no_device ? "no device run; " : "", raid_ctx_device_name(ctx[0]), prec == RAID_PREC_DF ? "df" : "f32", S, T, P.R, W, D, nws, B, L, C, G,
           omp_get_max_threads());
    fflush(stdout);
    /* runs: 0 device on all symbols, 1 device on the first C, 2 cpu on the first C, 3 cpu with the row-wise
       meat on the first C */
    const struct { int c; long nsym; const char *name; } runs[4] = {
        {0, S, "device"}, {0, C, "device"}, {1, C, "cpu"}, {2, C, "cpu-meat-rows"}};
    raid_ols *kept[3] = {malloc((size_t)C * nws * sizeof(raid_ols)), malloc((size_t)C * nws * sizeof(raid_ols)),
                         malloc((size_t)C * nws * sizeof(raid_ols))};
    if (!kept[0] || !kept[1] || !kept[2])
        return 1;
    for (int r = no_device ? 2 : 0; r < (meat_rows ? 4 : 3); r++) {
        raid_ctx *c = ctx[runs[r].c];
        if (r == 2 && cpu_threads > 0) {
            omp_set_num_threads(cpu_threads);
            printf("# cpu run on %d thread%s\n", cpu_threads, cpu_threads > 1 ? "s" : "");
        }
        const long ns = runs[r].nsym;
        for (int rep = 0; rep < (r >= 2 ? reps : 1); rep++) {
            if (r >= 2 && reps > 1)
                printf("# %s run, repetition %d of %d%s\n", runs[r].name, rep + 1, reps,
                       rep ? "" : " (first touch of the output buffers: their page faults are in its times)");
            times tm = {0};
            const double cpu0 = bench_cpu_now();
            /* block statistics of the run's symbols: warm-up (kernel build), then timed */
            raid_reg_stats_compute(c, P.X, P.y, k, off, (size_t)ns * P.nblk, blk);
            double t0 = bench_now();
            if (raid_reg_stats_compute(c, P.X, P.y, k, off, (size_t)ns * P.nblk, blk) != RAID_OK) {
                fprintf(stderr, "%s\n", raid_ctx_errmsg(c));
                return 1;
            }
            tm.stats = bench_now() - t0;
            if (r == 0) { /* warm-up of the meat kernel on one window */
                times w0 = {0};
                if (run_windows(c, cpus, &P, blk, 0, 1, W, P.R - W + 1, L, &w0, NULL))
                    return 1;
            }
            for (long s0 = 0; s0 < ns; s0 += G) {
                const long s1 = s0 + G < ns ? s0 + G : ns;
                if (run_windows(c, cpus, &P, blk, s0, s1, W, D, L, &tm, r ? kept[r - 1] : NULL))
                    return 1;
                if (r == 0 && (s0 / G) % 16 == 0) {
                    printf("# %s: %ld of %ld symbols, %.1f s (windows %.1f, meat %.1f of which kernel %.1f, robust "
                           "%.1f)\n", runs[r].name, s1, ns, tm.stats + tm.windows + tm.meat + tm.robust, tm.windows,
                           tm.meat, tm.meat_kernel, tm.robust);
                    fflush(stdout);
                }
            }
            print_times(runs[r].name, ns, &tm, r >= 2 ? (double)S / (double)ns : 1.0);
            if (r >= 2) /* the process's cpu time: on one thread, the work without the waits of a shared machine */
                printf("backend=%s cpu_time_s=%.3f cpu_per_window_us=%.3f (process cpu time, the warm-up statistics "
                       "call included)\n", runs[r].name, bench_cpu_now() - cpu0,
                       (bench_cpu_now() - cpu0) / (double)tm.nwin * 1e6);
        }
    }
    if (meat_rows) { /* the cpu run's Newey-West errors against the row-wise meat's */
        double dse = 0;
        long mismatch = 0;
        for (size_t w = 0; w < (size_t)C * nws; w++) {
            const raid_ols *a = &kept[1][w], *b = &kept[2][w];
            if (!a->k != !b->k) {
                mismatch++;
                continue;
            }
            for (int j = 0; j < a->k; j++) {
                const double rs = fabs(a->se[j] - b->se[j]) / fabs(b->se[j]);
                dse = rs > dse || rs != rs ? rs : dse;
            }
        }
        printf("agreement_meat_rows symbols=%ld windows=%zu max_rel_se_nw=%.3g failed_on_one_side=%ld\n", C,
               (size_t)C * nws, dse, mismatch);
    }
    /* device against cpu on the same windows: largest relative differences (a window failed on one side
       and not the other counts as a mismatch) */
    double dbeta = 0, dse = 0, dnorm = 0, dinse = 0, at_cond = 0, at_share = 0;
    long mismatch = 0;
    for (size_t w = 0; w < (size_t)C * nws; w++) {
        const raid_ols *a = &kept[0][w], *b = &kept[1][w];
        if (!a->k != !b->k) {
            mismatch++;
            continue;
        }
        double nd = 0, nb = 0;
        for (int j = 0; j < b->k; j++)
            nb = fmax(nb, fabs(b->beta[j]));
        for (int j = 0; j < a->k; j++) {
            const double d = fabs(a->beta[j] - b->beta[j]);
            const double rb = d / fabs(b->beta[j]), rs = fabs(a->se[j] - b->se[j]) / fabs(b->se[j]);
            const double ins = d / b->se[j];
            nd = fmax(nd, d);
            if (rb > dbeta || rb != rb) /* where the largest is: the window's condition, |beta_j| / max |beta| */
                dbeta = rb, at_cond = b->cond, at_share = fabs(b->beta[j]) / nb;
            dse = rs > dse || rs != rs ? rs : dse;
            dinse = ins > dinse || ins != ins ? ins : dinse;
        }
        dnorm = nd / nb > dnorm || nd != nd ? nd / nb : dnorm;
    }
    if (!no_device)
        printf("agreement symbols=%ld windows=%zu max_rel_beta=%.3g (cond %.3g, |beta_j|/max|beta| %.3g) "
               "max_normwise_beta=%.3g max_beta_diff_in_se=%.3g max_rel_se_nw=%.3g failed_on_one_side=%ld\n",
               C, (size_t)C * nws, dbeta, at_cond, at_share, dnorm, dinse, dse, mismatch);
    free(kept[0]);
    free(kept[1]);
    free(kept[2]);
    free(P.X);
    free(P.y);
    free(off);
    free(blk);
    raid_ctx_destroy(ctx[0]);
    raid_ctx_destroy(ctx[2]);
    for (int i = 0; i < nthr; i++)
        raid_ctx_destroy(cpus[i]);
    free(cpus);
    return 0;
}
