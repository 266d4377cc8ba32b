/*
 * raid/tuning.h -- FOR BENCHMARKS AND TESTS ONLY: knobs and measurements that production code never
 * needs. A context that never calls these behaves as documented everywhere else; results do not depend
 * on any knob here except RAID_TUNE_MEAT_ROWS (the last digits of a meat). Errors follow raid/core.h: the
 * context's message, raid_ctx_errmsg(ctx) (ctx NULL: raid_errmsg()).
 * Numbers 3 and 11 are reserved: they selected the regression statistics' host-converting device path
 * (11, RAID_TUNE_REG_HOST_CONVERT) and its uncentred ablation (3, RAID_TUNE_REG_NO_CENTRING), both removed
 * with that path on 2026-12-02 (docs/regression.md); raid_tuning_set refuses them as unknown.
 */
#ifndef RAID_TUNING_H
#define RAID_TUNING_H

#include "raid/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum raid_tuning_knob {
    RAID_TUNE_KERNEL_REPEAT = 1,    /* launches of each batch's kernel on its resident data; the fastest is
                                       reported as kernel time (keeps a GPU at working clocks). >= 1 */
    RAID_TUNE_MAX_BATCH_ELEMS = 2,  /* elements per device batch, 0 = the default (256 MiB of them: 2^25 float64 returns); small values
                                       force many launches (results stay bitwise identical). >= 0 */
    /* 3: reserved (was RAID_TUNE_REG_NO_CENTRING, removed 2026-12-02) */
    RAID_TUNE_KERNEL_CACHE_CAP = 4, /* kernels kept before the least recently used unheld one is evicted;
                                       0 = the default (64). A soft limit: kernels in use are never evicted */
    RAID_TUNE_DIRECT_UPLOAD = 5,    /* 1: reductions over the caller's own float64 arrays (the realized
                                       measures) upload each batch straight from the caller's (pageable)
                                       memory instead of copying it into page-locked staging first; 0 (the
                                       default): staging. Results are identical. 0 or 1 */
    RAID_TUNE_MEAT_ROWS = 6,        /* 1: the cpu backend's robust meat of overlapping windows summed from
                                       every window's rows (the oracle) instead of block sums; the meat then
                                       differs in its last digits (docs/regression.md). 0 or 1 */
    RAID_TUNE_GROUPBY_PATH = 9,     /* the device group-by's aggregation path (docs/groupby.md): 0 automatic,
                                       1 global limb tables, 2 local tables, 4 global exponent-bucket
                                       tables, 9 rows partitioned by group (one pass of the device sort)
                                       then local limb tables per partition (sums, counts, means only; at
                                       most 255 partitions); 3, 5 to 8, 10 to 12 are removed variants
                                       (reserved: RAID_EINVAL). Results are identical. 0 to 12 */
    RAID_TUNE_SELECT_PATH = 10,     /* the device selection (docs/column.md "Selection"): 0 automatic, 1
                                       radix passes only, 2 sampled window first. Results are identical. 0 to 2 */
    /* 11: reserved (was RAID_TUNE_REG_HOST_CONVERT, removed 2026-12-02) */
} raid_tuning_knob;

/** Set a knob on ctx. The device knobs are accepted (and ignored) on the cpu backend, except
 *  RAID_TUNE_KERNEL_CACHE_CAP, which needs a device. Errors: RAID_EINVAL (unknown knob, value out of range). */
RAID_API raid_status raid_tuning_set(raid_ctx *ctx, raid_tuning_knob knob, int64_t value);

/** Extra options appended to every kernel's build options on ctx (e.g. "-cl-nv-verbose", "-DNAME=V");
 *  at most 255 bytes. Never pass fast-math options: the error-free transforms need IEEE rounding.
 *  Errors: RAID_EINVAL (too long). */
RAID_API raid_status raid_tuning_set_build_options(raid_ctx *ctx, const char *options);

/** The realized measures' accumulators (raid_realized_compute's inputs: returns r, nseg + 1 offsets) from
 *  only the kernels of the measure groups in part_mask (bits: 1 rs_neg and rs_pos, 2 bpv, 4 rq and tpq,
 *  8 medrv; 15 is the fused kernel): the fusion ablation of bench_realized. acc (nseg * 6: rs_neg,
 *  rs_pos, bpv, quarticity, tripower, medrv sums, in the squared or fourth powers of the return unit) may
 *  be NULL; the kernel time is in raid_ctx_last_timing. Device contexts only.
 *  Errors: RAID_EINVAL, RAID_EUNSUPPORTED (cpu backend), RAID_ENOMEM, the device errors. */
RAID_API raid_status raid_tuning_realized_parts(raid_ctx *ctx, const double *r, const int64_t *offsets, size_t nseg,
                                                unsigned part_mask, double *acc);

/** The build log of the fused realized kernel for ctx's current settings (built if needed) into buf (len
 *  bytes, NUL-terminated): the compiler's report of e.g. -cl-nv-verbose. Device contexts only.
 *  Errors: RAID_EUNSUPPORTED (cpu backend), RAID_EBUILD, the device errors. */
RAID_API raid_status raid_tuning_realized_build_log(raid_ctx *ctx, char *buf, size_t len);

/** Device-to-device copy bandwidth: the best of reps copies of a buffer of `bytes` (after one warm-up),
 *  in bytes read plus written per second (profiling events). Device contexts only.
 *  Errors: RAID_EINVAL (bytes or reps < 1), RAID_EUNSUPPORTED (cpu backend), the device errors. */
RAID_API raid_status raid_tuning_copy_bandwidth(raid_ctx *ctx, size_t bytes, int reps, double *bytes_per_s);

/** Host-to-device bandwidth: the best of reps uploads of `bytes` from page-locked host memory (after one
 *  warm-up; profiling events) in bytes per second (*pinned), and the wall-clock rate of reps blocking
 *  uploads of the same bytes from ordinary (pageable) malloc'ed memory (*pageable; either pointer may be
 *  NULL). The first is the limit of every call that moves host arrays to the device (issue 12 compares
 *  raid_realized_compute's end-to-end rate with it). Device contexts only.
 *  Errors: RAID_EINVAL (bytes or reps < 1), RAID_EUNSUPPORTED (cpu backend), RAID_ENOMEM, the device errors. */
RAID_API raid_status raid_tuning_upload_bandwidth(raid_ctx *ctx, size_t bytes, int reps, double *pinned,
                                                  double *pageable);

/** The kernel cache's counters since the context was made: kernels held now, programs built, kernels
 *  evicted. Zeros on the cpu backend. */
RAID_API void raid_tuning_kernel_cache(const raid_ctx *ctx, uint64_t *entries, uint64_t *builds, uint64_t *evictions);

#ifdef __cplusplus
}
#endif

#endif /* RAID_TUNING_H */
