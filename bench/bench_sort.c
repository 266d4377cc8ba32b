/* Benchmark of the sorts (include/raid/sort.h; issue 11 section 6): sort and stable argsort (uint32, int64
 * indices) of N float64 (standard normal draws, bench_common.h) on --device, best wall time of --reps
 * calls each (the first call builds the kernels: a warm-up call precedes the timed ones), and whether
 * the device's outputs equal the cpu path's bit for bit (--check). Public API only.
 *
 *   bench_sort [--n N] [--device D] [--reps R] [--bits B] [--check]
 *
 * --bits B: the device's digit width (1..8; a tuning build option "-DSORT_BITS=B"). Prints one line per
 * operation: op, n, device, best wall seconds, million values per second, the best process cpu time (all
 * threads; the machine may be shared). */
#define _POSIX_C_SOURCE 200809L
#include "raid.h"

#include "bench_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int die(raid_ctx *ctx, const char *what)
{
    fprintf(stderr, "bench_sort: %s: %s\n", what, ctx ? raid_ctx_errmsg(ctx) : raid_errmsg());
    return 1;
}

int main(int argc, char **argv)
{
    size_t n = 10000000;
    int reps = 5, check = 0, bits = 0;
    const char *device = "cpu";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--n") && v)
            n = (size_t)strtod(argv[++i], NULL);
        else if (!strcmp(a, "--device") && v)
            device = argv[++i];
        else if (!strcmp(a, "--reps") && v)
            reps = atoi(argv[++i]);
        else if (!strcmp(a, "--bits") && v)
            bits = atoi(argv[++i]);
        else if (!strcmp(a, "--check"))
            check = 1;
        else {
            fprintf(stderr, "usage: bench_sort [--n N] [--device D] [--reps R] [--bits B] [--check]\n");
            return 2;
        }
    }
    raid_ctx *ctx = NULL;
    if (raid_ctx_create(&ctx, device) != RAID_OK)
        return die(NULL, device);
    if (bits > 0) {
        char opt[64];
        snprintf(opt, sizeof opt, "-DSORT_BITS=%d", bits);
        if (raid_tuning_set_build_options(ctx, opt) != RAID_OK)
            return die(ctx, "tuning");
    }
    double *x = malloc(n * sizeof *x), *v = malloc(n * sizeof *v), *vc = NULL;
    uint32_t *i32 = malloc(n * sizeof *i32);
    int64_t *i64 = malloc(n * sizeof *i64);
    if (!x || !v || !i32 || !i64)
        return die(NULL, "out of memory");
    for (size_t i = 0; i < n; i++)
        x[i] = bench_gauss(i, 42);
    printf("device %s\n", raid_ctx_device_name(ctx));
    for (int op = 0; op < 3; op++) {
        static const char *names[3] = {"sort", "argsort_u32", "argsort_i64"};
        double best = 1e300, bestcpu = 1e300;
        for (int r = -1; r < reps; r++) {
            const double t0 = bench_now();
            const clock_t c0 = clock();
            raid_status st = op == 0   ? raid_sort_f64(ctx, x, n, NULL, 0, v)
                             : op == 1 ? raid_argsort_f64_u32(ctx, x, n, NULL, 0, i32)
                                       : raid_argsort_f64_i64(ctx, x, n, NULL, 0, i64);
            const double t = bench_now() - t0, tc = (double)(clock() - c0) / CLOCKS_PER_SEC;
            if (st != RAID_OK)
                return die(ctx, names[op]);
            if (r >= 0 && t < best)
                best = t;
            if (r >= 0 && tc < bestcpu)
                bestcpu = tc;
        }
        printf("%-12s n %zu  %.4f s  %.1f M/s  (process cpu time %.4f s)\n", names[op], n, best, (double)n / best * 1e-6,
               bestcpu);
        if (check && op == 0) {
            vc = malloc(n * sizeof *vc);
            if (!vc || raid_sort_f64(NULL, x, n, NULL, 0, vc) != RAID_OK)
                return die(NULL, "cpu sort");
            printf("sort: device %s the cpu path bit for bit\n", memcmp(v, vc, n * sizeof *v) ? "DIFFERS from" : "equals");
        }
    }
    free(x);
    free(v);
    free(vc);
    free(i32);
    free(i64);
    raid_ctx_destroy(ctx);
    return 0;
}
