/*
 * raid/sort.h -- sorting float64 columns (docs/column.md "Sorting"): sort, stable argsort,
 * (int64 key, float64 value) pairs by key, segmented versions, an optional validity mask.
 * Part of the public API; include <raid.h> for all of it. Conventions: raid/core.h.
 *
 * The order (numpy's np.sort / np.argsort(kind='stable'), Arrow's for nulls):
 *   -inf < negative < -0.0 == +0.0 < positive < +inf < NaN < null,
 * every NaN equal (any sign, any payload), -0.0 equal to +0.0, nulls equal. Every sort is STABLE: equal
 * values keep their input order (so -0.0 and +0.0 stay in input order, NaNs and nulls in input order).
 * A sort returns the input's own values bit for bit (-0.0 stays -0.0, NaN payloads are kept): the
 * output of raid_sort_f64 is exactly np.sort(x, kind='stable'), that of raid_argsort_f64_* exactly
 * np.argsort(x, kind='stable'), NaN included (pandas #12694 returned -1 entries for NaN: never here).
 *
 * Descending (RAID_SORT_DESC): pandas' sort_values(ascending=False, kind='stable', na_position='last'):
 * larger values first, equal values (and -0.0 beside +0.0) still in INPUT order, NaN still after every
 * number, nulls still last. (This is not the reverse of the ascending output, which would reverse ties.)
 *
 * Validity mask (nulls): NULL, or Arrow's validity bitmap: bit i of the mask (byte i / 8, bit i % 8,
 * least significant bit first) is 1 when x[i] is valid, 0 when it is null; bit i is the bit of x's index i
 * (segmented calls: the index into x, offsets[0] included). Nulls sort after NaN, in input order; their
 * values (whatever x holds there) are carried like any other. From numpy:
 * np.packbits(valid_bool, bitorder='little').
 *
 * Segments (the *_seg calls): nseg independent sorts in one call, segment s being x[offsets[s] ..
 * offsets[s+1]) (offsets: nseg + 1 non-decreasing int64, offsets[0] >= 0 may be non-zero: the convention
 * of raid_ma_compute); outputs are written at the same indices, out[offsets[0] .. offsets[nseg]), each
 * segment's slice holding that segment sorted. Argsort indices are indices INTO x (segment s's slice
 * holds a permutation of offsets[s] .. offsets[s+1] - 1): np.lexsort((x, segment_id)) on the range.
 *
 * Paths: ctx NULL or a cpu context: the cpu path (radix sort of the 64-bit order keys, LSD; MSD for long
 * sorts of values; OpenMP; the oracle); a device context: the device path (kernels/col_sort.cl, LSD radix sort with 32-bit
 * operations only). A stable sort has one answer: both paths give the same output bit for bit, on any
 * number of threads or work-groups.
 *
 * Errors (every call): RAID_EINVAL (NULL pointer with n > 0, offsets negative or decreasing, flags
 * unknown, n beyond the index type: more than UINT32_MAX elements for a uint32 argsort), RAID_ENOMEM;
 * device contexts add RAID_EUNSUPPORTED (more than 2^31 - 1 elements in one call) and the device layer's
 * RAID_EDEVMEM, RAID_EDEVICE, RAID_EBUILD. Message: raid_ctx_errmsg(ctx) (ctx NULL: raid_errmsg()).
 * Nothing is written on failure (on a device: unless the final read-back itself fails). Outputs may not
 * overlap the inputs.
 *
 * Device memory (docs/device.md "The caller's device memory"): x and the output (out, idx) of raid_sort_f64,
 * raid_argsort_f64_u32/_i64 and their _seg forms may be CUDA device memory of the context's device (a CUDA
 * context: "cuda:N"): x is read in place (never written), the output written in place; either may be host
 * memory. offsets and the validity bitmap stay host memory, and both arrays of raid_sort_i64_f64 too.
 * Device memory elsewhere (a cpu, NULL or OpenCL context, another device, valid, the pairs) is refused with
 * RAID_EINVAL naming the argument, never read. The caller's work on x must be complete before the call; the
 * library's is complete when it returns.
 */
#ifndef RAID_SORT_H
#define RAID_SORT_H

#include "raid/core.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Flags of every sort call (bitwise or; an enum so that bindings see the names). */
typedef enum raid_sort_flag {
    RAID_SORT_DESC = 1 /* descending: pandas' ascending=False, kind='stable' (ties in input order) */
} raid_sort_flag;

/** Sort n float64 values: out[0 .. n) = np.sort(x, kind='stable') (the input's own bits; nulls last).
 *  x: n values (any double), valid: NULL or the validity bitmap of n bits, flags: 0 or RAID_SORT_DESC.
 *  n = 0 is a no-op. Errors: above. */
RAID_API raid_status raid_sort_f64(raid_ctx *ctx, const double *x, size_t n, const uint8_t *valid, unsigned flags,
                                   double *out);

/** Stable argsort of n float64 values into uint32 indices: idx[0 .. n) = np.argsort(x, kind='stable')
 *  (x[idx[k]] is the k-th value in the order above). n <= UINT32_MAX. Errors: above. */
RAID_API raid_status raid_argsort_f64_u32(raid_ctx *ctx, const double *x, size_t n, const uint8_t *valid,
                                          unsigned flags, uint32_t *idx);

/** The same into int64 indices (numpy's default index type). */
RAID_API raid_status raid_argsort_f64_i64(raid_ctx *ctx, const double *x, size_t n, const uint8_t *valid,
                                          unsigned flags, int64_t *idx);

/** Sort n (key, value) pairs by their int64 key, stably (pairs of equal keys keep their input order):
 *  keys_out[0 .. n), vals_out[0 .. n) = keys[p], vals[p] for p = np.argsort(keys, kind='stable'). The
 *  values are carried, never compared (any bits). flags: 0 or RAID_SORT_DESC (larger keys first, ties in
 *  input order). Errors: above. */
RAID_API raid_status raid_sort_i64_f64(raid_ctx *ctx, const int64_t *keys, const double *vals, size_t n,
                                       unsigned flags, int64_t *keys_out, double *vals_out);

/** Segmented raid_sort_f64: each segment x[offsets[s] .. offsets[s+1]) sorted into the same slice of out
 *  (see "Segments" above). nseg = 0 is a no-op. Errors: above. */
RAID_API raid_status raid_sort_f64_seg(raid_ctx *ctx, const double *x, const int64_t *offsets, size_t nseg,
                                       const uint8_t *valid, unsigned flags, double *out);

/** Segmented stable argsort: idx[offsets[s] .. offsets[s+1]) = offsets[s] + np.argsort(segment s,
 *  kind='stable'), indices into x. uint32: offsets[nseg] <= UINT32_MAX. Errors: above. */
RAID_API raid_status raid_argsort_f64_seg_u32(raid_ctx *ctx, const double *x, const int64_t *offsets, size_t nseg,
                                              const uint8_t *valid, unsigned flags, uint32_t *idx);
RAID_API raid_status raid_argsort_f64_seg_i64(raid_ctx *ctx, const double *x, const int64_t *offsets, size_t nseg,
                                              const uint8_t *valid, unsigned flags, int64_t *idx);

/* ---- The sort job on a CSV file (raid sort; docs/column.md "raid sort") ---- */

typedef struct raid_sort_table raid_sort_table;

/** Read path ("-": standard input; CSV with a header row, read by the table reader of every RAID input:
 *  docs/input.md) and order its data rows by the column `by` (matched case-insensitively), stably: rows
 *  of equal values keep their file order (pandas' sort_values(kind='stable', na_position='last'),
 *  polars' maintain_order). The column's fields are numbers (the table reader's grammar of a generic value
 *  column: decimals, and inf, -inf, nan as numpy, pandas and polars write them, case-insensitively;
 *  docs/input.md) or empty (a null: nulls come last, in file order, in both directions).
 *  - Every non-empty field an integer ([+-]digits) within int64: the column is sorted as int64, exactly
 *    (integers beyond 2^53 too), by raid_sort_i64_f64 with the row numbers carried; an integer beyond
 *    int64 in such a column is an error (RAID_EPARSE at its FILE:LINE:COL).
 *  - Else (a field with a decimal point or an exponent, or a special value): every field is read as the
 *    float64 it rounds to (as pandas reads it: 1e-400 is 0; a decimal beyond float64's range such as
 *    1e400 is refused, "value out of float64's range") and the rows are ordered by raid_argsort_f64_i64,
 *    numpy's order: -inf first, -0.0 equal to 0.0 (file order), inf last among the numbers, then NaN
 *    (file order), then the nulls.
 *  - Text (a field that is not a number) is refused: RAID_EPARSE "FILE:LINE:COL: cannot parse value
 *    'TEXT'" at the first such field.
 *  flags: 0 or RAID_SORT_DESC (larger values first, ties still in file order, nulls still last; see
 *  "Descending" above). The sorts run on ctx: NULL or a cpu context the cpu path, a device context the
 *  device; the same order bit for bit (one stable order exists).
 *  Memory: the whole file is held: every row's bytes, plus about 33 bytes per row (offsets, the values,
 *  the order) and the sort's buffers (about 32 bytes per row while it runs).
 *  *out: the table (raid_sort_table_destroy). Errors: RAID_EINVAL (NULL or empty argument, unknown
 *  flags), RAID_EIO ("FILE: reason"), RAID_EPARSE ("FILE:LINE:COL: what": a missing column, a field
 *  that is not a number, a row of the wrong number of fields, ...), RAID_ENOMEM, the sort's (device)
 *  errors. Message: raid_ctx_errmsg(ctx) (ctx NULL: raid_errmsg()). *out NULL on failure. */
RAID_API raid_status raid_sort_run_csv(raid_ctx *ctx, const char *path, const char *by, unsigned flags,
                                       raid_sort_table **out);
/** Write the table: the header row, then every data row in the sorted order, each row's bytes as they
 *  are in the file (quotes, spaces and line breaks inside quoted fields unchanged; a UTF-8 byte order
 *  mark and blank lines are not rows), each followed by one LF (a CRLF or CR file's row ends become LF).
 *  Errors: RAID_EINVAL (NULL), RAID_EIO. */
RAID_API raid_status raid_sort_table_write_csv(const raid_sort_table *t, FILE *f);
/** The number of data rows of a table (0 for NULL). */
RAID_API size_t raid_sort_table_nrows(const raid_sort_table *t);
/** Notices of the reading by raid_sort_run_csv: the table reader's (docs/input.md), a last line
 *  without a line break ("FILE:LINE: the last line has no line break at its end; ..."). Their number (0
 *  for NULL), and notice i (NULL for NULL or i out of range), valid until raid_sort_table_destroy. */
RAID_API size_t raid_sort_table_notice_count(const raid_sort_table *t);
RAID_API const char *raid_sort_table_notice(const raid_sort_table *t, size_t i);
/** Free a table. NULL is a no-op. */
RAID_API void raid_sort_table_destroy(raid_sort_table *t);

#ifdef __cplusplus
}
#endif

#endif /* RAID_SORT_H */
