/*
 * bench_select: speed of the selections of include/raid/select.h (not a test;
 * bench/README.md), through the public API only.
 *
 * --n values (default 10,000,000) of N(0, 1) (counter-based draws of --seed, bench_common.h; the recipe of
 * bench/peers_select.py), or --prices: 100 + N(0,1) rounded to cents (many ties). On --device (default
 * auto; "cpu" for the cpu path): median, quantiles (0.01, 0.5, 0.99), k-th (n/3), min/max (all four),
 * top-1000, each the best of --reps (default 5) wall times of the whole call (device: upload included;
 * the device's summed kernel time of the best call beside it, raid_ctx_last_timing). The first call of
 * each is untimed (kernel builds). --dump FILE writes the values as raw little-endian float64 (for
 * peers_select.py --raw FILE). --paths P[,P...]: the device's selection paths to time side by side
 * (RAID_TUNE_SELECT_PATH, docs/column.md "Selection"): auto (default), radix (the radix passes only), window
 * (the sampled window pass first); the cpu path ignores it. Prints one line per operation and path:
 * name[/path], wall seconds, kernel seconds (the device's summed kernel time of the best call), launches,
 * result.
 * usage: bench_select [--device D] [--n N] [--seed S] [--prices] [--reps R] [--paths P,..] [--dump FILE]
 */
#define _POSIX_C_SOURCE 200809L
#include "raid.h"
#include "raid/tuning.h"

#include "bench_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct op {
    const char *name;
    int kind;
} op;

static raid_status run(raid_ctx *ctx, int kind, const double *x, const int64_t *off, double *res)
{
    static const double q[3] = {0.01, 0.5, 0.99};
    static int64_t idx[1000];
    static double top[1000];
    raid_status st;
    switch (kind) {
    case 0:
        return raid_select_median(ctx, x, off, 1, res);
    case 1:
        return raid_select_quantile(ctx, x, off, 1, q, 3, res);
    case 2:
        return raid_select_kth(ctx, x, off, 1, off[1] / 3, res);
    case 3:
        return raid_select_minmax(ctx, x, off, 1, &res[0], &res[1], &res[2], &res[3]);
    default:
        st = raid_select_topk(ctx, x, off, 1, off[1] < 1000 ? off[1] : 1000, 1, top, idx);
        res[0] = top[0];
        return st;
    }
}

int main(int argc, char **argv)
{
    const char *device = "auto", *dump = NULL, *paths = "auto";
    long n = 10000000, reps = 5;
    uint64_t seed = 1;
    int prices = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc)
            device = argv[++i];
        else if (!strcmp(argv[i], "--n") && i + 1 < argc)
            n = atol(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atol(argv[++i]);
        else if (!strcmp(argv[i], "--dump") && i + 1 < argc)
            dump = argv[++i];
        else if (!strcmp(argv[i], "--paths") && i + 1 < argc)
            paths = argv[++i];
        else if (!strcmp(argv[i], "--prices"))
            prices = 1;
        else {
            fprintf(stderr, "usage: bench_select [--device D] [--n N] [--seed S] [--prices] [--reps R] [--paths auto,radix,window] "
                            "[--dump FILE]\n");
            return 2;
        }
    }
    if (n < 1 || reps < 1) {
        fprintf(stderr, "bench_select: --n and --reps must be positive\n");
        return 2;
    }
    double *x = malloc((size_t)n * sizeof *x);
    if (!x)
        return 1;
    for (long i = 0; i < n; i++) {
        const double g = bench_gauss((uint64_t)i, seed);
        x[i] = prices ? round((100.0 + g) * 100.0) / 100.0 : g;
    }
    if (dump) {
        FILE *f = fopen(dump, "wb");
        if (!f || fwrite(x, sizeof *x, (size_t)n, f) != (size_t)n || fclose(f)) {
            fprintf(stderr, "bench_select: cannot write %s\n", dump);
            return 1;
        }
    }
    raid_ctx *ctx = NULL;
    if (raid_ctx_create(&ctx, device) != RAID_OK) {
        fprintf(stderr, "bench_select: %s\n", raid_errmsg());
        return 1;
    }
    printf("# bench_select: n %ld (%s, seed %llu), device %s, best of %ld\n", n, prices ? "prices" : "N(0,1)",
           (unsigned long long)seed, raid_ctx_device_name(ctx), reps);
    printf("# op wall_s kernel_s launches result\n");
    const int64_t off[2] = {0, n};
    static const op ops[] = {{"median", 0}, {"quantile3", 1}, {"kth", 2}, {"minmax", 3}, {"top1000", 4}};
    static const char *const pnames[] = {"auto", "radix", "window"};
    int plist[3], np = 0;
    if (!strcmp(device, "cpu")) {
        plist[np++] = 0;
    } else {
        char pl[128];
        snprintf(pl, sizeof pl, "%s", paths);
        for (char *t = strtok(pl, ","); t && np < 3; t = strtok(NULL, ",")) {
            int p = -1;
            for (int j = 0; j < 3; j++)
                if (!strcmp(t, pnames[j]))
                    p = j;
            if (p < 0) {
                fprintf(stderr, "bench_select: unknown path %s (auto, radix, window)\n", t);
                return 2;
            }
            plist[np++] = p;
        }
    }
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
        for (int pi = 0; pi < np; pi++) {
            if (strcmp(device, "cpu") && raid_tuning_set(ctx, RAID_TUNE_SELECT_PATH, plist[pi]) != RAID_OK) {
                fprintf(stderr, "bench_select: %s\n", raid_ctx_errmsg(ctx));
                return 1;
            }
            double res[4] = {0}, best = INFINITY, kbest = 0.0;
            uint64_t launches = 0;
            if (run(ctx, ops[o].kind, x, off, res) != RAID_OK) {
                fprintf(stderr, "bench_select: %s: %s\n", ops[o].name, raid_ctx_errmsg(ctx));
                return 1;
            }
            for (long r = 0; r < reps; r++) {
                const double t0 = bench_now();
                (void)run(ctx, ops[o].kind, x, off, res);
                const double t = bench_now() - t0;
                if (t < best) {
                    raid_timing tm;
                    raid_ctx_last_timing(ctx, &tm);
                    best = t;
                    kbest = tm.kernel_s;
                    launches = tm.launches;
                }
            }
            char name[64];
            snprintf(name, sizeof name, "%s%s%s", ops[o].name, np > 1 || plist[pi] ? "/" : "",
                     np > 1 || plist[pi] ? pnames[plist[pi]] : "");
            printf("%s %.6f %.6f %llu %.17g\n", name, best, kbest, (unsigned long long)launches, res[0]);
        }
    }
    raid_ctx_destroy(ctx);
    free(x);
    return 0;
}
