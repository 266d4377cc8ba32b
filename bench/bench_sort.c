/* Benchmark of the sorts (include/raid/sort.h): on N float64 (standard normal draws,
 * bench_common.h) the sort, the stable argsort (uint32, int64 indices), the sort of (int64 key, float64 value)
 * pairs (keys: SplitMix64 draws, all 64 bits random) and the segmented argsort (uint32) over --segs equal
 * segments, on --device. Each: the best wall time of --reps calls (the first call builds the kernels: a
 * warm-up call precedes the timed ones; the wall time includes the host arrays' trips to the device and
 * back) and the best device kernel time (the sum of the call's kernels, OpenCL profiling events,
 * raid_ctx_last_timing: the figure to set beside CUB's kernel times on device-resident data), with the
 * launches of that call; --check compares every device output with the cpu path's bit for bit. Public API
 * only.
 *
 *   bench_sort [--n N] [--device D] [--reps R] [--bits B] [--rounds R] [--segs S] [--cl-options O] [--check]
 *
 * --bits B: the device's digit width (1..8; tuning build option "-DSORT_BITS=B"); --rounds R: rounds of a
 * tile (tile = 256 R elements; "-DSORT_ROUNDS=R"); --cl-options O: more build options (e.g. -cl-nv-verbose).
 * RAID_SORT_PROFILE=1 in the environment: the library prints each device call's plan and its kernel times one by
 * one on stderr (src/column/sort_device.c). Prints one line per operation: op, n, device, best wall
 * seconds, million values per second, best kernel seconds, launches, the best process cpu time (all
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

enum { OP_SORT, OP_ARG32, OP_ARG64, OP_PAIRS, OP_SEG32, NOPS };

typedef struct bufs {
    double *v;
    uint32_t *i32;
    int64_t *i64, *k;
} bufs;

static raid_status run(raid_ctx *ctx, int op, const double *x, const int64_t *keys, const int64_t *segoff, size_t nseg,
                       size_t n, bufs *o)
{
    switch (op) {
    case OP_SORT:
        return raid_sort_f64(ctx, x, n, NULL, 0, o->v);
    case OP_ARG32:
        return raid_argsort_f64_u32(ctx, x, n, NULL, 0, o->i32);
    case OP_ARG64:
        return raid_argsort_f64_i64(ctx, x, n, NULL, 0, o->i64);
    case OP_PAIRS:
        return raid_sort_i64_f64(ctx, keys, x, n, 0, o->k, o->v);
    default:
        return raid_argsort_f64_seg_u32(ctx, x, segoff, nseg, NULL, 0, o->i32);
    }
}

static int same(int op, const bufs *a, const bufs *b, size_t n)
{
    switch (op) {
    case OP_SORT:
        return !memcmp(a->v, b->v, n * sizeof *a->v);
    case OP_ARG64:
        return !memcmp(a->i64, b->i64, n * sizeof *a->i64);
    case OP_PAIRS:
        return !memcmp(a->v, b->v, n * sizeof *a->v) && !memcmp(a->k, b->k, n * sizeof *a->k);
    default:
        return !memcmp(a->i32, b->i32, n * sizeof *a->i32);
    }
}

static int alloc(bufs *o, size_t n)
{
    o->v = malloc(n * sizeof *o->v);
    o->i32 = malloc(n * sizeof *o->i32);
    o->i64 = malloc(n * sizeof *o->i64);
    o->k = malloc(n * sizeof *o->k);
    return o->v && o->i32 && o->i64 && o->k;
}

static void release(bufs *o)
{
    free(o->v);
    free(o->i32);
    free(o->i64);
    free(o->k);
}

int main(int argc, char **argv)
{
    size_t n = 10000000, nseg = 1000;
    int reps = 5, check = 0, bits = 0, rounds = 0;
    const char *device = "cpu", *clopts = "";
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
        else if (!strcmp(a, "--rounds") && v)
            rounds = atoi(argv[++i]);
        else if (!strcmp(a, "--cl-options") && v)
            clopts = argv[++i];
        else if (!strcmp(a, "--segs") && v)
            nseg = (size_t)strtod(argv[++i], NULL);
        else if (!strcmp(a, "--check"))
            check = 1;
        else {
            fprintf(stderr, "usage: bench_sort [--n N] [--device D] [--reps R] [--bits B] [--rounds R] [--segs S] "
                            "[--cl-options O] [--check]\n");
            return 2;
        }
    }
    if (n < 1 || nseg < 1 || reps < 1) {
        fprintf(stderr, "bench_sort: --n, --segs and --reps must be positive\n");
        return 2;
    }
    raid_ctx *ctx = NULL;
    if (raid_ctx_create(&ctx, device) != RAID_OK)
        return die(NULL, device);
    if (bits > 0 || rounds > 0 || clopts[0]) {
        char opt[512] = "";
        if (bits > 0)
            snprintf(opt, sizeof opt, "-DSORT_BITS=%d", bits);
        if (rounds > 0)
            snprintf(opt + strlen(opt), sizeof opt - strlen(opt), " -DSORT_ROUNDS=%d", rounds);
        snprintf(opt + strlen(opt), sizeof opt - strlen(opt), " %s", clopts);
        if (raid_tuning_set_build_options(ctx, opt) != RAID_OK)
            return die(ctx, "tuning");
    }
    double *x = malloc(n * sizeof *x);
    int64_t *keys = malloc(n * sizeof *keys), *segoff = malloc((nseg + 1) * sizeof *segoff);
    bufs o = {0}, oc = {0};
    if (!x || !keys || !segoff || !alloc(&o, n) || (check && !alloc(&oc, n)))
        return die(NULL, "out of memory");
    uint64_t sm = 42;
    for (size_t i = 0; i < n; i++) {
        x[i] = bench_gauss(i, 42);
        uint64_t z = (sm += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        keys[i] = (int64_t)(z ^ (z >> 31));
    }
    for (size_t s = 0; s <= nseg; s++)
        segoff[s] = (int64_t)(n * s / nseg);
    printf("device %s\n", raid_ctx_device_name(ctx));
    printf("# op n wall_s M/s kernel_s launches cpu_s\n");
    static const char *names[NOPS] = {"sort", "argsort_u32", "argsort_i64", "pairs_i64_f64", "argsort_seg_u32"};
    for (int op = 0; op < NOPS; op++) {
        double best = 1e300, bestcpu = 1e300, kbest = 1e300;
        uint64_t launches = 0;
        for (int r = -1; r < reps; r++) {
            const double t0 = bench_now();
            const clock_t c0 = clock();
            const raid_status st = run(ctx, op, x, keys, segoff, nseg, n, &o);
            const double t = bench_now() - t0, tc = (double)(clock() - c0) / CLOCKS_PER_SEC;
            if (st != RAID_OK)
                return die(ctx, names[op]);
            raid_timing tm;
            raid_ctx_last_timing(ctx, &tm);
            if (r < 0)
                continue;
            if (t < best)
                best = t;
            if (tc < bestcpu)
                bestcpu = tc;
            if (tm.kernel_s < kbest) {
                kbest = tm.kernel_s;
                launches = tm.launches;
            }
        }
        printf("%-16s n %zu  wall %.4f s  %.1f M/s  kernels %.6f s  launches %llu  (process cpu time %.4f s)\n",
               names[op], n, best, (double)n / best * 1e-6, kbest, (unsigned long long)launches, bestcpu);
        if (check) {
            if (run(NULL, op, x, keys, segoff, nseg, n, &oc) != RAID_OK)
                return die(NULL, names[op]);
            printf("%s: device %s the cpu path bit for bit\n", names[op], same(op, &o, &oc, n) ? "equals" : "DIFFERS from");
        }
        fflush(stdout);
    }
    free(x);
    free(keys);
    free(segoff);
    release(&o);
    release(&oc);
    raid_ctx_destroy(ctx);
    return 0;
}
