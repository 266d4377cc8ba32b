/* The sorts of include/raid/sort.h inside the library: one request, validated by src/column/sort.c, run
 * by the cpu path (src/column/sort_cpu.c) or the device path (src/column/sort_device.c). Never installed. */
#ifndef RAID_COLUMN_SORT_IMPL_H
#define RAID_COLUMN_SORT_IMPL_H

#include "core/internal.h"

#include <stddef.h>
#include <stdint.h>

typedef enum RaidSortOut {
    RAID_SORT_VALUES = 0, /* vout: the values in order */
    RAID_SORT_IDX32 = 1,  /* i32: indices into x (uint32) */
    RAID_SORT_IDX64 = 2,  /* i64: indices into x (int64) */
    RAID_SORT_PAIRS = 3   /* kout, vout: the (ikeys, x) pairs in order of ikeys */
} RaidSortOut;

/* A validated request: segments x[offsets[s] .. offsets[s+1]) (s < nseg, at least one element in all),
 * sorted by the sort key of kernels/raid_keys.h (raidKeySort; for pairs the int64 key with its sign bit
 * flipped, inverted when descending), outputs at the same indices. */
typedef struct RaidSortReq {
    const double *x;       /* the values (pairs: the carried values) */
    const int64_t *ikeys;  /* pairs: the int64 keys; NULL otherwise */
    const int64_t *offsets;
    size_t nseg;
    const uint8_t *valid;  /* NULL or the validity bitmap (bit i: x[i]) */
    int desc;
    RaidSortOut out;
    double *vout;
    uint32_t *i32;
    int64_t *i64, *kout;
    int dev;               /* x or the output is device memory of the context (sort.c's memory(): the device path) */
} RaidSortReq;

/* The cpu path (the oracle). RAID_ENOMEM; message on ctx (may be NULL). */
raid_status raidSortCpu(raid_ctx *ctx, const RaidSortReq *r);
/* The device path on ctx's device: the same outputs bit for bit. RAID_EUNSUPPORTED (more than
 * RAID_SORT_DEVICE_MAX elements), RAID_ENOMEM, the device layer's errors; message on ctx. */
#define RAID_SORT_DEVICE_MAX 2147483648u
raid_status raidSortDevice(raid_ctx *ctx, const RaidSortReq *r);

/* The backends of the sorts (arguments checked, at least one element): the table in sort.c, chosen by
 * RAID_BACKEND(raidSortBackends, ctx). */
typedef struct RaidSortBackend {
    raid_status (*sort)(raid_ctx *ctx, const RaidSortReq *r);
} RaidSortBackend;
extern const RaidSortBackend raidSortBackends[2];

/* One pass of the device sort (kernels/col_sort.cl sort_pass, built with -DSORT_PDIG=1) as a partition: the
 * n rows' 64-bit words vin (2n uint words) and uint32 tags tin (n words) reordered, stably, by the digit
 * (tag >> shift) & 255 into vout and tout (n rows each); bases (a device buffer of 256 words): digit d's
 * first position (the exclusive scan of the digits' counts, which the caller has counted: a wrong count writes
 * outside the run of its digit). Onesweep's single pass (docs/column.md "Sorting"): one read and one coalesced
 * write of each row. The kernel time into ctx->timing.kernel_s (the timing is not reset); RAID_SORT_PROFILE
 * prints it. The group-by's partitioned path (src/column/groupby_device.c). RAID_EUNSUPPORTED where work-groups
 * hold fewer than 256 work-items, or for n of RAID_SORT_DEVICE_MAX or more (the pass's look-back words hold a
 * digit's count over tiles below 2^31, its flag in bit 31: a digit of 2^31 rows would lose 2^31 of them);
 * the device layer's errors. Tags and bases are the caller's to check. */
struct RaidBuf;
raid_status raidSortDevicePartition(raid_ctx *ctx, const struct RaidBuf *vin, const struct RaidBuf *tin, uint32_t n,
                                   int shift, const struct RaidBuf *bases, struct RaidBuf *vout,
                                   struct RaidBuf *tout);

#endif
