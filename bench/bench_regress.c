/*
 * bench_regress: speed of the regression path on a HAR-shaped panel (not a test; bench/README.md).
 *
 * S symbols x T days of a log-normal AR(1) "rv" series; the HAR-RV design (const, rv_d, rv_w, rv_m; y the
 * next day's rv); rolling windows of W days ending on every block boundary (blocks of B days). Stages:
 *   stats   raid_reg_stats_compute of every block of every symbol in one call (device and cpu);
 *   combine raid_reg_stats_combine of W/B blocks per window;
 *   ols     raid_ols_from_stats per window;
 *   meat    raid_reg_meat_ranges (Newey-West, L lags) of all windows in one call, device and cpu;
 *   robust  raid_ols_robust per window.
 * usage: bench_regress [--device D] [--precision f32|df] [--symbols S] [--days T] [--window W]
 *                      [--block B] [--nw-lag L]
 */
#define _POSIX_C_SOURCE 200809L
#include "core/internal.h"

#include "bench_common.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *device = "opencl";
    raid_precision prec = RAID_PREC_DF;
    long S = 1000, T = 5000, W = 1000, B = 50;
    int L = 22;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--device")) device = argv[i + 1];
        else if (!strcmp(argv[i], "--precision")) prec = strcmp(argv[i + 1], "f32") ? RAID_PREC_DF : RAID_PREC_F32;
        else if (!strcmp(argv[i], "--symbols")) S = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--days")) T = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--window")) W = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--block")) B = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--nw-lag")) L = atoi(argv[i + 1]);
    }
    const int k = 4;
    const long rows = T - 23; /* days with 22 days of history and one of future */
    const long nblk = rows / B, wb = W / B;
    const size_t n = (size_t)S * (size_t)(nblk * B);
    double *X = malloc(n * k * sizeof *X), *y = malloc(n * sizeof *y);
    int64_t *off = malloc(((size_t)S * nblk + 1) * sizeof *off);
    if (!X || !y || !off)
        return 1;
#pragma omp parallel for schedule(static)
    for (long s = 0; s < S; s++) {
        double *rv = malloc((size_t)T * sizeof *rv), h = 0;
        for (long t = 0; t < T; t++) {
            h = 0.95 * h + 0.3 * bench_gauss((uint64_t)(s * T + t), 0);
            rv[t] = 1e-4 * exp(h);
        }
        for (long i = 0; i < nblk * B; i++) {
            const long t = 22 + i;
            double w = 0, m = 0;
            for (int j = 0; j < 5; j++) w += rv[t - j];
            for (int j = 0; j < 22; j++) m += rv[t - j];
            double *x = X + ((size_t)s * nblk * B + i) * k;
            x[0] = 1; x[1] = rv[t]; x[2] = w / 5; x[3] = m / 22;
            y[(size_t)s * nblk * B + i] = rv[t + 1];
        }
        free(rv);
    }
    for (size_t g = 0; g <= (size_t)S * nblk; g++)
        off[g] = (int64_t)(g * B);
    char err[4096];
    raid_ctx *ctx[2] = {NULL, NULL};
    if (raid_ctx_create(&ctx[0], device, err, sizeof err) != RAID_OK || raid_ctx_create(&ctx[1], "cpu", err, sizeof err) != RAID_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    raid_ctx_set_precision(ctx[0], prec);
    raid_reg_stats *blk = malloc((size_t)S * nblk * sizeof *blk);
    printf("# %s, %ld symbols x %ld days, window %ld, blocks %ld, NW lag %d, threads %d\n", raid_ctx_device_name(ctx[0]),
           S, T, W, B, L, omp_get_max_threads());
    for (int c = 0; c < 2; c++) {
        raid_reg_stats_compute(ctx[c], X, y, k, off, (size_t)S * nblk, blk); /* warm-up, kernel build */
        double t0 = raid_now();
        if (raid_reg_stats_compute(ctx[c], X, y, k, off, (size_t)S * nblk, blk) != RAID_OK) {
            fprintf(stderr, "%s\n", raid_ctx_errmsg(ctx[c]));
            return 1;
        }
        double ts = raid_now() - t0;
        raid_timing tm;
        raid_ctx_last_timing(ctx[c], &tm);
        printf("backend=%s rows=%zu stats_wall_s=%.4f kernel_s=%.6f\n", c ? "cpu" : device, n, ts, tm.kernel_s);
    }
    /* windows: combine and solve (host), then the Newey-West meat of every window in one call per backend */
    const long nwin = nblk - wb + 1;
    const size_t nw = (size_t)S * (size_t)nwin;
    int64_t *ws = malloc(nw * sizeof *ws), *we = malloc(nw * sizeof *we);
    double *beta = malloc(nw * k * sizeof *beta);
    raid_reg_stats *wstat = malloc(nw * sizeof *wstat);
    double t0 = raid_now();
#pragma omp parallel for schedule(dynamic, 4)
    for (long s = 0; s < S; s++)
        for (long w0 = 0; w0 < nwin; w0++) {
            const size_t w = (size_t)s * nwin + w0;
            raid_reg_stats win = blk[s * nblk + w0];
            for (long j = 1; j < wb; j++)
                raid_reg_stats_combine(&win, &blk[s * nblk + w0 + j], &win);
            raid_ols o;
            raid_ols_from_stats(&win, 1, &o, NULL, 0);
            wstat[w] = win;
            memcpy(beta + w * k, o.beta, k * sizeof *beta);
            ws[w] = (int64_t)((s * nblk + w0) * B);
            we[w] = (int64_t)((s * nblk + w0 + wb) * B);
        }
    const double t_comb = raid_now() - t0;
    printf("windows=%zu combine_and_ols_s=%.4f\n", nw, t_comb);
    const size_t nc = (size_t)(L + 1) * k * k;
    double *meat = malloc(nw * nc * sizeof *meat);
    if (!ws || !we || !beta || !wstat || !meat) {
        fprintf(stderr, "out of memory for %zu windows\n", nw);
        return 1;
    }
    for (int c = 0; c < 2; c++) {
        t0 = raid_now();
        if (raid_reg_meat_ranges(ctx[c], X, y, k, ws, we, nw, beta, L, meat) != RAID_OK) {
            fprintf(stderr, "%s\n", raid_ctx_errmsg(ctx[c]));
            return 1;
        }
        const double tm = raid_now() - t0;
        raid_timing tt;
        raid_ctx_last_timing(ctx[c], &tt);
        long bad = 0;
        t0 = raid_now();
        for (size_t w = 0; w < nw; w++) {
            raid_ols o;
            if (raid_ols_from_stats(&wstat[w], 1, &o, NULL, 0) != RAID_OK ||
                raid_ols_robust(&wstat[w], meat + w * nc, L, RAID_SE_NW, &o) != RAID_OK)
                bad++;
        }
        printf("backend=%s meat_nw_wall_s=%.4f meat_kernel_s=%.6f robust_s=%.4f failed=%ld\n", c ? "cpu" : device, tm,
               tt.kernel_s, raid_now() - t0, bad);
    }
    free(ws);
    free(we);
    free(beta);
    free(wstat);
    free(meat);
    raid_ctx_destroy(ctx[0]);
    raid_ctx_destroy(ctx[1]);
    free(X);
    free(y);
    free(off);
    free(blk);
    return 0;
}
