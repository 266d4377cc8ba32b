/*
 * Noise-robust realized measures (rk, tsrv, prv, minrv: raid_realized_noise_compute) on a device against
 * the float64 cpu path: S segments of M returns of a Brownian log price observed with i.i.d. noise
 * (xi^2 = 2.5e-3, the simulation of docs/measures.md), best wall time of --reps calls on each, and the
 * largest scaled difference per column against raid_realized_noise_bound (exit 3 above it).
 *
 * usage: bench_noise [--device D] [--precision df|f32] [--segments S] [--seg-len M] [--reps K] [--no-cpu]
 */
#define _POSIX_C_SOURCE 200809L
#include "raid.h"

#include "bench_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Best wall seconds of reps calls of raid_realized_noise_compute on ctx. */
static double timed(raid_ctx *ctx, const double *r, const int64_t *off, size_t ns, int reps, raid_realized_noise *out)
{
    double best = INFINITY;
    for (int k = 0; k < reps; k++) {
        const double t0 = bench_now();
        if (raid_realized_noise_compute(ctx, r, off, ns, out) != RAID_OK) {
            fprintf(stderr, "bench_noise: %s\n", raid_ctx_errmsg(ctx));
            exit(4);
        }
        const double t = bench_now() - t0;
        best = t < best ? t : best;
    }
    return best;
}

int main(int argc, char **argv)
{
    const char *device = "auto";
    raid_precision prec = RAID_PREC_DF;
    size_t ns = 200;
    int64_t M = 23400;
    int reps = 3, cpu_run = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc)
            device = argv[++i];
        else if (!strcmp(argv[i], "--precision") && i + 1 < argc)
            prec = bench_precision("bench_noise", argv[++i]);
        else if (!strcmp(argv[i], "--segments") && i + 1 < argc)
            ns = (size_t)atof(argv[++i]);
        else if (!strcmp(argv[i], "--seg-len") && i + 1 < argc)
            M = (int64_t)atof(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-cpu"))
            cpu_run = 0;
        else {
            fprintf(stderr, "usage: bench_noise [--device D] [--precision df|f32] [--segments S] [--seg-len M] "
                            "[--reps K] [--no-cpu]\n");
            return 1;
        }
    }
    const size_t n = ns * (size_t)M;
    double *r = malloc(n * sizeof *r);
    int64_t *off = malloc((ns + 1) * sizeof *off);
    raid_realized_noise *a = malloc(ns * sizeof *a), *b = malloc(ns * sizeof *b);
    raid_realized *c = malloc(ns * sizeof *c);
    if (!r || !off || !a || !b || !c)
        return 2;
    /* IV = 1e-4 a day; noise variance omega^2 = xi^2 IV with xi^2 = 2.5e-3 */
    const double sig = sqrt(1e-4 / (double)M), om = sqrt(2.5e-3 * 1e-4);
    for (size_t s = 0; s <= ns; s++)
        off[s] = (int64_t)s * M;
    for (size_t i = 0; i < n; i++)
        r[i] = sig * bench_gauss(i, 1) + om * (bench_gauss(i + 1, 2) - bench_gauss(i, 2));
    raid_ctx *dev, *cpu;
    if (raid_ctx_create(&dev, device) != RAID_OK || raid_ctx_set_precision(dev, prec) != RAID_OK ||
        raid_ctx_create(&cpu, "cpu") != RAID_OK) {
        fprintf(stderr, "bench_noise: %s\n", raid_errmsg());
        return 4;
    }
    (void)timed(dev, r, off, ns, 1, a); /* the kernels' build */
    const double td = timed(dev, r, off, ns, reps, a);
    printf("noise %s %s: %zu segments x %lld returns: device %.4f s (%.1f ns a return)", raid_ctx_device_name(dev),
           prec == RAID_PREC_F32 ? "f32" : "df", ns, (long long)M, td, 1e9 * td / (double)n);
    int rc = 0;
    if (cpu_run) {
        const double tc = timed(cpu, r, off, ns, reps, b);
        printf(", cpu %.4f s, speedup %.1fx\n", tc, tc / td);
        if (raid_realized_compute(cpu, r, off, ns, c) != RAID_OK)
            return 4;
        for (int k = 0; k < RAID_REALIZED_NOISE_NMEASURES; k++) {
            double worst = 0;
            for (size_t s = 0; s < ns; s++) {
                const double d = raid_realized_noise_diff(&a[s], &b[s], k, c[s].rv);
                worst = d > worst || isnan(d) ? d : worst;
            }
            const double bd = raid_realized_noise_bound(prec, k, M);
            printf("  %-7s max_diff %.3e bound %.3e %s\n", raid_realized_noise_names[k], worst, bd,
                   worst <= bd ? "ok" : "EXCEEDED");
            rc |= !(worst <= bd) ? 3 : 0;
        }
    } else {
        printf("\n");
    }
    raid_ctx_destroy(dev);
    raid_ctx_destroy(cpu);
    free(r);
    free(off);
    free(a);
    free(b);
    free(c);
    return rc;
}
