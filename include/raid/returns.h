/*
 * raid/returns.h -- the log returns of intraday prices as a table, one row per return: the job of
 * `raid returns` and of the Python package's raid.returns (docs/f64.md "Log returns").
 * Part of the public API; include <raid.h> for all of it. Conventions: raid/core.h.
 */
#ifndef RAID_RETURNS_H
#define RAID_RETURNS_H

#include "raid/core.h"
#include "raid/reader.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A table of log returns: the returns of each (symbol, trading date) segment of a source of prices (a CSV
 * reader or a raid_ticks segmenter, opened with raid_read_opts.samples = 1), with the segmenting, session
 * window, time zone and sampling of `raid realized` (docs/input.md), each row the return from the previous
 * sampled price to the row's price, stamped with that price's local wall-clock time in the options' zone
 * (the observation's with tick sampling, the grid point's otherwise): highfrequency's makeReturns of the
 * sampled prices, within each segment (no return across two dates). Each return is log(p / prev) by
 * kernels/raid_f64_returns.h (log1p of the relative change for p / prev in [0.5, 2], else the difference of
 * the logarithms; binary64 with correctly rounded log1p and log), the returns `raid realized` measures.
 *
 * Order of calls and errors as raid_realized_table's (include/raid/realized.h): create; add_reader or
 * add_ticks until the source is exhausted (then another may follow); finish (sorts the segments: symbol in
 * order of first appearance, then date; a segment's returns in time order); write_csv and the accessors;
 * destroy. An add that fails after taking a batch appends none of its rows and leaves the table
 * incomplete (later adds and finish: RAID_EINVAL naming the first failure). Memory: 24 bytes a return
 * (16 until finish) and the source's batch. */
typedef struct raid_returns_table raid_returns_table;

/** An empty table. Errors: RAID_EINVAL (out NULL), RAID_ENOMEM; message: raid_errmsg(). */
RAID_API raid_status raid_returns_table_create(raid_returns_table **out);
/** Free the table (not its sources or contexts). NULL is a no-op. */
RAID_API void raid_returns_table_destroy(raid_returns_table *tab);

/** Pull the next batch of whole segments from rd (raid_reader_next(rd, batch, max_returns, done); rd opened
 *  with samples = 1) and append its returns. ctx NULL: the returns the segmenter computed (the cpu's);
 *  else the returns of the batch's sampled prices by raid_f64_log_returns on ctx, one call per batch (the
 *  same bits on every device: the entries across two segments are computed and dropped). *done: 1 once
 *  rd is exhausted. Errors (message: raid_ctx_errmsg(ctx) when ctx is given, and raid_errmsg()):
 *  RAID_EINVAL (NULL arguments, max_returns 0, a reader without samples, the order of calls), the reader's
 *  errors with its message unchanged (RAID_EPARSE "FILE:LINE:COL: ...", RAID_EIO, RAID_ENOMEM),
 *  raid_f64_log_returns's. */
RAID_API raid_status raid_returns_table_add_reader(raid_returns_table *tab, raid_ctx *ctx, raid_reader *rd,
                                                   size_t max_returns, int *done);
/** As add_reader, from raid_ticks_take(tk, batch, finish) (tk created with samples = 1); the source is
 *  exhausted after the call with finish = 1. Errors: as add_reader, the segmenter's with its message. */
RAID_API raid_status raid_returns_table_add_ticks(raid_returns_table *tab, raid_ctx *ctx, raid_ticks *tk, int finish);
/** Sort the rows (once, after the last source). Errors: RAID_EINVAL (a source not exhausted, a failed add,
 *  finished twice), RAID_ENOMEM; message: raid_errmsg(). */
RAID_API raid_status raid_returns_table_finish(raid_returns_table *tab);

/** Rows (returns) and their columns, in output order (after finish; NULL while there are no rows or the
 *  table is not finished): the symbol's index (raid_returns_table_symbol_name), the trading date as
 *  yyyymmdd, the end price's local wall-clock time in microseconds since 1970-01-01T00:00:00, the log
 *  return (dimensionless). */
RAID_API size_t raid_returns_table_nrows(const raid_returns_table *tab);
RAID_API const uint32_t *raid_returns_table_symbol_ids(const raid_returns_table *tab);
RAID_API const int32_t *raid_returns_table_dates(const raid_returns_table *tab);
RAID_API const int64_t *raid_returns_table_times(const raid_returns_table *tab);
RAID_API const double *raid_returns_table_returns(const raid_returns_table *tab);
/** Symbols in order of first appearance over the sources; name j ("" for input without symbols), NULL out
 *  of range. */
RAID_API size_t raid_returns_table_nsymbols(const raid_returns_table *tab);
RAID_API const char *raid_returns_table_symbol_name(const raid_returns_table *tab, size_t j);

/** Write the CSV "symbol,date,timestamp,ret": one row a return, the date YYYY-MM-DD, the timestamp
 *  YYYY-MM-DDTHH:MM:SS[.ffffff] (local wall-clock time, as raid bars writes times), the return with the
 *  shortest digits that read back to its bits (raid_csv_put_value). Errors: RAID_EINVAL (NULL, not
 *  finished), RAID_EIO (a failed write); message: raid_errmsg(). */
RAID_API raid_status raid_returns_table_write_csv(const raid_returns_table *tab, FILE *f);

#ifdef __cplusplus
}
#endif

#endif
