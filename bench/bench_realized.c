/*
 * bench_realized: speed of the fused realized kernel (not a test; see bench/README.md).
 *
 * For each N (returns) in segments of --seg-len returns it reports, one line of key=value pairs each:
 *   kernel time (OpenCL events, summed over batches; each batch's kernel is launched --repeat times
 *   back to back on the resident data and the fastest launch counts, so that the device is busy and
 *   at its working clocks as it is for the peers' timed loops), bytes moved to the device, effective read
 *   bandwidth of the kernel; wall time of raid_realized_compute (conversion, transfer, kernel, combine);
 *   the four-separate-kernels ablation (same accumulators, one kernel per measure group);
 *   the device-to-device copy bandwidth of a buffer of the same size (raid_tuning_copy_bandwidth);
 *   the float64 cpu path's wall time.
 * Only the public API (raid.h; the knobs and measurements through raid/tuning.h).
 * With --variants "V1;V2;..." it measures only the fused kernel's time for each variant side by side on
 * the same data (one line each; the first variant's rv of segment 0 as reference): a variant is
 * "[LEN/WG] [kernel build options]", e.g. "4096/256 -DRAID_FOLD=8" or "8192/256 -DRAID_RELOAD=1"
 * ("default" is the default configuration); a variant whose options hold -cl-nv-verbose also prints its
 * build log (NVIDIA: ptxas's registers and memory).
 * usage: bench_realized [--device D] [--precision f32|df] [--seg-len L] [--reps K] [--chunk LEN WG]
 *                       [--cl-options "-DNAME=V"] [--repeat R] [--no-cpu] [--no-ablation] [--variants "V1;V2"] N...
 */
#define _POSIX_C_SOURCE 200809L
#include "raid.h"

#include "bench_common.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Progress lines (stdout, flushed) so that a run stopped by a time limit still shows where it was. */
static double t_start;
static void progress(long long n, const char *what)
{
    printf("# +%.1fs n=%lld %s\n", bench_now() - t_start, n, what);
    fflush(stdout);
}

/* The best wall time of reps plain calls of raid_realized_compute (one launch per batch, as a user's call;
 * the kernel repeat restored to `repeat` afterwards), the timing of that call into *at_best (may be NULL).
 * -1 when a call fails (the message printed). */
static double plain_wall(raid_ctx *dev, const double *r, const int64_t *off, size_t nseg, raid_realized *out, int reps,
                         int repeat, raid_timing *at_best)
{
    double best = INFINITY;
    raid_tuning_set(dev, RAID_TUNE_KERNEL_REPEAT, 1);
    for (int k = 0; k < reps; k++) {
        const double t0 = bench_now();
        if (raid_realized_compute(dev, r, off, nseg, out) != RAID_OK) {
            fprintf(stderr, "device: %s\n", raid_ctx_errmsg(dev));
            return -1;
        }
        const double w = bench_now() - t0;
        if (w < best) {
            best = w;
            if (at_best)
                raid_ctx_last_timing(dev, at_best);
        }
    }
    raid_tuning_set(dev, RAID_TUNE_KERNEL_REPEAT, repeat < 1 ? 1 : repeat);
    return best;
}

/* --variants: the fused kernel's time for each ';'-separated variant "[LEN/WG] [build options]" on the same
 * data, best of reps (each batch's kernel relaunched --repeat times). Returns 0, or 1 after a failure. */
static int kernel_variants(raid_ctx *dev, const char *list, size_t chunk, size_t wg, const double *r,
                           const int64_t *off, size_t nseg, raid_realized *out, int reps, long long n)
{
    char buf[2048];
    snprintf(buf, sizeof buf, "%s", list);
    double rv_ref = NAN;
    for (char *save = NULL, *v = strtok_r(buf, ";", &save); v; v = strtok_r(NULL, ";", &save)) {
        while (*v == ' ')
            v++;
        size_t len = chunk, w = wg;
        const char *opts = v;
        int used = 0;
        if (sscanf(v, "%zu/%zu%n", &len, &w, &used) == 2)
            opts = v + used;
        while (*opts == ' ')
            opts++;
        if (!strcmp(opts, "default"))
            opts = "";
        if (raid_ctx_set_chunk(dev, len, w) != RAID_OK || raid_tuning_set_build_options(dev, opts) != RAID_OK ||
            raid_realized_compute(dev, r, off, nseg, out) != RAID_OK) {
            printf("variant='%s' n=%lld error: %s\n", v, n, raid_ctx_errmsg(dev));
            fflush(stdout);
            return 1;
        }
        if (strstr(opts, "-cl-nv-verbose")) { /* the variant's ptxas report (registers, local memory) */
            static char log[65536];
            if (raid_tuning_realized_build_log(dev, log, sizeof log) == RAID_OK && log[0])
                printf("# variant='%s' build log:\n%s\n", v, log);
        }
        double best = INFINITY;
        raid_timing tm;
        for (int k = 0; k < reps; k++) {
            raid_realized_compute(dev, r, off, nseg, out);
            raid_ctx_last_timing(dev, &tm);
            best = tm.kernel_s < best ? tm.kernel_s : best;
        }
        if (isnan(rv_ref))
            rv_ref = out[0].rv;
        printf("variant='%s' chunk=%zu wg=%zu n=%lld kernel_s=%.6f kernel_GBps=%.1f returns_per_s=%.4g rv0=%.17g "
               "rv0_rel_to_first=%.3e\n", v, len, w, n, best, (double)tm.bytes_in / best / 1e9, (double)n / best,
               out[0].rv, fabs(out[0].rv - rv_ref) / rv_ref);
        fflush(stdout);
    }
    raid_ctx_set_chunk(dev, chunk, wg);
    return 0;
}

int main(int argc, char **argv)
{
    t_start = bench_now();
    const char *device = "opencl";
    raid_precision prec = RAID_PREC_F32;
    long long seg_len = 23400;
    int reps = 3, do_cpu = 1, do_ablation = 1;
    const char *extra = "", *variants = NULL;
    int repeat = 20;
    size_t chunk = 4096, wg = 256;
    long long ns[32];
    int nn = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc)
            device = argv[++i];
        else if (!strcmp(argv[i], "--precision") && i + 1 < argc)
            prec = bench_precision("bench_realized", argv[++i]);
        else if (!strcmp(argv[i], "--seg-len") && i + 1 < argc)
            seg_len = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--cl-options") && i + 1 < argc)
            extra = argv[++i];
        else if (!strcmp(argv[i], "--chunk") && i + 2 < argc) {
            chunk = (size_t)atol(argv[++i]);
            wg = (size_t)atol(argv[++i]);
        } else if (!strcmp(argv[i], "--variants") && i + 1 < argc)
            variants = argv[++i];
        else if (!strcmp(argv[i], "--no-cpu"))
            do_cpu = 0;
        else if (!strcmp(argv[i], "--no-ablation"))
            do_ablation = 0;
        else if (argv[i][0] == '-' || nn >= 32 || atof(argv[i]) < 1) { /* never a mistyped flag read as N = 0 */
            fprintf(stderr, "bench_realized: unknown option or size '%s'\n", argv[i]);
            return 1;
        } else
            ns[nn++] = (long long)atof(argv[i]);
    }
    if (nn == 0) {
        fprintf(stderr, "usage: bench_realized [--device D] [--precision f32|df] [--seg-len L] [--reps K] [--no-cpu] "
                        "[--no-ablation] N...\n");
        return 1;
    }
    raid_ctx *dev = NULL, *cpu = NULL;
    if (raid_ctx_create(&dev, device) != RAID_OK || raid_ctx_create(&cpu, "cpu") != RAID_OK) {
        fprintf(stderr, "bench_realized: %s\n", raid_errmsg());
        return 1;
    }
    raid_ctx_set_precision(dev, prec);
    if (raid_tuning_set_build_options(dev, extra) != RAID_OK ||
        raid_tuning_set(dev, RAID_TUNE_KERNEL_REPEAT, repeat < 1 ? 1 : repeat) != RAID_OK) {
        fprintf(stderr, "bench_realized: %s\n", raid_ctx_errmsg(dev));
        return 1;
    }
    if (raid_ctx_set_chunk(dev, chunk, wg) != RAID_OK) {
        fprintf(stderr, "bench_realized: %s\n", raid_ctx_errmsg(dev));
        return 1;
    }
    printf("# device=%s precision=%s seg_len=%lld threads=%d chunk=%zu wg=%zu repeat=%d cl_options='%s'\n",
           raid_ctx_device_name(dev), prec == RAID_PREC_F32 ? "f32" : "df", seg_len, omp_get_max_threads(), chunk, wg,
           repeat, extra);
    for (int t = 0; t < nn; t++) {
        const long long n = ns[t];
        const size_t nseg = (size_t)((n + seg_len - 1) / seg_len);
        double *r = malloc((size_t)n * sizeof *r);
        int64_t *off = malloc((nseg + 1) * sizeof *off);
        raid_realized *out = malloc(nseg * sizeof *out);
        if (!r || !off || !out) {
            fprintf(stderr, "out of memory for N=%lld\n", n);
            return 1;
        }
#pragma omp parallel for schedule(static)
        for (long long i = 0; i < n; i++)
            r[i] = 1e-4 * bench_gauss((uint64_t)i, 42);
        for (size_t s = 0; s <= nseg; s++)
            off[s] = (int64_t)s * seg_len < n ? (int64_t)s * seg_len : n;

        progress(n, "returns generated");
        if (variants) {
            if (kernel_variants(dev, variants, chunk, wg, r, off, nseg, out, reps, n) != 0)
                return 1;
            free(r);
            free(off);
            free(out);
            continue;
        }
        /* fused: warm-up (kernel build) then best of reps */
        if (raid_realized_compute(dev, r, off, nseg, out) != RAID_OK) {
            fprintf(stderr, "device: %s\n", raid_ctx_errmsg(dev));
            return 1;
        }
        if (extra[0] && t == 0) { /* diagnostics of the fused kernel's build (e.g. -cl-nv-verbose) */
            static char log[65536];
            if (raid_tuning_realized_build_log(dev, log, sizeof log) == RAID_OK && log[0])
                printf("# build log:\n%s\n", log);
        }
        double best_k = INFINITY, best_wall = INFINITY, conv = 0, up = 0, comb = 0, host = 0;
        raid_timing tm;
        /* Kernel time: each batch's kernel relaunched --repeat times on its resident data, the fastest kept. */
        for (int k = 0; k < reps; k++) {
            raid_realized_compute(dev, r, off, nseg, out);
            raid_ctx_last_timing(dev, &tm);
            if (tm.kernel_s < best_k)
                best_k = tm.kernel_s;
        }
        /* Wall time: plain calls (one launch per batch, as a user's call), best of reps. */
        raid_timing at_best;
        if ((best_wall = plain_wall(dev, r, off, nseg, out, reps, repeat, &at_best)) < 0)
            return 1;
        conv = at_best.convert_s, up = at_best.upload_s, comb = at_best.combine_s, host = at_best.host_s;
        const double bytes = (double)tm.bytes_in;
        progress(n, "fused kernel done");
        /* four-kernel ablation */
        double four = 0, part_s[4] = {0};
        for (unsigned m = 1, pi = 0; do_ablation && m <= 8; m <<= 1, pi++) {
            if (raid_tuning_realized_parts(dev, r, off, nseg, m, NULL) != RAID_OK) { /* build */
                fprintf(stderr, "device: %s\n", raid_ctx_errmsg(dev));
                return 1;
            }
            double bk = INFINITY;
            for (int k = 0; k < reps; k++) {
                raid_tuning_realized_parts(dev, r, off, nseg, m, NULL);
                raid_ctx_last_timing(dev, &tm);
                bk = tm.kernel_s < bk ? tm.kernel_s : bk;
            }
            four += bk;
            part_s[pi] = bk;
        }
        if (!do_ablation)
            four = NAN; /* not measured: printed as nan */
        progress(n, do_ablation ? "four-kernel ablation done" : "four-kernel ablation skipped");
        size_t copy_bytes = (size_t)bytes;
        if (copy_bytes > ((size_t)1 << 30))
            copy_bytes = (size_t)1 << 30;
        double copy_bw = NAN;
        if (raid_tuning_copy_bandwidth(dev, copy_bytes, reps, &copy_bw) != RAID_OK)
            copy_bw = NAN;
        /* host-to-device bandwidth of the same bytes (at most 1 GiB), page-locked and pageable */
        double h2d = NAN, h2d_pageable = NAN;
        if (raid_tuning_upload_bandwidth(dev, copy_bytes, reps, &h2d, &h2d_pageable) != RAID_OK)
            h2d = h2d_pageable = NAN;
        double cpu_wall = NAN;
        progress(n, "copy bandwidth done");
        if (do_cpu) {
            raid_realized_compute(cpu, r, off, nseg, out);
            cpu_wall = INFINITY;
            for (int k = 0; k < (reps < 2 ? reps : 2); k++) {
                double t0 = bench_now();
                raid_realized_compute(cpu, r, off, nseg, out);
                double w = bench_now() - t0;
                cpu_wall = w < cpu_wall ? w : cpu_wall;
            }
        }
        printf("n=%lld segments=%zu bytes_in=%.0f kernel_s=%.6f kernel_GBps=%.1f wall_s=%.4f convert_s=%.4f "
               "upload_s=%.4f four_kernels_s=%.6f fused_speedup=%.2f copy_GBps=%.1f kernel_vs_copy=%.3f "
               "cpu_wall_s=%.4f rs_s=%.6f bpv_s=%.6f quart_s=%.6f med_s=%.6f rv0=%.17g\n",
               n, nseg, bytes, best_k, bytes / best_k / 1e9, best_wall, conv, up, four, four / best_k,
               copy_bw / 1e9, (bytes / best_k) / copy_bw, cpu_wall, part_s[0], part_s[1], part_s[2], part_s[3], out[0].rv);
        /* The same end to end with each batch uploaded straight from the caller's pageable array
         * (RAID_TUNE_DIRECT_UPLOAD) instead of the staging copy. */
        double direct_wall = INFINITY;
        if (raid_tuning_set(dev, RAID_TUNE_DIRECT_UPLOAD, 1) == RAID_OK) {
            if ((direct_wall = plain_wall(dev, r, off, nseg, out, reps, repeat, NULL)) < 0)
                return 1;
            raid_tuning_set(dev, RAID_TUNE_DIRECT_UPLOAD, 0);
        }
        /* End to end against the host-to-device bandwidth (target: at least half of it), and where the
         * wall time goes (staging copies overlap the uploads and kernels of the previous batch). */
        printf("n=%lld end_to_end_GBps=%.2f h2d_pinned_GBps=%.2f h2d_pageable_GBps=%.2f end_to_end_vs_h2d=%.3f "
               "breakdown: wall_s=%.4f staging_s=%.4f upload_s=%.4f kernel_s=%.4f combine_s=%.4f host_tail_s=%.4f "
               "direct_upload_wall_s=%.4f direct_end_to_end_GBps=%.2f\n",
               n, bytes / best_wall / 1e9, h2d / 1e9, h2d_pageable / 1e9, bytes / best_wall / h2d, best_wall, conv, up,
               best_k, comb, host, direct_wall, bytes / direct_wall / 1e9);
        fflush(stdout);
        free(r);
        free(off);
        free(out);
    }
    raid_ctx_destroy(dev);
    raid_ctx_destroy(cpu);
    return 0;
}
