/* bench_groupby: exact group sums (raid_groupby_compute, include/raid/groupby.h) of N float64 rows into G
 * groups, on the cpu path and a device, public API only. Rows: keys uniform in [0, G) (splitmix64 of the
 * row), values N(0,1) x 100 (bench_gauss, seed 1): the same arrays as bench/peers_groupby.py makes, which
 * times numpy, polars and CuPy's scatter-add on them.
 *
 *   bench_groupby [--rows N] [--groups G[,G...]] [--device D[,D...]] [--reps R] [--aggs sum|all]
 *                 [--keys dense|wide] [--paths P[,P...]] [--dump FILE]
 *
 * --keys wide: the same groups under keys spread over the whole int64 range (splitmix64 of the group
 * number), which the device groups through its hash table instead of the direct one.
 * --paths: the device's aggregation paths to time side by side (RAID_TUNE_GROUPBY_PATH, docs/groupby.md):
 * auto (default), global (limb tables, global atomics), local (per-work-group tables: few groups only),
 * eb (global exponent-bucket tables), part (rows partitioned by group with one pass of the device sort,
 * then local limb tables per partition: sums, counts and means only, 255 partitions at most). A path that does not apply prints "unsupported", a path that
 * fails "failed" with the error (the next paths still run). The cpu path ignores it (one line, path "-").
 *
 * Prints one line per (device, G): best wall time of R calls (everything: transfers, group ids, sums,
 * rounding), rows per second, and the fastest call's breakdown (raid_ctx_last_timing; 0 on the cpu path):
 * kernel_s (every kernel), upload_s (keys, values: host to device), ids_s (the kernels that form the group
 * ids: ranges, slots, ranks), sums_s (the aggregation kernels: kernel_s - ids_s), download_s (the distinct
 * keys, the tables back), host_s (the host's share: sorting the distinct keys, rounding the sums) and
 * other_s (the rest of the wall time: buffer set-up, launches, waits). --verify 1: each device path's
 * first call is compared with the cpu path's result, every column of every group bit for bit (a line on
 * stderr per path). --dump writes keys (int64) then
 * values (float64) of the first G as raw little-endian arrays for the peers. */
#define _POSIX_C_SOURCE 200809L
#include "bench_common.h"

#include <raid.h>
#include <raid/tuning.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
    size_t n = 10000000;
    const char *groups = "1000,100000", *devices = "cpu,opencl", *dump = NULL, *aggs_s = "sum", *keys_s = "dense",
               *paths = "auto";
    int reps = 3, verify = 0;
    for (int i = 1; i < argc; i += 2) { /* every option takes a value */
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            fprintf(stderr, "bench_groupby: %s needs a value\n", a);
            return 2;
        }
        if (!strcmp(a, "--rows"))
            n = (size_t)strtod(v, NULL);
        else if (!strcmp(a, "--groups"))
            groups = v;
        else if (!strcmp(a, "--device"))
            devices = v;
        else if (!strcmp(a, "--reps"))
            reps = atoi(v);
        else if (!strcmp(a, "--dump"))
            dump = v;
        else if (!strcmp(a, "--aggs"))
            aggs_s = v;
        else if (!strcmp(a, "--keys"))
            keys_s = v;
        else if (!strcmp(a, "--verify"))
            verify = atoi(v);
        else if (!strcmp(a, "--paths"))
            paths = v;
        else {
            fprintf(stderr, "usage: bench_groupby [--rows N] [--groups G,..] [--device D,..] [--reps R] "
                            "[--aggs sum|all] [--keys dense|wide] [--paths auto,global,local,eb,part] [--verify 0|1] [--dump FILE]\n");
            return 2;
        }
    }
    const raid_agg all[] = {RAID_AGG_COUNT, RAID_AGG_SUM, RAID_AGG_MEAN, RAID_AGG_MIN,
                            RAID_AGG_MAX,   RAID_AGG_FIRST, RAID_AGG_LAST};
    const raid_agg sum[] = {RAID_AGG_SUM};
    const int everything = !strcmp(aggs_s, "all"), wide = !strcmp(keys_s, "wide");
    int64_t *k = malloc(n * sizeof *k);
    double *x = malloc(n * sizeof *x);
    if (!k || !x) {
        fprintf(stderr, "bench_groupby: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        x[i] = 100.0 * bench_gauss(i, 1);
    char gl[256];
    snprintf(gl, sizeof gl, "%s", groups);
    int first = 1;
    printf("device,rows,groups,aggs,keys,path,best_s,rows_per_s,kernel_s,upload_s,ids_s,sums_s,download_s,host_s,other_s\n");
    for (char *gs = strtok(gl, ","); gs; gs = strtok(NULL, ",")) {
        const uint64_t G = strtoull(gs, NULL, 10);
        for (size_t i = 0; i < n; i++)
            k[i] = wide ? (int64_t)mix(mix(i) % G) : (int64_t)(mix(i) % G);
        if (dump && first) {
            FILE *f = fopen(dump, "wb");
            if (!f || fwrite(k, sizeof *k, n, f) != n || fwrite(x, sizeof *x, n, f) != n || fclose(f)) {
                fprintf(stderr, "bench_groupby: cannot write %s\n", dump);
                return 1;
            }
        }
        first = 0;
        raid_groupby *ref = NULL; /* --verify 1: the cpu path's result, which every device call must equal */
        if (verify && raid_groupby_compute(NULL, k, x, NULL, n, everything ? all : sum, everything ? 7 : 1, 0, &ref) !=
                          RAID_OK) {
            fprintf(stderr, "bench_groupby: %s\n", raid_errmsg());
            return 1;
        }
        char dl[256];
        snprintf(dl, sizeof dl, "%s", devices);
        char *save = NULL;
        for (char *d = strtok_r(dl, ",", &save); d; d = strtok_r(NULL, ",", &save)) {
            char pl[256];
            snprintf(pl, sizeof pl, "%s", !strcmp(d, "cpu") ? "-" : paths);
            char *psave = NULL;
            for (char *pn = strtok_r(pl, ",", &psave); pn; pn = strtok_r(NULL, ",", &psave)) {
                /* RAID_TUNE_GROUPBY_PATH's values; NULL: removed variants (reserved numbers) */
                static const char *const names[] = {"auto", "global", "local", NULL, "eb", NULL, NULL, NULL, NULL,
                                                    "part"};
                int path = -1;
                for (int j = 0; j < 10; j++)
                    if (names[j] && !strcmp(pn, names[j]))
                        path = j;
                if (path < 0 && strcmp(pn, "-")) {
                    fprintf(stderr, "bench_groupby: unknown path %s\n", pn);
                    return 2;
                }
                raid_ctx *ctx = NULL;
                if (raid_ctx_create(&ctx, d) != RAID_OK) {
                    fprintf(stderr, "bench_groupby: %s: %s\n", d, raid_errmsg());
                    break;
                }
                if (path > 0 && raid_tuning_set(ctx, RAID_TUNE_GROUPBY_PATH, path) != RAID_OK) {
                    fprintf(stderr, "bench_groupby: %s\n", raid_ctx_errmsg(ctx));
                    return 1;
                }
                double best = 1e30;
                raid_timing bt = {0};
                int unsupported = 0;
                for (int r = 0; r < reps + 1 && !unsupported; r++) { /* the first call builds the kernels */
                    raid_groupby *g = NULL;
                    const double t0 = bench_now();
                    const raid_status st = raid_groupby_compute(ctx, k, x, NULL, n, everything ? all : sum,
                                                                everything ? 7 : 1, 0, &g);
                    if (st == RAID_EUNSUPPORTED && path > 0) {
                        printf("%s,%zu,%llu,%s,%s,%s,unsupported (%s)\n", raid_ctx_device_name(ctx), n,
                               (unsigned long long)G, aggs_s, keys_s, pn, raid_ctx_errmsg(ctx));
                        unsupported = 1;
                        break;
                    }
                    if (st != RAID_OK) { /* this path's row says why; the next paths still run */
                        printf("%s,%zu,%llu,%s,%s,%s,failed (%s)\n", raid_ctx_device_name(ctx), n,
                               (unsigned long long)G, aggs_s, keys_s, pn, raid_ctx_errmsg(ctx));
                        unsupported = 1;
                        break;
                    }
                    const double t = bench_now() - t0;
                    raid_timing tm;
                    raid_ctx_last_timing(ctx, &tm);
                    if (r > 0 && t < best)
                        best = t, bt = tm;
                    if (ref && r == 0) { /* every column of every group, bit for bit */
                        const size_t ng = raid_groupby_ngroups(ref), na = raid_groupby_naggs(ref);
                        size_t bad = raid_groupby_ngroups(g) != ng ? ng : 0;
                        for (size_t gi = 0; !bad && gi < ng; gi++)
                            for (size_t j = 0; j < na; j++)
                                if (memcmp(&raid_groupby_column(ref, j)[gi], &raid_groupby_column(g, j)[gi],
                                           sizeof(double)) &&
                                    !(raid_groupby_column(ref, j)[gi] != raid_groupby_column(ref, j)[gi] &&
                                      raid_groupby_column(g, j)[gi] != raid_groupby_column(g, j)[gi])) {
                                    bad++;
                                    break;
                                }
                        fprintf(stderr, "bench_groupby: verify %s %llu groups %s: %s (%zu of %zu groups differ)\n", d,
                                (unsigned long long)G, pn, bad ? "DIFFERS from the cpu path" : "bit for bit the cpu path's",
                                bad, ng);
                    }
                    raid_groupby_destroy(g);
                }
                if (!unsupported) {
                    const double other = best - bt.kernel_s - bt.upload_s - bt.download_s - bt.convert_s;
                    printf("%s,%zu,%llu,%s,%s,%s,%.4f,%.3g,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f\n", raid_ctx_device_name(ctx),
                           n, (unsigned long long)G, aggs_s, keys_s, pn, best, (double)n / best, bt.kernel_s,
                           bt.upload_s, bt.prep_s, bt.kernel_s - bt.prep_s, bt.download_s, bt.convert_s,
                           bt.kernel_s > 0 ? other : 0.0);
                }
                fflush(stdout);
                fflush(stderr);
                raid_ctx_destroy(ctx);
            }
        }
        raid_groupby_destroy(ref);
    }
    free(k), free(x);
    return 0;
}
