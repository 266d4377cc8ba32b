/*
 * raid/select.h -- order statistics of float64 columns without sorting (docs/column.md
 * "Selection"): the k-th smallest value, the median, quantiles with numpy's linear interpolation, top-k
 * and bottom-k, min and max (NaN-propagating and NaN-skipping).
 * Part of the public API; include <raid.h> for all of it. Conventions: raid/core.h.
 *
 * The standard followed is numpy's (version 2): np.partition(x, k)[k], np.median(x),
 * np.quantile(x, q) (method='linear', q float64), np.min/np.max, np.nanmin/np.nanmax and
 * np.sort(x, kind='stable')[:k] / [-k:][::-1]. Everything is selected on the float64 ORDER KEYS
 * (kernels/raid_keys.h, docs/column.md "Order keys"), so the order is numpy's sort order:
 * -inf < negatives < -0.0 == +0.0 < positives < +inf < NaN. No float arithmetic is done except the
 * median's mean and the quantile's interpolation, both in float64 on the host, operation for operation as
 * numpy does them, so the results are numpy's bit for bit (with the one freedom below).
 *
 * Input: the values of all segments back to back, segment s is x[offsets[s] .. offsets[s+1]) (offsets
 * has nseg + 1 non-decreasing entries, offsets[0] >= 0 may be non-zero: the convention of
 * raid_ma_compute), one result (or one row of results) per segment; one array is offsets {0, n},
 * nseg = 1. Any double is accepted (NaN, +-inf, -0.0, subnormals).
 *
 * Which element is returned: where a result is an element of the input (k-th value, min, max, the two
 * order statistics of a median or quantile, NaN results), it is the input's own bits of the FIRST
 * element (lowest index in the segment) holding that order key. Elements with one key have the same bits
 * except for -0.0/+0.0 and NaN payloads, so this only decides which zero's sign and which NaN's payload
 * come back; numpy returns "an element equal to it", chosen by its introselect (for zeros and NaNs not
 * always the first). A NaN result is the first NaN of the segment.
 *
 * Paths: ctx NULL or a cpu context: radix select on the host (histogram of the top 16 bits of the keys,
 * descend into the buckets holding the wanted ranks, several ranks in one pass set; a bucket holding more
 * than an eighth of the keys is narrowed by another counting pass over the data; O(n) per call; OpenMP
 * over the passes over the data). A device context: kernels/col_select.cl, radix select with 32-bit
 * operations only (per pass a histogram of the next 11-bit digit of the keys that match the prefix found
 * so far, local then global 32-bit atomics; candidates compacted once they are few, finished on the host
 * when at most 65,536 remain), min/max in two passes over the keys' high then low words. Both paths
 * return identical bits (tests/test_select.c). Device contexts take at most 2^31 - 1 values per call
 * (RAID_EUNSUPPORTED beyond) and process the segments one after another.
 *
 * Device memory (docs/device.md "The caller's device memory"): x and out of raid_select_kth, _median,
 * _quantile and x and the four outputs of raid_select_minmax may be CUDA device memory of the context's device
 * (a CUDA context): x is read in place; the host fetches only the elements a result is made of (the first NaN
 * or zero of a segment, 8 bytes each) and, for a quantile whose interpolated order statistics include a zero,
 * copies the segment from its first zero on to scan for that zero's sign; the nseg results are written with
 * one copy. offsets and q stay host memory. raid_select_topk takes host memory only (its survivors and ties
 * are read on the host). Device memory elsewhere (a cpu, NULL or OpenCL context, another device, top-k) is
 * refused with RAID_EINVAL naming the argument, never read. The caller's work on x must be complete before
 * the call; the library's is complete when it returns.
 *
 * Errors (every function): RAID_EINVAL (NULL pointers where data is needed, offsets negative or
 * decreasing, and the per-function domain errors below; the message names the segment), RAID_ENOMEM;
 * device contexts add RAID_EUNSUPPORTED and the device layer's (RAID_EDEVMEM, RAID_EDEVICE, RAID_EBUILD).
 * Message: raid_ctx_errmsg(ctx) (ctx NULL: raid_errmsg()). Nothing is written on failure.
 */
#ifndef RAID_SELECT_H
#define RAID_SELECT_H

#include "raid/core.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The k-th smallest value of each segment (0-based; numpy's np.partition(x, k)[k]): out[s], nseg
 *  values. k may be negative, counting from the end as numpy does (k = -1: the largest): the rank is
 *  k + len for k < 0. NaNs rank last (k >= len - count(NaN) gives NaN).
 *  Errors: RAID_EINVAL also when the rank is outside [0, len) for a segment (an empty segment included:
 *  numpy raises). */
RAID_API raid_status raid_select_kth(raid_ctx *ctx, const double *x, const int64_t *offsets, size_t nseg, int64_t k,
                                     double *out);

/** The median of each segment as np.median: the middle order statistic a (odd length) or the two middle
 *  ones a <= b (even length), returned as (0.0 + a) / 1 and ((0.0 + a) + b) / 2 in float64 (numpy's
 *  mean with its additive identity: -0.0 comes back as +0.0, two infinities of opposite signs give NaN,
 *  a + b may overflow to inf as in numpy). Any NaN in the segment gives NaN (its first NaN). An empty
 *  segment gives NaN (numpy returns nan with a RuntimeWarning). out[s], nseg values. */
RAID_API raid_status raid_select_median(raid_ctx *ctx, const double *x, const int64_t *offsets, size_t nseg,
                                        double *out);

/** Quantiles of each segment as np.quantile(x, q) with method='linear' (Hyndman and Fan's definition 7)
 *  and float64 q: h = (len - 1) q in float64, the order statistics a = x_(floor h) and b = x_(floor h + 1)
 *  (both the last, x_(len-1), when h >= len - 1, with weight t = h + 1 as numpy's index arithmetic
 *  gives), t = h - floor h, and numpy's _lerp: d = b - a; r = a + d t; r = b - d (1 - t) where t >= 0.5.
 *  So inf among the two order statistics gives NaN where numpy does (inf - inf, 0 inf). Any NaN in
 *  the segment gives NaN for every q (its first NaN). q[0 .. nq): each in [0, 1] (NaN refused, as numpy
 *  refuses it); out[s nq + j] for segment s and q[j] (nseg nq values). All q of a segment are selected in
 *  one pass set.
 *  Errors: RAID_EINVAL also for q NULL with nq > 0, a q outside [0, 1], an empty segment (numpy raises
 *  IndexError). */
RAID_API raid_status raid_select_quantile(raid_ctx *ctx, const double *x, const int64_t *offsets, size_t nseg,
                                          const double *q, size_t nq, double *out);

/** Minimum and maximum of each segment: min[s], max[s] as np.min / np.max (any NaN gives NaN: the
 *  segment's first NaN), nanmin[s], nanmax[s] as np.nanmin / np.nanmax (NaNs skipped; a segment of NaNs
 *  only gives its first NaN, where numpy warns and returns nan). Any of the four outputs may be NULL (not
 *  computed). -0.0 and +0.0 are equal: the first of them in the segment comes back. One pass over the
 *  keys on the cpu path, two 32-bit passes (high words, then low words) on a device.
 *  Errors: RAID_EINVAL also for an empty segment (numpy raises: no identity). */
RAID_API raid_status raid_select_minmax(raid_ctx *ctx, const double *x, const int64_t *offsets, size_t nseg,
                                        double *min, double *max, double *nanmin, double *nanmax);

/** The k largest (largest = 1) or k smallest (largest = 0) values of each segment, in order, without
 *  sorting the segment: the threshold key by radix select, then only the k survivors gathered and sorted.
 *  Exactly np.sort(x, kind='stable')[-k:][::-1] (largest) and np.sort(x, kind='stable')[:k] (smallest),
 *  bit for bit, with their indices np.argsort(x, kind='stable')[-k:][::-1] / [:k] (relative to the
 *  segment's start). So NaNs come first among the largest and last among the smallest, and equal keys
 *  (ties, -0.0 with +0.0, NaNs) are taken in index order among the smallest and in reverse index order
 *  among the largest (the later elements are the larger ones in a stable sort). values[s k + j] and
 *  index[s k + j], j < k; either may be NULL. k = 0 writes nothing.
 *  On a device, ties at the threshold key beyond those taken are resolved by a host scan of the segment
 *  from its start (smallest) or end (largest) until enough are found.
 *  Errors: RAID_EINVAL also for k < 0 or k greater than a segment's length. */
RAID_API raid_status raid_select_topk(raid_ctx *ctx, const double *x, const int64_t *offsets, size_t nseg, int64_t k,
                                      int largest, double *values, int64_t *index);

/* ---- The quantile job on a CSV file (raid quantile; docs/column.md "raid quantile") ---- */

typedef struct raid_quantile_table raid_quantile_table;

/** Read path ("-": standard input; CSV with a header row, the table reader of every RAID input) and take
 *  quantiles of the value column `col` (numbers of a generic value column: decimals, inf, -inf and nan,
 *  docs/input.md; an empty field is a null, skipped, as pandas' quantile skips NaN; a nan is a value and
 *  makes its group's quantiles NaN, as numpy's): qs "Q[,Q...]" (decimals in [0, 1], at most 1,024),
 *  numpy's method='linear' (raid_select_quantile). by: NULL (one row) or a key column (decimal int64): one
 *  row per key in ascending order (the rows sorted stably by key with raid_sort_i64_f64, then the groups
 *  selected as segments), NaN for a key without a value. ctx: NULL or cpu (the float64 path) or a device (its sort
 *  and select kernels; the same bits). Errors: RAID_EINVAL (a bad q list: a q not a decimal in [0, 1], more
 *  than 1,024, or a q given twice, the numbers compared: "quantile '0.50' given twice (the same q as
 *  '0.5')"), RAID_EIO, RAID_EPARSE ("FILE:LINE:COL: what"), RAID_ENOMEM, the device's. Message:
 *  raid_ctx_errmsg(ctx) (ctx NULL: raid_errmsg()). *out NULL on failure. */
RAID_API raid_status raid_quantile_run_csv(raid_ctx *ctx, const char *path, const char *col, const char *qs,
                                           const char *by, raid_quantile_table **out);
/** Write "[KEY,]qQ1,qQ2,..." (the q as given), one row per key (or one row), numbers as the shortest text
 *  that reads back as the same double, inf,
 *  -inf and a NaN quantile written as such (inf, -inf, nan or -nan: the text the table reader reads back as
 *  the same bits), a key without a value as empty fields. Errors: RAID_EINVAL (NULL), RAID_EIO. */
RAID_API raid_status raid_quantile_table_write_csv(const raid_quantile_table *t, FILE *f);
/** Notices of the reading by raid_quantile_run_csv: the table reader's (docs/input.md), a last line
 *  without a line break ("FILE:LINE: the last line has no line break at its end; ..."). Their number (0
 *  for NULL), and notice i (NULL for NULL or i out of range), valid until raid_quantile_table_destroy. */
RAID_API size_t raid_quantile_table_notice_count(const raid_quantile_table *t);
RAID_API const char *raid_quantile_table_notice(const raid_quantile_table *t, size_t i);
/** Free a table. NULL is a no-op. */
RAID_API void raid_quantile_table_destroy(raid_quantile_table *t);

#ifdef __cplusplus
}
#endif
#endif /* RAID_SELECT_H */
