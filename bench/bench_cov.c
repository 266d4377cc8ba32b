/*
 * bench_cov: speed of the daily realized covariance matrices (not a test; see bench/README.md).
 *
 * For each N it simulates --days days of --returns five-minute returns of N symbols on a common grid (a
 * one-factor model: r = beta f + e, betas in [0.5, 1.5], daily volatilities about 1%: 0.0011 per return for the
 * factor and the idiosyncratic parts), writes their prices as raid_cov_compute takes them (one price per
 * grid time, the previous-tick synchronisation then gives back the same returns up to their roundings), and
 * times raid_cov_compute over all days on the cpu context and, with --device, on the device, one line of
 * key=value pairs each: wall seconds, days per second, and the arithmetic rate 2 N^2 M / 2 (the upper
 * triangle's multiply-adds, as the peers count syrk's N (N+1) M). The device line adds its kernel, staging,
 * transfer and combine times (raid_ctx_last_timing, summed over the days) and, unless --no-cpu, the largest
 * scaled difference of its last day from the cpu's (raid_cov_diff against raid_cov_scale; the bound is
 * raid_cov_bound). --cpu-days K times the cpu on the first K days only (its line says how many). No
 * eigenvalues (info NULL): the estimator alone, as the peers compute it. --dump FILE writes the
 * returns as a NumPy array of shape (days, M, N) (float64) for the peers (bench/peers_cov_numpy.py,
 * bench/peers_cov_cupy.py), which compute the same matrices by BLAS and cuBLAS syrk.
 *
 * --estimator hy works on asynchronous ticks instead of the grid: each day symbol a trades at the times of a
 * Poisson process over 6.5 hours (microseconds) with (0.5 + a / (N - 1)) --ticks T trades expected (default
 * 2,340, one every 10 s on average; so the counts are unequal, from T/2 to 3T/2), at most 2T + 64 a day; its
 * log price at a trade is beta_a F + e_a, F the factor's Brownian path on a one-second grid (taken at the
 * trade's second) and e_a its own Brownian path, both 0.0011 per 300 s as above. Its lines give, instead of
 * gflops, ticks (the day's trades, averaged over the days) and merge_gsteps_per_s: the positions of the
 * pairs' merges per second, (N + 1) times the day's trades (sum over pairs a <= b of n_a + n_b), the work
 * of both paths. --dump is refused with hy (the peers compute Gram matrices).
 * Only the public API (raid.h).
 * usage: bench_cov [--device D] [--estimator E] [--days D] [--returns M] [--ticks T] [--no-cpu] [--cpu-days K]
 *                  [--dump FILE] N...
 */
#define _POSIX_C_SOURCE 200809L
#include "raid.h"

#include "bench_common.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sim {
    size_t n, days;
    int64_t m;
    double *r;     /* days x m x n returns, the dump's layout (grid estimators) */
    double *price; /* one day's prices, symbol-major: n x (m + 1), or (hy) n x (2 ticks + 64) at most */
    int64_t *t, *off;
    int64_t ticks; /* hy: the mean trades a symbol a day (0: the grid) */
    double *f;     /* hy: the factor's path on the day's one-second grid */
    double work;   /* the days' arithmetic (grid: multiply-adds) or merge positions (hy), run_days's */
} sim;

#define DAY_S 23400 /* 6.5 hours */

static void simulate(sim *s)
{
    const size_t n = s->n, m = (size_t)s->m;
    for (size_t d = 0; d < s->days; d++)
        for (size_t k = 0; k < m; k++) {
            const uint64_t row = d * m + k;
            const double f = 0.0011 * bench_gauss(row, 1);
            for (size_t a = 0; a < n; a++) {
                const double beta = 0.5 + (double)a / (double)(n > 1 ? n - 1 : 1);
                s->r[row * n + a] = beta * f + 0.0011 * bench_gauss(row * n + a, 2);
            }
        }
}

/* Day d's prices: 100 exp(cumulative return) per symbol at the grid times 0, 300 s, ... */
static void day_prices(sim *s, size_t d)
{
    const size_t n = s->n, m = (size_t)s->m;
    for (size_t a = 0; a < n; a++) {
        double x = 0.0;
        for (size_t k = 0; k <= m; k++) {
            if (k > 0)
                x += s->r[(d * m + k - 1) * n + a];
            s->price[a * (m + 1) + k] = 100.0 * exp(x);
            s->t[a * (m + 1) + k] = (int64_t)k * 300000000;
        }
        s->off[a + 1] = s->off[a] + (int64_t)(m + 1);
    }
}

/* Day d's asynchronous ticks for hy (the header says how), in symbol order into t, price and off. */
static void day_ticks(sim *s, size_t d)
{
    const size_t n = s->n, cap = 2 * (size_t)s->ticks + 64;
    const double sd = 0.0011 / sqrt(300.0); /* per second */
    s->f[0] = 0.0;
    for (size_t k = 1; k <= DAY_S; k++)
        s->f[k] = s->f[k - 1] + sd * bench_gauss(d * (DAY_S + 1) + k, 3);
    for (size_t a = 0; a < n; a++) {
        const double beta = 0.5 + (double)a / (double)(n > 1 ? n - 1 : 1), rate = beta * (double)s->ticks / DAY_S;
        const uint64_t stream = ((uint64_t)d * n + a) * 2 * cap;
        double at = 0.0, e = 0.0;
        size_t k = 0;
        for (; k < cap; k++) { /* an exponential gap: half the sum of two squared normals */
            const double g1 = bench_gauss(stream + 2 * k, 4), g2 = bench_gauss(stream + 2 * k + 1, 4);
            const double gap = 0.5 * (g1 * g1 + g2 * g2) / rate;
            if (at + gap > DAY_S)
                break;
            at += gap;
            e += sd * sqrt(gap) * bench_gauss(stream + k, 5);
            s->t[s->off[a] + (int64_t)k] = (int64_t)(at * 1e6);
            s->price[s->off[a] + (int64_t)k] = 100.0 * exp(beta * s->f[(size_t)at] + e);
        }
        s->off[a + 1] = s->off[a] + (int64_t)k;
    }
}

/* The days [0, ndays) on ctx: wall seconds (prices formed outside the timing), the timings summed, the last
 * day's matrices into out. -1 when a call fails. */
static double run_days(raid_ctx *ctx, sim *s, raid_cov_estimator est, size_t ndays, double *out, raid_timing *sum)
{
    double wall = 0.0;
    memset(sum, 0, sizeof *sum);
    s->work = 0.0;
    for (size_t d = 0; d < ndays; d++) {
        if (s->ticks) {
            day_ticks(s, d);
            s->work += (double)(s->n + 1) * (double)s->off[s->n];
        } else {
            day_prices(s, d);
            s->work += (double)s->n * (double)(s->n + 1) / 2.0 * (double)s->m; /* the upper triangle */
        }
        const double t0 = bench_now();
        if (raid_cov_compute(ctx, est, RAID_COV_SYNC_PREVIOUS, s->n, s->off, s->t, s->price, out, NULL) != RAID_OK) {
            fprintf(stderr, "raid_cov_compute: %s\n", ctx ? raid_ctx_errmsg(ctx) : raid_errmsg());
            return -1;
        }
        wall += bench_now() - t0;
        if (ctx) {
            raid_timing t;
            raid_ctx_last_timing(ctx, &t);
            sum->kernel_s += t.kernel_s;
            sum->convert_s += t.convert_s;
            sum->download_s += t.download_s;
            sum->combine_s += t.combine_s;
            sum->launches += t.launches;
        }
    }
    return wall;
}

/* The line's rate of run_days's last call over nd days in w seconds: gflops (grid: two flops a multiply-add)
 * or, hy, the mean trades a day and the merge positions per second. */
static const char *rate_field(const sim *s, double w, size_t nd, char *buf, size_t len)
{
    if (s->ticks)
        snprintf(buf, len, "ticks=%.0f merge_gsteps_per_s=%.3f", s->work / (double)(s->n + 1) / (double)nd,
                 s->work / w * 1e-9);
    else
        snprintf(buf, len, "gflops=%.3f", 2.0 * s->work / w * 1e-9);
    return buf;
}

static int dump(const sim *s, const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    char hdr[128];
    int len = snprintf(hdr, sizeof hdr, "{'descr': '<f8', 'fortran_order': False, 'shape': (%zu, %lld, %zu), }",
                       s->days, (long long)s->m, s->n);
    while ((10 + len + 1) % 64)
        hdr[len++] = ' ';
    hdr[len++] = '\n';
    const unsigned char magic[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
    const unsigned short hl = (unsigned short)len;
    const int ok = fwrite(magic, 1, 8, f) == 8 && fwrite(&hl, 2, 1, f) == 1 && fwrite(hdr, 1, (size_t)len, f) == (size_t)len &&
                   fwrite(s->r, sizeof(double), s->days * (size_t)s->m * s->n, f) == s->days * (size_t)s->m * s->n;
    return fclose(f) == 0 && ok ? 0 : -1;
}

int main(int argc, char **argv)
{
    const char *device = NULL, *dump_path = NULL;
    raid_cov_estimator est = RAID_COV_RCOV;
    size_t days = 252, cpu_days = 0;
    int64_t m = 78, ticks = 2340;
    int no_cpu = 0, i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc) device = argv[++i];
        else if (!strcmp(argv[i], "--estimator") && i + 1 < argc) {
            if (raid_cov_estimator_parse(argv[++i], &est) != RAID_OK) {
                fprintf(stderr, "bench_cov: %s\n", raid_errmsg());
                return 1;
            }
        } else if (!strcmp(argv[i], "--days") && i + 1 < argc) days = (size_t)atoll(argv[++i]);
        else if (!strcmp(argv[i], "--cpu-days") && i + 1 < argc) cpu_days = (size_t)atoll(argv[++i]);
        else if (!strcmp(argv[i], "--returns") && i + 1 < argc) m = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--ticks") && i + 1 < argc) ticks = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--dump") && i + 1 < argc) dump_path = argv[++i];
        else if (!strcmp(argv[i], "--no-cpu")) no_cpu = 1;
        else {
            fprintf(stderr, "usage: bench_cov [--device D] [--estimator E] [--days D] [--returns M] [--ticks T] "
                            "[--no-cpu] [--cpu-days K] [--dump FILE] N...\n");
            return 1;
        }
    }
    if (est != RAID_COV_HY)
        ticks = 0;
    else if (ticks < 1 || dump_path) {
        fprintf(stderr, "bench_cov: hy takes --ticks >= 1 and no --dump (its peers compute Gram matrices)\n");
        return 1;
    }
    raid_ctx *dev = NULL;
    if (device && raid_ctx_create(&dev, device) != RAID_OK) {
        fprintf(stderr, "bench_cov: %s\n", raid_errmsg());
        return 4;
    }
    for (; i < argc; i++) {
        sim s = {(size_t)atoll(argv[i]), days, m, NULL, NULL, NULL, NULL, ticks, NULL, 0.0};
        const size_t n = s.n, parts = (size_t)raid_cov_parts(est);
        const size_t per = ticks ? 2 * (size_t)ticks + 64 : (size_t)(m + 1); /* a symbol's prices a day */
        s.r = ticks ? NULL : malloc(days * (size_t)m * n * sizeof *s.r);
        s.f = ticks ? malloc((DAY_S + 1) * sizeof *s.f) : NULL;
        s.price = malloc(n * per * sizeof *s.price);
        s.t = malloc(n * per * sizeof *s.t);
        s.off = calloc(n + 1, sizeof *s.off);
        double *a = malloc(parts * n * n * sizeof *a), *b = malloc(parts * n * n * sizeof *b),
               *sc = malloc(parts * n * n * sizeof *sc);
        if ((!ticks && !s.r) || (ticks && !s.f) || !s.price || !s.t || !s.off || !a || !b || !sc) {
            fprintf(stderr, "bench_cov: out of memory\n");
            return 2;
        }
        if (!ticks)
            simulate(&s);
        if (dump_path && dump(&s, dump_path) != 0) {
            fprintf(stderr, "bench_cov: cannot write %s\n", dump_path);
            return 2;
        }
        raid_timing tm;
        char rate[96];
        const size_t nc = cpu_days && cpu_days < days ? cpu_days : days;
        if (!no_cpu) {
            const double w = run_days(NULL, &s, est, nc, b, &tm);
            if (w < 0)
                return 2;
            printf("cpu est=%s N=%zu M=%lld days=%zu threads=%d wall_s=%.4f days_per_s=%.2f %s "
                   "s_per_252_days=%.3f\n", raid_cov_estimator_name(est), n, (long long)(ticks ? 0 : m), nc,
                   omp_get_max_threads(), w, (double)nc / w, rate_field(&s, w, nc, rate, sizeof rate),
                   w / (double)nc * 252.0);
            fflush(stdout);
        }
        if (dev) {
            const double w = run_days(dev, &s, est, days, a, &tm);
            if (w < 0)
                return 4;
            double diff = NAN;
            if (!no_cpu) { /* the device's last day (its prices are in s) on the cpu */
                if (raid_cov_compute(NULL, est, RAID_COV_SYNC_PREVIOUS, n, s.off, s.t, s.price, b, NULL) != RAID_OK)
                    return 2;
                raid_cov_scale(est, RAID_COV_SYNC_PREVIOUS, n, s.off, s.t, s.price, sc);
                diff = raid_cov_diff(a, b, sc, parts * n * n);
            }
            printf("device est=%s N=%zu M=%lld days=%zu device=\"%s\" wall_s=%.4f days_per_s=%.2f %s "
                   "kernel_s=%.4f convert_s=%.4f download_s=%.4f combine_s=%.4f launches=%llu output_gb=%.3f "
                   "max_scaled_diff=%.3e bound=%.1e\n",
                   raid_cov_estimator_name(est), n, (long long)(ticks ? 0 : m), days, raid_ctx_device_name(dev), w,
                   (double)days / w, rate_field(&s, w, days, rate, sizeof rate), tm.kernel_s, tm.convert_s,
                   tm.download_s, tm.combine_s,
                   (unsigned long long)tm.launches, (double)days * parts * (double)n * (double)n * 8e-9, diff,
                   raid_cov_bound(RAID_PREC_DF, est));
            fflush(stdout);
        }
        free(s.r);
        free(s.f);
        free(s.price);
        free(s.t);
        free(s.off);
        free(a);
        free(b);
        free(sc);
    }
    raid_ctx_destroy(dev);
    return 0;
}
