/*
 * raid/bars.h -- trades to OHLCV bars per symbol and interval (docs/column.md "Ticks to
 * bars"). Part of the public API; include <raid.h> for all of it. Conventions: raid/core.h.
 *
 * One bar per (symbol, interval) with at least one trade: start (the interval's local wall-clock start),
 * open (the first trade's price), high, low, close (the last trade's), volume (the EXACT sum of the
 * sizes, rounded once), vwap (the exact sum of price x size, each product taken exactly, divided by the
 * exact volume: each sum rounded once to 53 bits with no exponent range, the two divided in float64 and
 * scaled back, i.e. the rounded sums' quotient, also where a sum is beyond the largest double; NaN when
 * the volume is 0) and trades (the count). A trade whose price x size is beyond float64 is refused. The aggregations
 * are raid_groupby_compute's (include/raid/groupby.h), so the bars are bit for bit the same on the cpu
 * path and a device. Intervals are cut in local time: floor(local time / interval), counted from
 * 1970-01-01T00:00:00 local (so 1d bars are calendar days, 1h bars start on the hour), as pandas'
 * resample with its default origin.
 */
#ifndef RAID_BARS_H
#define RAID_BARS_H

#include "raid/core.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct raid_bars raid_bars;

/** Parse an interval "Nms", "Ns", "Nmin", "Nh" or "Nd" (N a positive decimal integer, the unit in any case;
 *  at most 3650 days whatever the unit: "25h", "1500min", "90000s" as well as "2d") into microseconds
 *  (> 0). Errors: RAID_EINVAL (raid_errmsg: "bad interval 'S' (expected Nms, Ns, ...)"). */
RAID_API raid_status raid_bars_parse_interval(const char *s, int64_t *us);

/** Read the trades of path ("-": standard input; CSV with a header row: symbol (optional), timestamp
 *  (ISO 8601, as `raid realized` reads it), price (finite, > 0), size (optional, finite, >= 0; absent:
 *  1 per trade); trades of a symbol in time order, symbols may interleave) and make the bars of
 *  `interval`. tz: the IANA zone of the local time ("America/New_York"; NULL: UTC): a timestamp with an
 *  offset is converted to it, one without is local time as written. session: NULL (every trade) or a
 *  window "HH:MM-HH:MM" of local time (raid_parse_session, include/raid/reader.h, the semantics of `raid
 *  realized --session`, docs/input.md "Session window"): only trades whose local time of day lies in it,
 *  both ends inclusive, make bars; the others are still checked. A window across midnight ("17:00-16:00")
 *  keeps the evening and the morning, and its evening trades belong to the NEXT trading date: bars of
 *  whole days (an interval a multiple of 1d) are then cut by trading date, shorter bars by local time.
 *  ctx: NULL or cpu (the float64 path) or a device (the group-by's kernels; the same bits). *out: the
 *  bars (raid_bars_destroy), symbol in order of first appearance, then start ascending. Errors:
 *  RAID_EINVAL (interval, time zone, session), RAID_EIO, RAID_EPARSE ("FILE:LINE:COL: what": a missing
 *  column, a bad timestamp, price or size, a trade earlier than its symbol's previous one), RAID_ENOMEM,
 *  the device's. Message: raid_ctx_errmsg(ctx) (ctx NULL: raid_errmsg()). *out NULL on failure. */
RAID_API raid_status raid_bars_run_csv(raid_ctx *ctx, const char *path, const char *interval, const char *tz,
                                       const char *session, raid_bars **out);

/* Flags of raid_bars_compute (an enum, so that bindings see it). */
typedef enum raid_bars_flag {
    RAID_BARS_UTC = 1 /* the timestamps are UTC instants (converted to tz's local time); else local times */
} raid_bars_flag;

/** The bars of n trades given as arrays: the same job as raid_bars_run_csv (the same checks, session,
 *  keys and group-bys: one path), for bindings (Python's raid.bars).
 *  sym: NULL (one symbol, named "") or n symbol codes in [0, nsym), with names[0 .. nsym) their distinct
 *  names (UTF-8, NUL-terminated): the bars come out in code order (codes in order of first appearance,
 *  as pandas.factorize gives them, reproduce the CSV job's order), then start ascending. ts_us: n
 *  timestamps in microseconds since 1970-01-01T00:00:00, each within the years 0001 to 9999: with
 *  RAID_BARS_UTC in flags UTC instants (a CSV timestamp with an offset), converted to tz's local time;
 *  without it local wall-clock times in tz (a CSV timestamp without an offset). price: n prices (finite,
 *  > 0); size: NULL (1 per trade) or n sizes (finite, >= 0). A symbol's trades in time order (instants
 *  compared). interval, tz, session, ctx and *out as raid_bars_run_csv.
 *  Errors: RAID_EINVAL (NULL arrays with n > 0, a code outside [0, nsym), names NULL or given twice,
 *  unknown flags, interval, zone, session; a row's problem as "raid_bars_compute: row I: what", I
 *  0-based: a timestamp outside the years 0001 to 9999, a bad price or size, a trade earlier than its
 *  symbol's previous one, an interval out of range), RAID_ENOMEM, the device's. Message:
 *  raid_ctx_errmsg(ctx) (ctx NULL: raid_errmsg()). *out NULL on failure. */
RAID_API raid_status raid_bars_compute(raid_ctx *ctx, const int64_t *sym, const char *const *names, size_t nsym,
                                       const int64_t *ts_us, const double *price, const double *size, size_t n,
                                       const char *interval, const char *tz, const char *session, unsigned flags,
                                       raid_bars **out);

/* The fields of the bars (raid_bars_field). */
typedef enum raid_bars_col {
    RAID_BARS_OPEN = 0,
    RAID_BARS_HIGH = 1,
    RAID_BARS_LOW = 2,
    RAID_BARS_CLOSE = 3,
    RAID_BARS_VOLUME = 4,
    RAID_BARS_VWAP = 5
} raid_bars_col;

/** Field f of every bar: raid_bars_count float64 in the bars' order (the handle owns them); NULL for NULL,
 *  no bar or an unknown f. */
RAID_API const double *raid_bars_field(const raid_bars *b, raid_bars_col f);
/** The bars' starts: local wall-clock microseconds since 1970-01-01T00:00:00 (NULL for NULL or no bar). */
RAID_API const int64_t *raid_bars_start(const raid_bars *b);
/** The bars' trade counts (NULL for NULL or no bar). */
RAID_API const int64_t *raid_bars_trades(const raid_bars *b);
/** The bars' symbol indices into raid_bars_symbol (NULL for NULL or no bar). */
RAID_API const uint32_t *raid_bars_symbols(const raid_bars *b);
/** The number of symbols (with or without a bar: a symbol whose trades all lie outside the session has
 *  none), and the name of symbol j (NULL when out of range). */
RAID_API size_t raid_bars_nsymbols(const raid_bars *b);
RAID_API const char *raid_bars_symbol(const raid_bars *b, size_t j);
/** The number of bars; 0 for NULL. */
RAID_API size_t raid_bars_count(const raid_bars *b);
/** Write "symbol,start,open,high,low,close,volume,vwap,trades": start as local "YYYY-MM-DDTHH:MM:SS"
 *  (".ffffff" when not whole seconds), prices and sums as the shortest text that reads back as the same
 *  double (an infinite volume "inf", a NaN vwap empty).
 *  Errors: RAID_EINVAL (NULL), RAID_EIO. */
RAID_API raid_status raid_bars_write_csv(const raid_bars *b, FILE *f);
/** Notices of the reading by raid_bars_run_csv (raid_bars_compute has none): the table reader's
 *  (docs/input.md), a last line without a line break ("FILE:LINE: the last line has no line break at its
 *  end; ..."). Their number (0 for NULL), and notice i (NULL for NULL or i out of range), valid until
 *  raid_bars_destroy. */
RAID_API size_t raid_bars_notice_count(const raid_bars *b);
RAID_API const char *raid_bars_notice(const raid_bars *b, size_t i);
/** Free the bars. NULL is a no-op. */
RAID_API void raid_bars_destroy(raid_bars *b);

#ifdef __cplusplus
}
#endif
#endif /* RAID_BARS_H */
