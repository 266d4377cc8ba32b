/*
 * raid/ma.h -- moving averages and rolling statistics of many price series at once (technical analysis:
 * docs/ta.md), and the input they read.
 * Part of the public API; include <raid.h> for all of it. Conventions: raid/core.h.
 *
 * Statistics (window n, x the values of one series, t the output index; docs/ta.md gives the formulas):
 *   sum   : sum of x over the last n values                         (TTR runSum)
 *   mean  : sum / n                                                 (TTR runMean, SMA)
 *   sumsq : sum of x^2 over the last n values
 *   var   : SAMPLE variance of the last n values, divisor n - 1      (TTR runVar, sample = TRUE, its
 *           default; NAN for n = 1, as TTR gives)
 *   wma   : linear weights 1..n, the newest value weighted n, divided by n (n + 1) / 2   (TTR WMA, wts 1:n)
 *   ema   : alpha = 2 / (n + 1); seeded at the n-th value with the simple mean of the first n values, then
 *           e_t = alpha x_t + (1 - alpha) e_{t-1}                      (TTR EMA, wilder = FALSE, its default)
 *   hma   : WMA(2 WMA(x, trunc(n/2)) - WMA(x, n), trunc(sqrt(n)))      (TTR HMA; n >= 2)
 *
 * Conventions, those of R's TTR package (version 0.24) unless said otherwise:
 *   - Output t is NAN until its window is complete: the first n - 1 values for sum, mean, sumsq, var,
 *     wma and ema; the first (n - 1) + (trunc(sqrt(n)) - 1) for hma (raid_ma_warmup).
 *   - Leading NAN values of a series shift the output: the series starts at its first value that is not
 *     NAN (TTR skips leading NAs; TTR issues #96, #113), so the warm-up begins there.
 *   - A NAN after the first value (an "inner" NAN; TTR stops with "Series contains non-leading NAs")
 *     splits the series: every maximal run of values that are not NAN is treated as a series of its own.
 *     So every window that contains a NAN is NAN, the EMA restarts after it (NAN again for n - 1 values,
 *     then seeded by the mean of the n values after the NAN), and the HMA warms up again after it. Leading
 *     NAN are the special case of a run that starts later.
 *   - A window longer than the series (or than a run) gives NAN throughout (TTR stops with an error).
 *   - wma with n = 1 is x itself (TTR 0.24 also sets its first value NA: a quirk not copied).
 *
 * Precision: float64 results of exact sums. sum and sumsq are the float64 nearest the exact window sum;
 * mean, wma and var that nearest value (var: of its exact numerator n sum x^2 - (sum x)^2) divided by n,
 * n(n+1)/2 or n(n-1) in float64 (within 2u + u^2 relative, u = 2^-53). The sums are integers in 128-bit
 * fixed point, kept by O(1) running updates that round nothing; where a block of values spans too many
 * bits for 128 (1e100 beside 1e-100, values near underflow) each window is summed directly with
 * compensated accumulation (TwoSum, src/core/dd.h), products with their fma error, within a few units in
 * the last place (docs/ta.md "Precision" gives both bounds). Cost O(1) per output (O(n) where directly
 * summed; everywhere with a compiler that has no __int128). The result does not depend on the number of
 * threads. These are the oracle of the device kernels (docs/ta.md "The device path and its bound"). EMA
 * follows TTR's recursion operation for operation (the seed's sum compensated).
 */
#ifndef RAID_MA_H
#define RAID_MA_H

#include "raid/core.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum raid_ma_stat {
    RAID_MA_SUM = 0,   /* "sum"   */
    RAID_MA_MEAN = 1,  /* "mean"  */
    RAID_MA_SUMSQ = 2, /* "sumsq" */
    RAID_MA_VAR = 3,   /* "var"   */
    RAID_MA_WMA = 4,   /* "wma"   */
    RAID_MA_EMA = 5,   /* "ema"   */
    RAID_MA_HMA = 6    /* "hma"   */
} raid_ma_stat;

#define RAID_MA_NSTATS 7
#define RAID_MA_MAX_WINDOW 1073741824 /* 2^30: the largest window */
#define RAID_MA_MAX_VALUE 1e100       /* the largest |x| accepted (sumsq of a window stays far from overflow) */

/** Parse "sum", "mean", "sumsq", "var", "wma", "ema" or "hma" (exact, lower case); "sma" (R TTR's SMA) is
 *  "mean". Errors: RAID_EINVAL
 *  (NULL, unknown name; raid_errmsg). */
RAID_API raid_status raid_ma_stat_parse(const char *name, raid_ma_stat *out);
/** The name of a statistic ("sum", ...); "?" when out of range. */
RAID_API const char *raid_ma_stat_name(raid_ma_stat s);
/** The number of leading NAN of a series without NAN: n - 1, or for hma n - 1 + trunc(sqrt(n)) - 1.
 *  -1 when stat or n is invalid (n < 1, n > RAID_MA_MAX_WINDOW, hma with n < 2). */
RAID_API int64_t raid_ma_warmup(raid_ma_stat stat, int64_t n);

/** Compute statistic stat with window n of nseg series (segments) in one call.
 *  x: the values of all series back to back, each in time order (index order is time order: there are
 *  no dates here to check; raid_ma_read_csv checks a file's, raid_dates_check_order of
 *  include/raid/reader.h a binding's), series s is x[offsets[s] .. offsets[s+1]) (offsets has
 *  nseg + 1 non-decreasing entries, offsets[0] >= 0 may be non-zero: the convention of
 *  raid_realized_compute). Values in price units (sum, mean, wma, ema, hma: the same units; sumsq, var:
 *  squared units); each finite with |x| <= RAID_MA_MAX_VALUE, or NAN (missing: the NAN rules above).
 *  out: written at the same indices, out[offsets[0] .. offsets[nseg]) (may not overlap x). nseg = 0 is
 *  a no-op. ctx: NULL or a cpu context: float64 on the host (OpenMP over the points of a window
 *  statistic, outputs independent of the thread count); a device context: kernels/ta_ma.cl, direct
 *  double-float window sums, the same NAN positions bit for bit and values within the bound of docs/ta.md
 *  ("The device path and its bound": wma 2 u^2 max|x|, u = 2^-24; windows above 2^24 stay on the host).
 *  Series are independent.
 *  Errors: RAID_EINVAL (NULL pointers, offsets negative or decreasing, stat out of range, n < 1 or
 *  > RAID_MA_MAX_WINDOW, hma with n < 2, a value infinite or beyond RAID_MA_MAX_VALUE: the message names
 *  its series and index), RAID_ENOMEM; message raid_ctx_errmsg(ctx) (ctx NULL: raid_errmsg()). Nothing
 *  is written on failure. Device contexts add RAID_EUNSUPPORTED (more than 2^29 values in one call) and
 *  the device layer's errors (RAID_EDEVMEM, RAID_EDEVICE, RAID_EBUILD). */
RAID_API raid_status raid_ma_compute(raid_ctx *ctx, raid_ma_stat stat, int64_t n, const double *x,
                                     const int64_t *offsets, size_t nseg, double *out);

/** THE TRAP, kept only to show it (docs/ta.md "The prefix-sum trap"; `--formulation prefix` of the sweep):
 *  the WMA of one series of len values from two float32 prefix sums, S1_t = sum_{k<=t} x_k and
 *  S2_t = sum_{k<=t} (k+1) x_k, as WMA_t = ((S2_t - S2_{t-n}) - (t-n+1)(S1_t - S1_{t-n})) / (n(n+1)/2),
 *  every operation rounded to float32 (as a float32 device would do it). Its intermediates grow like
 *  price x len^2 (about 3e14 at price 30,000 over 150,000 bars) and cancel: the relative error against
 *  the float64 WMA reaches 1e1 to 1e2 there (tests/test_ma.c measures it). Never use its values.
 *  x finite (no NAN rules: every value is used), out[0 .. len): NAN for t < n - 1, n in [1, len] or any
 *  n >= 1 (all NAN when n > len).
 *  Errors: RAID_EINVAL (NULL, n out of range, a value not finite; raid_errmsg), RAID_ENOMEM. */
RAID_API raid_status raid_ma_wma_prefix_f32(const double *x, size_t len, int64_t n, double *out);

/* ------------------------------------------------------------------------------------------------ */
/* Input: price series per symbol from a CSV file (raid ma)                                          */
/* ------------------------------------------------------------------------------------------------ */

/* Series read from CSV: the values of every symbol back to back (raid_ma_compute's x and offsets), the
 * date of each row as text, the symbol names. Arrays and strings belong to the handle. */
typedef struct raid_ma_input raid_ma_input;

/** Read a CSV of prices (one row per symbol and date, the rows of a symbol contiguous, in time order:
 *  each date after the symbol's previous one by raid_date_compare of include/raid/reader.h; "-" reads
 *  standard input). A header without data rows is an input without series (nrows 0, offsets {0}). Columns by name, case-insensitively: names[0] symbol (default "symbol",
 *  optional; required when named), names[1] the date (default: "date", else "timestamp"; kept as text, written back as given,
 *  not empty), names[2] the value (default "close"); names may be NULL, or entries NULL for the defaults.
 *  Values: decimal numbers, an empty field is NAN (missing: the NAN rules of raid_ma_compute); a value
 *  too large (|x| > RAID_MA_MAX_VALUE, or an overflow) is an error. Read by RAID's one table reader
 *  (docs/input.md: byte order mark, RFC 4180 quotes, CR/LF/CRLF, UTF-8 symbols, decimal numbers only).
 *  Errors (raid_errmsg, "FILE:LINE:COL: ..." for bad input): RAID_EIO, RAID_EPARSE (missing column,
 *  bad number, empty date "FILE:LINE:COL: empty date (every row needs one)", a symbol's rows not
 *  contiguous, a date that does not come after the symbol's previous one "FILE:LINE:COL: SYM: date 'D'
 *  comes before 'P' on line L (the rows of a symbol must be in time order: ...)" or "repeats", ...), RAID_EINVAL (NULL),
 *  RAID_ENOMEM. *out NULL on failure. */
RAID_API raid_status raid_ma_read_csv(const char *path, const char *const *names, raid_ma_input **out);

#define RAID_MA_MAX_COLUMNS 4 /* value columns of one read */
/** raid_ma_read_csv with several value columns (the sweep's close and open; raid_ma_read_csv is this with
 *  the one column names[2]): names[0] (symbol) and names[1] (date) as there (names[2] unused), cols[0..ncols)
 *  the headers of the value columns (1 <= ncols <= RAID_MA_MAX_COLUMNS, none NULL or empty), each read as
 *  raid_ma_read_csv reads its value column (empty field NAN, |x| <= RAID_MA_MAX_VALUE). Bit j of optional
 *  set: column j may be absent from the header (raid_ma_input_column(in, j) is then NULL); column 0 is
 *  required (bit 0 must be clear). raid_ma_input_values is column 0. Errors: those of raid_ma_read_csv,
 *  RAID_EINVAL also for bad ncols, cols or optional. */
RAID_API raid_status raid_ma_read_csv_columns(const char *path, const char *const *names, const char *const *cols,
                                              size_t ncols, unsigned optional, raid_ma_input **out);
RAID_API void raid_ma_input_destroy(raid_ma_input *in);
/** Number of value columns asked for (1 for raid_ma_read_csv), present or not. */
RAID_API size_t raid_ma_input_ncolumns(const raid_ma_input *in);
/** Value column j (nrows values, series after series, like raid_ma_input_values); NULL when j is out of range
 *  or column j was optional and absent. */
RAID_API const double *raid_ma_input_column(const raid_ma_input *in, size_t j);
/** Number of series (symbols; 1 for a file without a symbol column). */
RAID_API size_t raid_ma_input_nseries(const raid_ma_input *in);
/** Total number of rows (values). */
RAID_API size_t raid_ma_input_nrows(const raid_ma_input *in);
/** The values, nrows of them, series after series (NULL if in is NULL). */
RAID_API const double *raid_ma_input_values(const raid_ma_input *in);
/** The nseries + 1 offsets of the series into the values (offsets[0] = 0). */
RAID_API const int64_t *raid_ma_input_offsets(const raid_ma_input *in);
/** The name of series s ("" without a symbol column); NULL when out of range. */
RAID_API const char *raid_ma_input_symbol(const raid_ma_input *in, size_t s);
/** Whether the file had a symbol column (1) or not (0). */
RAID_API int raid_ma_input_has_symbol(const raid_ma_input *in);
/** The date of row i as written in the file; NULL when out of range. */
RAID_API const char *raid_ma_input_date(const raid_ma_input *in, size_t i);
/** The header of the date column as the reader looked for it ("date", "timestamp" or names[1]). */
RAID_API const char *raid_ma_input_date_name(const raid_ma_input *in);
/** Notices of the reading (the table reader's: a last line without a line break): count and text i. */
RAID_API size_t raid_ma_input_notice_count(const raid_ma_input *in);
RAID_API const char *raid_ma_input_notice(const raid_ma_input *in, size_t i);

/** Write the CSV of `raid ma`: header "[symbol,]DATE,STAT" (DATE raid_ma_input_date_name, STAT
 *  raid_ma_stat_name; symbol when the input had one), then one row per input row: the symbol, the date
 *  as read, values[i] as the shortest text that reads back, empty when NAN (raid_csv_put_value). values: nrows
 *  outputs of raid_ma_compute on the input's values and offsets.
 *  Errors (raid_errmsg): RAID_EINVAL (NULL, stat out of range), RAID_EIO (a write failed; errno kept). */
RAID_API raid_status raid_ma_write_csv(const raid_ma_input *in, raid_ma_stat stat, const double *values, FILE *f);

#ifdef __cplusplus
}
#endif
#endif /* RAID_MA_H */
