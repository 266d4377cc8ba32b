/*
 * raid/arrow.h -- the column operations (sort.h, select.h, groupby.h) on arrays exported through the Arrow C
 * data interface (docs/column.md "Arrow arrays"). Part of the public API; include
 * <raid.h> for all of it. Conventions: raid/core.h.
 *
 * The structs are the Arrow C data interface's, exactly as its specification defines them
 * (https://arrow.apache.org/docs/format/CDataInterface.html, "Structure definitions"), under its
 * ARROW_C_DATA_INTERFACE guard, so that a program including arrow/c/abi.h (or nanoarrow) as well sees
 * one definition. Every function here only READS the exported array: it never calls its release
 * callback (the producer's or the consumer's job, as the specification says) and keeps no pointer into
 * it after returning.
 *
 * Arrays accepted (anything else: RAID_EINVAL naming what is wrong): format "g" (float64) or "l" (int64)
 * as each function says, no children, no dictionary, n_buffers 2 (validity, values), release not NULL
 * (not a released array), offset >= 0 and length >= 0, the values buffer not NULL when offset + length
 * > 0 and aligned to 8 bytes (the specification recommends 64; C needs 8 to read a double), a validity
 * buffer when null_count > 0 (null_count -1, unknown, counts the bitmap's zeros; a null_count that
 * disagrees with the bitmap is refused). The values are read in place at buffers[1] + offset (no copy); the validity bitmap (bit i of the array
 * is bit offset + i of buffers[0], least significant bit first) is passed to raid_sort_f64 in place
 * when offset is a multiple of 8, else as a shifted copy (length / 8 bytes).
 *
 * Nulls: sorts put them last (sort.h: after NaN, in input order); selections skip them, as pandas'
 * skipna and pyarrow.compute's skip_nulls do (the valid values are then gathered into one buffer: a
 * copy of the valid values, the price of select.h taking no mask; none without nulls); group-by takes
 * null VALUES as null rows (groupby.h; the bitmap expanded to one byte a row) and refuses null keys.
 *
 * Paths and errors: those of the functions called (ctx NULL or cpu: the cpu path; a device: its
 * kernels; the same bits). Message: raid_ctx_errmsg(ctx) (ctx NULL: raid_errmsg()). Nothing is written
 * on failure.
 */
#ifndef RAID_ARROW_H
#define RAID_ARROW_H

#include "raid/core.h"
#include "raid/groupby.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
  // Array type description
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;

  // Release callback
  void (*release)(struct ArrowSchema*);
  // Opaque producer-specific data
  void* private_data;
};

struct ArrowArray {
  // Array data description
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;

  // Release callback
  void (*release)(struct ArrowArray*);
  // Opaque producer-specific data
  void* private_data;
};

#endif  // ARROW_C_DATA_INTERFACE

/** Check an exported array against `formats` (the formats accepted, e.g. "g" or "gl": one character
 *  each) and the rules above; *length and *nulls (either may be NULL) get its length and its number of
 *  nulls (counted in the bitmap when null_count is -1). The callers allocate their outputs with it.
 *  Errors: RAID_EINVAL ("arrow array: format 'f' (expected float64 'g')", "... has 1 children", ...;
 *  raid_errmsg()). */
RAID_API raid_status raid_arrow_check(const struct ArrowSchema *schema, const struct ArrowArray *array,
                                      const char *formats, size_t *length, size_t *nulls);

/** Sort a float64 ("g") array: out[0 .. length) as raid_sort_f64 (np.sort(kind='stable'), nulls last,
 *  their slots holding the values the array holds there). flags: 0 or RAID_SORT_DESC. */
RAID_API raid_status raid_arrow_sort(raid_ctx *ctx, const struct ArrowSchema *schema, const struct ArrowArray *array,
                                     unsigned flags, double *out);

/** Stable argsort of a float64 ("g") array into int64 indices relative to the array (its offset not
 *  included): idx[0 .. length) as raid_argsort_f64_i64 (nulls last, in input order: pyarrow.compute's
 *  sort_indices). */
RAID_API raid_status raid_arrow_argsort(raid_ctx *ctx, const struct ArrowSchema *schema,
                                        const struct ArrowArray *array, unsigned flags, int64_t *idx);

/** Sort (int64 "l" key, float64 "g" value) pairs by key as raid_sort_i64_f64: keys_out, vals_out of the
 *  arrays' common length. Errors: RAID_EINVAL also for lengths that differ or nulls in either array (a
 *  pair sort has no mask). */
RAID_API raid_status raid_arrow_sort_pairs(raid_ctx *ctx, const struct ArrowSchema *kschema,
                                           const struct ArrowArray *keys, const struct ArrowSchema *vschema,
                                           const struct ArrowArray *vals, unsigned flags, int64_t *keys_out,
                                           double *vals_out);

/** The selections of select.h on one float64 ("g") array, nulls skipped (the array's valid values are the
 *  one segment): raid_select_kth (*out), raid_select_median (*out; NaN when no value is valid),
 *  raid_select_quantile (out[0 .. nq)), raid_select_minmax (any of the four may be NULL),
 *  raid_select_topk (values[0 .. k), index[0 .. k): indices relative to the array, nulls never among
 *  them; either may be NULL). Errors: those of select.h (RAID_EINVAL for k or q out of range, no valid
 *  value where numpy raises). */
RAID_API raid_status raid_arrow_kth(raid_ctx *ctx, const struct ArrowSchema *schema, const struct ArrowArray *array,
                                    int64_t k, double *out);
RAID_API raid_status raid_arrow_median(raid_ctx *ctx, const struct ArrowSchema *schema,
                                       const struct ArrowArray *array, double *out);
RAID_API raid_status raid_arrow_quantile(raid_ctx *ctx, const struct ArrowSchema *schema,
                                         const struct ArrowArray *array, const double *q, size_t nq, double *out);
RAID_API raid_status raid_arrow_minmax(raid_ctx *ctx, const struct ArrowSchema *schema,
                                       const struct ArrowArray *array, double *min, double *max, double *nanmin,
                                       double *nanmax);
RAID_API raid_status raid_arrow_topk(raid_ctx *ctx, const struct ArrowSchema *schema, const struct ArrowArray *array,
                                     int64_t k, int largest, double *values, int64_t *index);

/** raid_groupby_compute on an int64 ("l") key array without nulls and a float64 ("g") value array of the
 *  same length (its nulls are null rows), or vschema and vals NULL when every aggregation is count (the
 *  rows are then the keys'). aggs, naggs, flags and *out as raid_groupby_compute. Errors: RAID_EINVAL
 *  also for null keys and lengths that differ. */
RAID_API raid_status raid_arrow_groupby(raid_ctx *ctx, const struct ArrowSchema *kschema,
                                        const struct ArrowArray *keys, const struct ArrowSchema *vschema,
                                        const struct ArrowArray *vals, const raid_agg *aggs, size_t naggs,
                                        unsigned flags, raid_groupby **out);

#ifdef __cplusplus
}
#endif
#endif /* RAID_ARROW_H */
