/*
 * raid/reader.h -- reading intraday prices (or returns) from CSV into whole (symbol, date) segments, in bounded memory.
 * Part of the public API; include <raid.h> for all of it. Conventions: raid/core.h.
 */
#ifndef RAID_READER_H
#define RAID_READER_H

#include "raid/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------------ */
/* Reading intraday prices (or returns) from CSV into segments                                       */
/* ------------------------------------------------------------------------------------------------ */

typedef struct raid_reader raid_reader;

typedef enum raid_input_kind { RAID_INPUT_PRICES = 0, RAID_INPUT_RETURNS = 1 } raid_input_kind;

/** Options of raid_reader_open; raid_read_opts_init() sets the defaults noted here. */
typedef struct raid_read_opts {
    raid_input_kind kind;      /* RAID_INPUT_PRICES (default) or RAID_INPUT_RETURNS */
    const char *symbol_col;    /* column names, matched case-insensitively; NULL = "symbol" (optional column) */
    const char *time_col;      /* NULL = "timestamp" (prices) */
    const char *price_col;     /* NULL = "price" (prices) */
    const char *date_col;      /* NULL = "date" (returns) */
    const char *ret_col;       /* NULL = "ret" (returns) */
    const char *tz;            /* IANA zone "Area/City" for timestamps that carry an offset; NULL = "UTC" */
    int32_t session_start_s;   /* seconds after local midnight (below 86400), -1 = no session window (default) */
    int32_t session_end_s;     /* inclusive end of the window, seconds after midnight; below the start:
                                  a window across midnight whose evening part opens the next trading date */
    int64_t sample_us;         /* sampling interval in microseconds; 0 = tick (every observation); default 300e6 (5min) */
    int samples;               /* 1: batches also carry the sampled prices (raid_batch's price, time_us and
                                  first_price; prices only, `raid returns`); default 0 */
} raid_read_opts;

RAID_API void raid_read_opts_init(raid_read_opts *o);

/** The most returns the sampling grid may give one (symbol, trading date) segment: 2^25 = 33,554,432
 *  (256 MiB of float64; --sample 1ms over 9.3 hours). A price whose grid points would take its segment
 *  past it is refused (RAID_EPARSE naming the row: "symbol 'A': the sampling grid of S s would give one
 *  segment more than 33554432 returns; use a coarser sampling interval"), since a grid far finer than the data grows memory without bound
 *  (sample_us = 1 on two prices a day apart asks for 86.4e9 returns). Tick sampling (sample_us = 0) and
 *  returns input have no such limit: their returns are the input's rows. */
#define RAID_MAX_SEGMENT_RETURNS (INT64_C(1) << 25)

/** Parse "tick", "Ns", "Nmin" (N a positive integer; also "Nms", "Nh") into microseconds (0 for tick).
 *  Errors: RAID_EINVAL; message: raid_errmsg(). */
RAID_API raid_status raid_parse_sample(const char *s, int64_t *us);
/** Parse "HH:MM-HH:MM" into seconds after midnight (the start 00:00 to 23:59, the end 00:00 to 24:00). A start after the end is a window
 *  across midnight ("17:00-16:00", FX and futures sessions): the observations from the start on belong
 *  to the NEXT trading date (docs/input.md). Errors: RAID_EINVAL; message: raid_errmsg(). */
RAID_API raid_status raid_parse_session(const char *s, int32_t *start_s, int32_t *end_s);

/** A batch of whole segments (symbol, date) with their returns, filled by raid_reader_next or
 *  raid_ticks_take. With the option samples (raid_read_opts) also the sampled prices: the return ret[i]
 *  is from the price before it to price[i], sampled at local wall-clock time time_us[i] (microseconds
 *  since 1970-01-01T00:00:00 in the zone of the options: the observation's time with tick sampling, the
 *  grid point's otherwise), and segment s's first sampled price is first_price[s], sampled at local time
 *  first_time_us[s] (its returns are from
 *  the prices first_price[s], price[offsets[s]], ..., price[offsets[s+1] - 1]). NULL without the option. */
typedef struct raid_batch {
    double *ret;         /* returns of all segments back to back */
    size_t nret, ret_cap;
    int64_t *offsets;    /* nseg + 1 entries: segment s is ret[offsets[s] .. offsets[s+1]) */
    uint32_t *symbol;    /* nseg symbol indices (raid_reader_symbol) */
    int32_t *date;       /* nseg dates as yyyymmdd */
    size_t nseg, seg_cap;
    double *price;       /* the option samples: nret end prices (ret_cap entries) */
    int64_t *time_us;    /* their local times */
    double *first_price; /* nseg first prices (seg_cap entries) */
    int64_t *first_time_us; /* their local times (seg_cap entries) */
} raid_batch;

RAID_API void raid_batch_init(raid_batch *b);
RAID_API void raid_batch_clear(raid_batch *b);   /* keeps the memory */
RAID_API void raid_batch_free(raid_batch *b);

/** Open a CSV file (header row; "-" reads standard input); o NULL: the defaults. Errors: RAID_EIO
 *  ("PATH: REASON"), RAID_EPARSE (missing column: the message names the file, line 1 and the column),
 *  RAID_EINVAL (bad options, unknown tz), RAID_ENOMEM; message: raid_errmsg(). On failure *out is NULL. */
RAID_API raid_status raid_reader_open(raid_reader **out, const char *path, const raid_read_opts *o);

/** Append complete segments to b (b is not cleared first) until it holds at least max_returns returns
 *  or the input ends. Memory is bounded by the open segments (one per symbol) plus the batch.
 *  Sets *done to 1 when the input is exhausted and every segment has been delivered.
 *  Errors: RAID_EPARSE ("FILE:LINE:COL: message": among them a trading date outside the years 0001 to
 *  9999 after the time zone and session, a segment past RAID_MAX_SEGMENT_RETURNS), RAID_EIO, RAID_ENOMEM,
 *  RAID_EINVAL (NULL); message:
 *  raid_errmsg(). Sticky: after a failure every later call returns the same status and sets the same
 *  message again. The rules and every message: docs/input.md. */
RAID_API raid_status raid_reader_next(raid_reader *rd, raid_batch *b, size_t max_returns, int *done);

/** Notices: facts about the input that change no number but that a user should know (docs/input.md):
 *  a last line without a line break ("FILE:LINE: ..."), a sampling grid finer than the data's spacing, no
 *  symbol column ("no symbol column 'symbol': the whole file is one series").
 *  Available once raid_reader_next has reported done = 1 (the number can grow until then). Count, and
 *  the text of notice i (NULL if out of range); valid until raid_reader_close. */
RAID_API size_t raid_reader_notice_count(const raid_reader *rd);
RAID_API const char *raid_reader_notice(const raid_reader *rd, size_t i);
/** Name of symbol index i ("" when the file has no symbol column); NULL if out of range. */
RAID_API const char *raid_reader_symbol(const raid_reader *rd, uint32_t i);
/** Bytes consumed so far and total file size (0 if unknown), for progress reporting. */
RAID_API void raid_reader_progress(const raid_reader *rd, uint64_t *consumed, uint64_t *total);
RAID_API void raid_reader_close(raid_reader *rd);

/* ------------------------------------------------------------------------------------------------ */
/* Intraday prices given as arrays (the segmenter under the CSV reader)                              */
/* ------------------------------------------------------------------------------------------------ */

/* Error convention of raid_ticks_*: context-free, the message of a failure is raid_errmsg(). Errors are
 * sticky: after a failing push or take, later pushes and takes return the same status and message. */

typedef struct raid_ticks raid_ticks;
/* Segmenter of intraday prices given as arrays, with the same sampling, session, time-zone, order and
   validity rules as the CSV reader (which is built on it). o->kind must be RAID_INPUT_PRICES.
   o (NULL: the defaults of raid_read_opts_init): sample_us, session_*, tz as for raid_reader_open; the
   column names are not used. Errors: RAID_EINVAL (bad options, returns kind, unknown tz), RAID_ENOMEM. */
RAID_API raid_status raid_ticks_create(raid_ticks **out, const raid_read_opts *o);
/* n observations of one symbol, in the order given (a run of consecutive rows of one symbol; the same
   symbol may come back in later runs exactly as rows of a CSV may interleave symbols).
   t_us: microseconds since 1970-01-01T00:00:00; when t_is_utc they are UTC instants converted to o->tz
   local time (like CSV timestamps with an offset), else local wall-clock times (like timestamps without
   an offset). price: as the CSV's price column. Errors name the row (0-based over all pushed rows) and
   the symbol; message via raid_errmsg(). */
/* symbol: a NUL-terminated UTF-8 string ("" or NULL: the one symbol of data without symbols). t_us must
   lie in the years 0001 to 9999. Errors: RAID_EINVAL (NULL arrays with n > 0, a symbol that is not
   UTF-8, a handle already finished), RAID_EPARSE (price not positive and finite, time out of range,
   time or trading date going backwards within the symbol: the message names the row, the symbol and
   both times; a trading date outside the years 0001 to 9999 after the time zone and session; a segment
   past RAID_MAX_SEGMENT_RETURNS), RAID_ENOMEM. Rows before the failing one have been taken in. */
RAID_API raid_status raid_ticks_push(raid_ticks *tk, const char *symbol, const int64_t *t_us, int t_is_utc,
                                     const double *price, size_t n);
/* As raid_ticks_push, with the times given as text: timestamps[i] a NUL-terminated ISO 8601 timestamp
   parsed by the CSV reader's parser with its rules (docs/input.md): "YYYY-MM-DDTHH:MM:SS[.f{1,9}]" ('T',
   't' or a space; the fraction truncated to microseconds) followed by nothing (a local wall-clock time)
   or by Z, z, +HH:MM, +HHMM or +HH (a UTC instant, converted to o->tz local time). So a column of text
   through it gives the segments of the same rows in a CSV file, bit for bit. Rows are counted with those
   of raid_ticks_push (one 0-based row number over all pushed rows). Errors: as raid_ticks_push, and
   RAID_EPARSE "row R (symbol 'A'): cannot parse timestamp 'TEXT'" or "... missing timestamp (NULL)";
   messages quote the text as given ("time goes backwards: '2020-01-02T09:00:00+01:00' before
   '2020-01-02T08:30:00Z' (row 2)"); message via raid_errmsg(), sticky. */
RAID_API raid_status raid_ticks_push_text(raid_ticks *tk, const char *symbol, const char *const *timestamps,
                                          const double *price, size_t n);
/* n rows of several symbols interleaved, in the order given, as a CSV's rows: row i is symbol
   symbols[code[i]] (code[i] < nsymbols; each symbols[k] as raid_ticks_push's symbol) at t_us[i] (t_is_utc
   as raid_ticks_push) or, when t_us is NULL, at the text timestamps[i] (as raid_ticks_push_text), with
   price[i]. The same rows as pushing each run of one symbol by raid_ticks_push or raid_ticks_push_text,
   with the same row numbers and messages, in one call: a tape of many symbols (a trade feed) costs no call
   per run. Errors: as raid_ticks_push and raid_ticks_push_text, and RAID_EINVAL (NULL code, symbols, or
   both t_us and timestamps, with n > 0; a code not below nsymbols: the message names the row). */
RAID_API raid_status raid_ticks_push_coded(raid_ticks *tk, const char *const *symbols, size_t nsymbols,
                                           const uint32_t *code, const int64_t *t_us, int t_is_utc,
                                           const char *const *timestamps, const double *price, size_t n);
/* Append the complete segments to b; finish = 1 when no more rows will come (every segment is then
   complete). */
/* b is not cleared first (raid_batch as filled by raid_reader_next; symbol indices for
   raid_ticks_symbol, dates yyyymmdd). Segments come in order of completion, as from the CSV reader.
   After finish = 1 further pushes are RAID_EINVAL. Errors: RAID_ENOMEM. */
RAID_API raid_status raid_ticks_take(raid_ticks *tk, raid_batch *b, int finish);
/* Name of symbol index i, in order of first appearance; NULL if out of range. */
RAID_API const char *raid_ticks_symbol(const raid_ticks *tk, uint32_t i);
/* Notices as raid_reader_notice (the sampling grid finer than the data), available after a take with
   finish = 1. */
RAID_API size_t raid_ticks_notice_count(const raid_ticks *tk);
RAID_API const char *raid_ticks_notice(const raid_ticks *tk, size_t i);
/* NULL is a no-op. */
RAID_API void raid_ticks_destroy(raid_ticks *tk);

/* ------------------------------------------------------------------------------------------------ */
/* The time order of series (docs/input.md "Time order")                                             */
/* ------------------------------------------------------------------------------------------------ */

/* The jobs whose answer depends on the order of a series' rows and that read its dates as text (raid
 * garch, har, ma, sweep) refuse a date that does not come after the one before it in its series (a date
 * out of order, or one repeated): their CSV readers with FILE:LINE:COL, raid_garch_input_add and
 * raid_har_input_add with the symbol and row. These two functions are the same check for a binding that
 * holds its dates itself (the Python package's raid.ma and raid.sweep on a DataFrame with a date column). */

/** The order of two dates of one series, the rule of every check above: negative (a first), 0 (the same
 *  time) or positive. Both ISO 8601 dates or timestamps (YYYY-MM-DD, or YYYY-MM-DD[T ]HH:MM:SS[.f] with
 *  an optional Z or +HH:MM offset; a date is its midnight): in time, as UTC instants when both carry an
 *  offset, else as the clock times written. Both decimal integers (within int64): as integers, exactly.
 *  Both decimal numbers: as float64 values. Otherwise as text, byte by byte (the order of a sort of the
 *  column as text). NULL compares as "". */
RAID_API int raid_date_compare(const char *a, const char *b);

/** Check that the dates of each of nseries series increase strictly by raid_date_compare: series s is
 *  dates[offsets[s] .. offsets[s+1]) (offsets: nseries + 1 entries, non-decreasing, offsets[0] >= 0).
 *  symbols: NULL ("series S" in messages) or nseries names ("" is "(no symbol)"); rows: NULL or one
 *  number per date, the caller's row numbers in messages (without: 1-based within the series). nseries
 *  = 0 is a no-op. Errors (raid_errmsg): RAID_EINVAL (NULL dates or offsets, offsets negative or
 *  decreasing, a NULL or empty date, a date with the day or month first and the year last, such as
 *  12/31/2019 or 31.12.2019, which text order misorders: "raid_dates_check_order: SYM: row R: date 'D' has
 *  the year last (...): write dates as ISO 8601, YYYY-MM-DD", a date that does not increase:
 *  "raid_dates_check_order: SYM: row R: date 'D' comes before 'P' on row R2 (the rows of a series must be
 *  in time order)", or "repeats"; two ISO 8601 times next to each other, one with a UTC offset and one
 *  without: "... row R: date 'D' and 'P' on row R2 mix a UTC offset and a time without one (...)", as the
 *  CSV readers refuse them too: without a time zone the two forms have no common order; two dates of
 *  different kinds next to each other, a time, a number or text: "... are of different kinds (...)"). */
RAID_API raid_status raid_dates_check_order(const char *const *dates, const int64_t *offsets, size_t nseries,
                                            const char *const *symbols, const int64_t *rows);

/** raid_dates_check_order for times as integers: t[i] in units of 1/units_per_s second since
 *  1970-01-01T00:00:00 (units_per_s 1e9: numpy's datetime64[ns]; 1e6: microseconds), strictly
 *  increasing within each series. Messages write the times as ISO 8601 ("time 2020-01-02T00:00:00
 *  comes before 2020-01-03T00:00:00"; the integer outside the years 0001 to 9999). Errors (raid_errmsg):
 *  RAID_EINVAL (NULL t or offsets, units_per_s < 1, offsets, a time that does not increase). */
RAID_API raid_status raid_times_check_order(const int64_t *t, int64_t units_per_s, const int64_t *offsets,
                                            size_t nseries, const char *const *symbols, const int64_t *rows);

#ifdef __cplusplus
}
#endif
#endif /* RAID_READER_H */
