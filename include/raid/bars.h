/*
 * raid/bars.h -- trades to OHLCV bars per symbol and interval (issue 11, section 3; docs/column.md "Ticks to
 * bars"). Part of the public API; include <raid.h> for all of it. Conventions: raid/core.h.
 *
 * One bar per (symbol, interval) with at least one trade: start (the interval's local wall-clock start),
 * open (the first trade's price), high, low, close (the last trade's), volume (the EXACT sum of the
 * sizes, rounded once), vwap (the exact sum of price x size, each product taken exactly, rounded once,
 * divided by the volume in float64; NaN when the volume is 0) and trades (the count). The aggregations
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

/** Parse an interval "Ns", "Nmin", "Nh" (raid_parse_sample's forms, also "Nms") or "Nd" (N days, 1 to
 *  3650) into microseconds (> 0). Errors: RAID_EINVAL (raid_errmsg). */
RAID_API raid_status raid_bars_parse_interval(const char *s, int64_t *us);

/** Read the trades of path ("-": standard input; CSV with a header row: symbol (optional), timestamp
 *  (ISO 8601, as `raid realized` reads it), price (finite, > 0), size (optional, finite, >= 0; absent:
 *  1 per trade); trades of a symbol in time order, symbols may interleave) and make the bars of
 *  `interval`. tz: the IANA zone of the local time ("America/New_York"; NULL: UTC): a timestamp with an
 *  offset is converted to it, one without is local time as written. ctx: NULL or cpu (the float64 path)
 *  or a device (the group-by's kernels; the same bits). *out: the bars (raid_bars_destroy), symbol in
 *  order of first appearance, then start ascending. Errors: RAID_EINVAL (interval, time zone), RAID_EIO,
 *  RAID_EPARSE ("FILE:LINE:COL: what": a missing column, a bad timestamp, price or size, a trade earlier
 *  than its symbol's previous one), RAID_ENOMEM, the device's. Message: raid_ctx_errmsg(ctx) (ctx NULL:
 *  raid_errmsg()). *out NULL on failure. */
RAID_API raid_status raid_bars_run_csv(raid_ctx *ctx, const char *path, const char *interval, const char *tz,
                                       raid_bars **out);
/** The number of bars; 0 for NULL. */
RAID_API size_t raid_bars_count(const raid_bars *b);
/** Write "symbol,start,open,high,low,close,volume,vwap,trades": start as local "YYYY-MM-DDTHH:MM:SS"
 *  (".ffffff" when not whole seconds), prices and sums with 17 significant digits (a NaN vwap empty).
 *  Errors: RAID_EINVAL (NULL), RAID_EIO. */
RAID_API raid_status raid_bars_write_csv(const raid_bars *b, FILE *f);
/** Free the bars. NULL is a no-op. */
RAID_API void raid_bars_destroy(raid_bars *b);

#ifdef __cplusplus
}
#endif
#endif /* RAID_BARS_H */
