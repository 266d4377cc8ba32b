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
 *  NULL). The first is the limit of every call that moves host arrays to the device (bench_realized compares
 *  raid_realized_compute's end-to-end rate with it). Device contexts only.
 *  Errors: RAID_EINVAL (bytes or reps < 1), RAID_EUNSUPPORTED (cpu backend), RAID_ENOMEM, the device errors. */
RAID_API raid_status raid_tuning_upload_bandwidth(raid_ctx *ctx, size_t bytes, int reps, double *pinned,
                                                  double *pageable);

/* Fault injection (tests only; docs/testing.md "Faults"). Every call of the device layer that can fail is a
 * point of one kind; armed on a context, the switch counts the points that context passes and makes one of
 * them fail as the backend's own error would, mapped to the library's status by the same path:
 *   RAID_FAULT_ALLOC     a device buffer (raidBufAcquire, pooled or not): clCreateBuffer with
 *                        CL_MEM_OBJECT_ALLOCATION_FAILURE -> RAID_EDEVMEM
 *   RAID_FAULT_HOST      page-locked staging (raidHostAcquire) when ordinary memory runs out too -> RAID_ENOMEM
 *   RAID_FAULT_BUILD     a kernel from the cache (raidKernelGet, built or found): CL_BUILD_PROGRAM_FAILURE
 *                        -> RAID_EBUILD
 *   RAID_FAULT_UPLOAD    host to device (clEnqueueWriteBuffer): CL_OUT_OF_RESOURCES -> RAID_EDEVMEM
 *   RAID_FAULT_LAUNCH    a command run on the device (clEnqueueNDRangeKernel, clEnqueueFillBuffer,
 *                        clEnqueueCopyBuffer): CL_OUT_OF_RESOURCES -> RAID_EDEVMEM
 *   RAID_FAULT_DOWNLOAD  device to host (clEnqueueReadBuffer): CL_OUT_OF_RESOURCES -> RAID_EDEVMEM
 *   RAID_FAULT_SYNC      a wait (clWaitForEvents, clFinish, clFlush; it still waits, then reports
 *                        CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, as a failed command does)
 *                        -> RAID_EDEVLOST
 * The output files of include/raid/outfile.h have three more kinds, counted per process and armed only by the
 * environment (RAID_FAULT, below): RAID_FAULT_WRITE (from the n-th write(2) of an output on the disk is
 * full: that write is short, half its bytes, and every later one fails with ENOSPC), RAID_FAULT_CLOSE (its
 * close(2) fails with EIO, as NFS reports a failed write-back) and RAID_FAULT_RENAME (the rename over the
 * destination fails with EIO).
 * The environment variable RAID_FAULT=KINDS:N[+] arms every device context made while it is set (and the
 * output files); KINDS is a comma-separated list of alloc, host, build, upload, launch, download, sync, device
 * (all seven), write, close, rename; N >= 1 the point that fails (0: count only); "+" makes every later point
 * of those kinds fail too. A context so armed writes the points it passed to standard error when destroyed
 * ("raid: RAID_FAULT: N device points (alloc A, host H, ...), F failed"); a malformed value fails
 * raid_ctx_create with RAID_EINVAL. Off (the default), a point costs one test of a NULL pointer. */
typedef enum raid_fault_kind {
    RAID_FAULT_ALLOC = 1 << 0,
    RAID_FAULT_HOST = 1 << 1,
    RAID_FAULT_BUILD = 1 << 2,
    RAID_FAULT_UPLOAD = 1 << 3,
    RAID_FAULT_LAUNCH = 1 << 4,
    RAID_FAULT_DOWNLOAD = 1 << 5,
    RAID_FAULT_SYNC = 1 << 6,
    RAID_FAULT_DEVICE = (1 << 7) - 1, /* the seven kinds of the device layer */
    RAID_FAULT_WRITE = 1 << 7,
    RAID_FAULT_CLOSE = 1 << 8,
    RAID_FAULT_RENAME = 1 << 9
} raid_fault_kind;

/** Arm the fault switch of ctx: count from now on the points of the kinds in `kinds` (RAID_FAULT_* bits of
 *  the device layer; 0 turns the switch off) and make the point numbered `at` fail (1 the first; 0 counts
 *  only), with sticky = 1 every later point of those kinds too. Resets the counters. Device contexts only.
 *  Errors: RAID_EINVAL (ctx NULL, kinds outside RAID_FAULT_DEVICE), RAID_EUNSUPPORTED (cpu backend), RAID_ENOMEM. */
RAID_API raid_status raid_tuning_fault(raid_ctx *ctx, unsigned kinds, uint64_t at, int sticky);

/** Points of the kinds in `kinds` (a subset of those armed) that ctx has passed since raid_tuning_fault; the
 *  failures injected so far into *fired (may be NULL), and the kind and the backend call of the first into
 *  *kind and *what (may be NULL; 0 and "" when none fired). 0 when the switch was never armed. */
RAID_API uint64_t raid_tuning_fault_points(const raid_ctx *ctx, unsigned kinds, uint64_t *fired, unsigned *kind,
                                           const char **what);

/** The kernel cache's counters since the context was made: kernels held now, programs built, kernels
 *  evicted. Zeros on the cpu backend. */
RAID_API void raid_tuning_kernel_cache(const raid_ctx *ctx, uint64_t *entries, uint64_t *builds, uint64_t *evictions);

#ifdef __cplusplus
}
#endif

#endif /* RAID_TUNING_H */
