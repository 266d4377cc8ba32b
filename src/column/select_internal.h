/* The selection engines behind include/raid/select.h (docs/column.md "Selection"): the float64 cpu path
 * (src/column/select_cpu.c, the oracle and the cpu backend) and the device path (src/column/select_device.c,
 * kernels/col_select.cl) answer the same questions about one segment in order keys; src/column/select.c
 * (the public side) turns keys into values and does numpy's float64 arithmetic. Never installed. */
#ifndef RAID_COLUMN_SELECT_INTERNAL_H
#define RAID_COLUMN_SELECT_INTERNAL_H

#include "core/internal.h"

#include <stddef.h>
#include <stdint.h>

#define RAID_SEL_KEY_ZERO 0x8000000000000000ull
#define RAID_SEL_KEY_NAN 0xFFFFFFFFFFFFFFFFull
#define RAID_SEL_NONE ((int64_t)-1)

/* What a pass over a segment learns besides the answer: the NaN count and the first index (in the
 * segment) of a zero (either sign) and of a NaN (RAID_SEL_NONE if none): the input's bits of a zero or NaN
 * result. */
typedef struct RaidSelInfo {
    uint64_t nnan;
    int64_t first_zero, first_nan;
} RaidSelInfo;

/* One order statistic: the key of rank r, the number of keys below it and equal to it. */
typedef struct RaidSelRank {
    uint64_t key, nless, neq;
} RaidSelRank;

/* ---- cpu path (select_cpu.c) ---- */

/* The order statistics of ranks[0..m) (ascending, distinct, each < n) of x[0..n) into res[0..m), and info.
 * RAID_ENOMEM (message on ctx, or raid_errmsg() when ctx is NULL). */
raid_status raidSelCpuRanks(raid_ctx *ctx, const double *x, size_t n, const int64_t *ranks, size_t m,
                               RaidSelRank *res, RaidSelInfo *info);
/* The same on keys a[0..m) whose top c bits are known to be equal (a is reordered; scratch holds m keys);
 * base is added to every nless. The host finish of the device path. RAID_ENOMEM. */
raid_status raidSelKeys(uint64_t *a, uint64_t *scratch, size_t m, int c, const int64_t *ranks, size_t nr,
                          uint64_t base, RaidSelRank *res);
/* Windows of ranks from a sample (the cpu path's one-pass select and the device's window pass): the ranks
 * ranks[0..m) (ascending) of n keys form clusters of ranks within n/256 of their cluster's first (at most
 * RAID_SEL_MAXW clusters); cluster w (ranks[c0[w] .. c0[w + 1])) gets the window [klo, klo + kspan] of keys
 * between the sample's keys at its ranks' sample positions minus and plus a margin of 2 sqrt(ns) + 16
 * positions (four standard deviations of a rank's position in the sample; a window reaching an end of the
 * sample is open there), and expect, the keys it should hold (its sample positions times step). The
 * sample: sk[0..ns), every step-th key (reordered; sk holds 2 ns keys, the second half scratch). A window
 * holds its ranks when the keys below it are at most its first rank and its last rank is below those plus
 * the keys in it; then every key equal to an answer is in it. Returns 1 (W set), 0 (more than
 * RAID_SEL_MAXW clusters), -1 (no memory). */
#define RAID_SEL_MAXW 4
typedef struct RaidSelWindows {
    int nw;
    size_t c0[RAID_SEL_MAXW + 1];
    uint64_t klo[RAID_SEL_MAXW], kspan[RAID_SEL_MAXW], expect[RAID_SEL_MAXW];
} RaidSelWindows;
int raidSelWindowsFromSample(uint64_t *sk, size_t ns, size_t step, size_t n, const int64_t *ranks, size_t m,
                                 RaidSelWindows *W);
/* The k survivors of top-k (largest) or bottom-k of x[0..n) with threshold key K: every key above
 * (below) K and the last (first) t in index order of the keys equal to K, into idx (any order). */
void raidSelCpuSurvivors(const double *x, size_t n, uint64_t K, int largest, size_t k, size_t t, int64_t *idx);
/* The indices (any order) of the k (1 <= k <= n) survivors of top-k (largest) or bottom-k of x[0..n): every
 * key beyond the k-th one's and, of the keys equal to it, the last (largest) or first ones in index order.
 * RAID_ENOMEM. */
raid_status raidSelCpuTopk(raid_ctx *ctx, const double *x, size_t n, size_t k, int largest, int64_t *idx);
/* The smallest key, the largest key that is not NaN's (0 if none), and info of x[0..n) (n >= 1). */
void raidSelCpuMinmax(const double *x, size_t n, uint64_t *kmin, uint64_t *kmax, RaidSelInfo *info);

/* ---- device path (select_device.c) ---- */

typedef struct RaidSelDevice RaidSelDevice;

/* Upload x[0..N) to ctx's device for the calls below. RAID_EUNSUPPORTED (N >= 2^31), the device layer's. */
raid_status raidSelDeviceOpen(raid_ctx *ctx, const double *x, size_t N, RaidSelDevice **out);
void raidSelDeviceClose(RaidSelDevice *s);
/* raidSelCpuRanks on the uploaded x[base .. base + n), n >= 1. */
raid_status raidSelDeviceRanks(RaidSelDevice *s, size_t base, size_t n, const int64_t *ranks, size_t m,
                              RaidSelRank *res, RaidSelInfo *info);
/* raidSelCpuMinmax on the uploaded x[base .. base + n), n >= 1. */
raid_status raidSelDeviceMinmax(RaidSelDevice *s, size_t base, size_t n, uint64_t *kmin, uint64_t *kmax,
                               RaidSelInfo *info);
/* The indices (relative to base, in any order) of the elements of x[base .. base + n) whose key is below
 * (mode 0), at most (1), above (2) or at least (3) key K; exactly cnt of them exist. */
raid_status raidSelDeviceGather(RaidSelDevice *s, size_t base, size_t n, uint64_t K, int mode, int64_t *idx,
                               size_t cnt);

#endif
