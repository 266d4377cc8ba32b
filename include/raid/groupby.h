/*
 * raid/groupby.h -- group-by aggregation of float64 values by int64 keys, with EXACT group sums
 * (docs/groupby.md). Part of the public API; include <raid.h> for all of it. Conventions: raid/core.h.
 *
 * Rows i in [0, n): key keys[i], value values[i], valid unless valid != NULL and valid[i] == 0 (a
 * validity mask of one byte per row, numpy's bool layout: 0 null, any other value valid; NOT an Arrow bitmap).
 * Every distinct key is a group, null rows included (their group exists, with count 0 if all its rows
 * are null: pandas' groupby). Groups come out in ascending (signed) key order.
 *
 * NaN: by default (flags 0) a NaN value is a value, with IEEE semantics: it is counted, the sum and mean
 * of its group are NaN, so are its min and max (numpy's propagation), and it may be first or last.
 * RAID_GROUPBY_SKIPNA makes every NaN value a null (pandas' groupby, skipna: count, sum, mean, min, max,
 * first and last then equal pandas'). A null row only makes its key's group exist.
 *
 * Aggregations, over the group's valid values v_1 .. v_c (c = count, in row order):
 *   count : c (int64 by raid_groupby_counts; as float64, exact below 2^53, in the aggregation's column)
 *   sum   : the exact sum of the v_k (a rational number) rounded ONCE to the nearest float64, ties to even
 *           (IEEE 754 roundTiesToEven; overflow of the rounded sum gives +-inf). Hence independent of the
 *           row order, of the device and of the number of threads or work-groups, bit for bit. An exact
 *           zero is -0.0 only when c >= 1 and every v_k is -0.0 (IEEE: -0 + -0 = -0, +0 + -0 = +0 and x + -x
 *           = +0 under round-to-nearest); c = 0 gives +0.0 (pandas' and polars' sum of nothing). Infinities
 *           and NaN by IEEE 754: any NaN, or both +inf and -inf, give NaN; else an infinity gives itself.
 *   mean  : the exact sum divided by c, rounded ONCE to the nearest float64 (ties to even): the
 *           correctly rounded mean, also where the sum itself is beyond the largest double ({1.7e308,
 *           1.7e308}: sum +inf, mean 1.7e308; not the rounded sum divided, which overflows); below half the
 *           smallest subnormal it is 0.0 with the quotient's sign. The sum's special values and signed
 *           zeros carry over (NaN, +-inf; -0.0 for a group of -0.0 only); NaN when c = 0.
 *   min, max: the least / greatest v_k, -0.0 ordered below +0.0 (so min{0.0, -0.0} = -0.0, max = 0.0,
 *           whatever the order); NaN when c = 0, or (flags 0) when a v_k is NaN.
 *   first, last: v_1 and v_c (the values of the group's first and last valid rows); NaN when c = 0.
 *
 * Exactness: the cpu path keeps each group's sum as a fixed-point integer of 32-bit chunks over the
 * exponent range the data spans (2^-1074 units); the device path builds the same integer from 32-bit
 * atomic adds with explicit carries (no 64-bit atomics; kernels/col_groupby.cl) and the host rounds
 * it. Memory: about groups x limbs x 8 bytes per cpu thread and groups x 2 limbs x 4 bytes on the device,
 * limbs = floor((exponent span of the data in bits + 85) / 32) + 1: 4 to 6 for prices, at most 67 for data
 * from the smallest subnormal to 1e308 (docs/groupby.md "Memory").
 */
#ifndef RAID_GROUPBY_H
#define RAID_GROUPBY_H

#include "raid/core.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum raid_agg {
    RAID_AGG_COUNT = 0, /* "count" */
    RAID_AGG_SUM = 1,   /* "sum"   */
    RAID_AGG_MEAN = 2,  /* "mean"  */
    RAID_AGG_MIN = 3,   /* "min"   */
    RAID_AGG_MAX = 4,   /* "max"   */
    RAID_AGG_FIRST = 5, /* "first" */
    RAID_AGG_LAST = 6   /* "last"  */
} raid_agg;

#define RAID_AGG_NAGGS 7
/* Flags of raid_groupby_compute (an enum, so that bindings see it). */
typedef enum raid_groupby_flag {
    RAID_GROUPBY_SKIPNA = 1 /* a NaN value is a null (pandas' skipna) */
} raid_groupby_flag;
#define RAID_GROUPBY_MAX_AGGS 64 /* aggregations of one call at most */

/** Parse "count", "sum", "mean", "min", "max", "first" or "last" (exact, lower case). Errors: RAID_EINVAL
 *  (NULL, unknown name; raid_errmsg). */
RAID_API raid_status raid_agg_parse(const char *name, raid_agg *out);
/** The name of an aggregation ("sum", ...); "?" when out of range. */
RAID_API const char *raid_agg_name(raid_agg a);

/* The result: the groups' keys, counts and one float64 column per aggregation asked for (the handle
 * owns them). */
typedef struct raid_groupby raid_groupby;

/** Group n rows by key and compute naggs aggregations (the semantics above) in one pass.
 *  keys: int64[n]; values: float64[n] (may be NULL only when every aggregation is count); valid: NULL (all
 *  valid) or uint8[n] (0 null); aggs[0 .. naggs): 1 <= naggs <= RAID_GROUPBY_MAX_AGGS, repeats allowed;
 *  flags: 0 or RAID_GROUPBY_SKIPNA. n = 0 gives a result with no group.
 *  ctx: NULL or a cpu context: the float64 path on the host (OpenMP over rows, per-thread tables merged;
 *  the result does not depend on the thread count). A device context: kernels/col_groupby.cl forms the
 *  group ids on the device (a direct table when the keys span a small range, else a lock-free hash table
 *  from 32-bit atomic_cmpxchg; the host only orders the distinct keys), then computes counts, exact sums
 *  (32-bit atomics with carries; per-work-group tables in local memory when they fit, else rows
 *  partitioned by group first, or global tables), min and max (two 32-bit atomic passes over 64-bit order keys), first
 *  and last (32-bit atomic min/max of row indices); the host rounds each sum. Every output is bit for bit
 *  the cpu path's.
 *  Device memory (docs/device.md "The caller's device memory"): keys and values may be CUDA device memory of
 *  a CUDA context's device, read in place (the groups' first and last values gathered on the device); valid
 *  and aggs stay host memory, and the result is host memory (ngroups entries). Device memory on a cpu, NULL
 *  or OpenCL context, of another device, or as valid is refused (RAID_EINVAL naming it), never read. The
 *  caller's work on the arrays must be complete before the call; the library's is complete when it returns.
 *  Errors: RAID_EINVAL (NULL pointers, naggs out of range, an aggregation out of range, unknown flags,
 *  device memory it cannot read), RAID_ENOMEM; device contexts add RAID_EUNSUPPORTED (n or the number of
 *  groups 2^32 or more; more than 2^29 rows whose keys span a wide range and hold more than 2^20 distinct
 *  values) and the device layer's
 *  errors (RAID_EDEVMEM, RAID_EDEVICE, RAID_EBUILD). Message: raid_ctx_errmsg(ctx) (ctx NULL:
 *  raid_errmsg()). *out is NULL on failure. */
RAID_API raid_status raid_groupby_compute(raid_ctx *ctx, const int64_t *keys, const double *values,
                                          const uint8_t *valid, size_t n, const raid_agg *aggs, size_t naggs,
                                          unsigned flags, raid_groupby **out);
/** Group n rows by FLOAT64 keys: raid_groupby_compute's arguments, aggregations,
 *  semantics, paths and errors, the keys compared through their order keys (kernels/raid_keys.h, the one
 *  definition; docs/column.md "Order keys"): 0.0 and -0.0 are one group, every NaN (any sign, any
 *  payload) is one group, after +inf. key_valid: NULL (every key valid) or uint8[n], 0 where the row's KEY
 *  is null: the rows of null keys form one group of their own (polars' group_by; pandas' groupby with
 *  dropna=False, which does not tell NaN from null), the last one, after NaN's. (The rows' values keep
 *  their own validity, valid.) Groups come out in numpy's ascending order: -inf, ..., -0.0 == 0.0, ...,
 *  +inf, NaN, null. Implemented over raid_groupby_compute: each key's sort key with its top bit flipped is
 *  an int64 key of the same order, so every aggregation is the int64 call's, bit for bit, on every path.
 *  The result: raid_groupby_keys_f64 gives the groups' keys, raid_groupby_null_group whether the last
 *  group is the null keys' (raid_groupby_keys gives the int64 sort keys, not the doubles). Device memory:
 *  as raid_groupby_compute, except that keys in device memory are copied to the host (n * 8 bytes), where
 *  their order keys are formed; values are read in place; key_valid is host memory. Errors:
 *  raid_groupby_compute's (RAID_EINVAL: keys NULL with n > 0, ...). *out NULL on failure. */
RAID_API raid_status raid_groupby_compute_f64(raid_ctx *ctx, const double *keys, const uint8_t *key_valid,
                                              const double *values, const uint8_t *valid, size_t n,
                                              const raid_agg *aggs, size_t naggs, unsigned flags,
                                              raid_groupby **out);
/** The groups' float64 keys of a raid_groupby_compute_f64 result, ascending (ngroups): +0.0 for the zero
 *  group (whatever signs its rows had), the canonical quiet NaN 0x7FF8000000000000 for the NaN group and
 *  for the null keys' group (raid_groupby_null_group tells them apart), the key's own bits otherwise. NULL
 *  for NULL, no group, or a result of raid_groupby_compute (int64 keys). */
RAID_API const double *raid_groupby_keys_f64(const raid_groupby *g);
/** 1 when the last group of a raid_groupby_compute_f64 result holds the rows of null keys, else 0. */
RAID_API int raid_groupby_null_group(const raid_groupby *g);
/** Free a result. NULL is a no-op. */
RAID_API void raid_groupby_destroy(raid_groupby *g);
/** The number of groups (distinct keys); 0 for NULL. */
RAID_API size_t raid_groupby_ngroups(const raid_groupby *g);
/** The groups' keys, ascending (ngroups of them; NULL for NULL or no group). */
RAID_API const int64_t *raid_groupby_keys(const raid_groupby *g);
/** The groups' counts of valid values (ngroups; NULL for NULL, no group, or a call that asked for neither
 *  count nor mean: the device then keeps no count per row; docs/groupby.md). */
RAID_API const int64_t *raid_groupby_counts(const raid_groupby *g);
/** The number of aggregations asked for. */
RAID_API size_t raid_groupby_naggs(const raid_groupby *g);
/** Aggregation j of the call (RAID_AGG_COUNT .. RAID_AGG_LAST); -1 when j is out of range. */
RAID_API int raid_groupby_agg(const raid_groupby *g, size_t j);
/** The column of aggregation j: ngroups float64 in the groups' order; NULL when j is out of range or
 *  there is no group. */
RAID_API const double *raid_groupby_column(const raid_groupby *g, size_t j);

/* ---- The group-by job on a CSV file (raid groupby; docs/groupby.md "raid groupby") ---- */

typedef struct raid_groupby_table raid_groupby_table;

/** Read path ("-": standard input; CSV with a header row, read by the table reader of every RAID input:
 *  docs/input.md) and aggregate: the key column `by` (decimal numbers, no empty field: int64 keys, exact,
 *  when every key is an integer [+-]digits within int64 (one beyond int64 is an error); else every key is
 *  the float64 it rounds to, grouped by raid_groupby_compute_f64: 0.0 and -0.0 one group) and every value
 *  column named in aggs, "AGG:COL[,AGG:COL...]" with AGG count, sum, mean, min, max, first or last
 *  (raid_groupby_compute's semantics; an empty field of a value column is a null), or a bare "count"
 *  (the rows of the group). Keys and values are numbers of a generic value column: decimals, and inf,
 *  -inf and nan as numpy, pandas and polars write them (docs/input.md). flags: 0 (a nan value is a value:
 *  its group's sum, mean, min and max are NaN, numpy's and polars' rule) or RAID_GROUPBY_SKIPNA (a nan is a
 *  null: pandas' rule). One raid_groupby_compute per value column on ctx (NULL or cpu: the float64 path; a device: its
 *  kernels, the same bits). *out: the table (raid_groupby_table_destroy). Errors: RAID_EINVAL (a bad
 *  aggregation list: its item; more than RAID_GROUPBY_MAX_AGGS items), RAID_EIO (FILE: reason),
 *  RAID_EPARSE ("FILE:LINE:COL: what": a missing column, a key that is not a number or an integer
 *  beyond int64 in a column of integers, a value that is not a number), RAID_ENOMEM, the device's. Message: raid_ctx_errmsg(ctx) (ctx NULL: raid_errmsg()).
 *  *out NULL on failure. */
RAID_API raid_status raid_groupby_run_csv(raid_ctx *ctx, const char *path, const char *by, const char *aggs,
                                          unsigned flags, raid_groupby_table **out);
/** Write the table: header "BY,AGG_COL,...,count" (count for a bare count), one row per group in ascending
 *  key order (float64 keys as the shortest text that reads back, inf and -inf as such, the zero group as
 *  0, the NaN group as nan); sums, means, min, max, first and last likewise, inf, -inf and NaN
 *  written as such (inf, -inf, nan, -nan: the text the table reader reads back as the same bits), an
 *  aggregation of a group without a value (its count 0) as an empty field (a null; its sum is 0), counts
 *  as integers. Errors: RAID_EINVAL (NULL), RAID_EIO. */
RAID_API raid_status raid_groupby_table_write_csv(const raid_groupby_table *t, FILE *f);
/** Notices of the reading by raid_groupby_run_csv: the table reader's (docs/input.md), a last line
 *  without a line break ("FILE:LINE: the last line has no line break at its end; ..."). Their number (0
 *  for NULL), and notice i (NULL for NULL or i out of range), valid until raid_groupby_table_destroy. */
RAID_API size_t raid_groupby_table_notice_count(const raid_groupby_table *t);
RAID_API const char *raid_groupby_table_notice(const raid_groupby_table *t, size_t i);
/** Free a table. NULL is a no-op. */
RAID_API void raid_groupby_table_destroy(raid_groupby_table *t);

#ifdef __cplusplus
}
#endif
#endif /* RAID_GROUPBY_H */
