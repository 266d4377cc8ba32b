/* The moving-average crossover backtest sweep: the float64 cpu path of its trade semantics and
 * statistics, the oracle of the device sweep and its cpu backend.
 *
 * Internal. docs/ta_sweep.md is the specification this file implements (and the device kernel will
 * follow); the summary here is normative only where it agrees with it.
 *
 * Bars t = 0..n-1 of one series: close[t] (and open[t] for fill at the next open), finite and > 0.
 * For one combination, two moving averages fast[t], slow[t] (NaN where undefined).
 *   - Decision at bar t (after its close): d[t] = +1 when fast[t] and slow[t] are both defined (not NaN)
 *     and fast[t] > slow[t]; when both are defined and fast[t] <= slow[t], d[t] = -1 with `short`, else
 *     0; while either is undefined, d[t] = 0 (flat, also with `short`).
 *   - A change decided at bar t is filled at bar t+1: at close[t+1] (RAID_SWEEP_FILL_CLOSE) or open[t+1]
 *     (RAID_SWEEP_FILL_NEXT_OPEN). The position before any fill is 0. The decision at the last bar n-1 is
 *     never filled. A position still open after the fills of bar n-1 is closed at close[n-1]. With fill
 *     at the close, an entry that would be filled at close[n-1] is not opened (it would be closed at the
 *     same price at once): the fill at the last close only exits.
 *   - Trades: (entry bar, exit bar, entry price, exit price, side +1/-1). A flip (+1 -> -1 or -1 -> +1)
 *     is two trades at the same fill: the exit of the old, then the entry of the new.
 *   - Cost: each side (entry or exit) multiplies wealth by (1 - cost_bps 1e-4); in log terms
 *     c = log1p(-cost_bps 1e-4) <= 0 per side, 2c per trade.
 *   - total_log_return = sum over trades of side log(exit/entry) + 2c (compensated sum).
 *   - Per-bar strategy log returns r[t], t = 1..n-1 (marked to market at the closes): the position held
 *     over (close[t-1], close[t]] times the price's log return, split at open[t] on a bar whose fill is
 *     at its open (old position over close[t-1] -> open[t], new over open[t] -> close[t]), plus c for
 *     each side filled at bar t (the final close included).
 *   - sharpe = mean(r) / sd(r) sqrt(bars_per_year), sd with n-2 degrees of freedom (n-1 returns);
 *     0 when sd = 0 (every r[t] equal, in practice: never in a position, no cost).
 *   - max_drawdown = max over t of (max(0, E[1..t]) - E[t]) >= 0, E[t] = r[1] + ... + r[t]: the largest
 *     drop of the log equity curve from its running peak (the start, 0, included), a positive number.
 *   - exposure = (number of bars t in 1..n-1 during some part of which a position is held) / (n-1).
 */
#ifndef RAID_TA_SWEEP_H
#define RAID_TA_SWEEP_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"
#include "core/strlist.h"
#include "device/device.h"
#include "raid/sweep.h"

typedef struct RaidSweepOpts {
    int short_side;         /* 1: short (-1) instead of flat when both MAs are defined and fast <= slow */
    raid_sweep_fill fill;   /* where a change decided at bar t is filled: close or open of bar t+1 */
    double cost_bps;        /* cost per side in basis points, 0 <= cost_bps < 1e4 */
    double bars_per_year;   /* annualisation of the Sharpe ratio, > 0 (252 for daily bars) */
} RaidSweepOpts;

/* The defaults: long/flat, fill at the close of t+1, no cost, 252 bars per year. */
RaidSweepOpts raidSweepOptsDefault(void);

/* raid_sweep_fill, raid_sweep_trade and raid_sweep_stats: include/raid/sweep.h (trades = -1 and NaN
 * statistics mark a combination the batch skipped). */

/* One series prepared for the sweep: the prices (by pointer; the caller keeps them alive and unchanged)
 * and the per-bar log returns every combination shares, computed once: lc[t] = log(close[t]/close[t-1])
 * and, with open, lgap[t] = log(open[t]/close[t-1]), lin[t] = log(close[t]/open[t]) (t >= 1; index 0
 * unused). */
typedef struct RaidSweepSeries {
    size_t n;
    const double *close, *open;   /* open NULL when the input has none */
    double *lc, *lgap, *lin;      /* owned; lgap, lin NULL without open */
} RaidSweepSeries;

/* Prepare s over close[0..n-1] and optional open[0..n-1] (NULL: none). Requires n >= 3 (two returns at
 * least, for the Sharpe ratio's sd) and every price finite and > 0. Errors (raid_errmsg): RAID_EINVAL (n < 3, close NULL, a bad price: its bar and value),
 * RAID_ENOMEM. On failure s holds nothing to free. */
raid_status raidSweepSeriesInit(RaidSweepSeries *s, const double *close, const double *open, size_t n);
void raidSweepSeriesFree(RaidSweepSeries *s);

/* Check o against s (a fill at the open needs open; the domains above). Errors (raid_errmsg):
 * RAID_EINVAL. */
raid_status raidSweepOptsCheck(const RaidSweepSeries *s, const RaidSweepOpts *o);

/* One combination: the decisions from fast[0..n-1], slow[0..n-1] (NaN = undefined), the trades and the
 * statistics into *st. When trades is not NULL, the first min(count, cap) trades are written there in
 * order (count = st->trades <= n-1). work: n-1 doubles of scratch (the per-bar returns), or NULL to
 * allocate them. o must have passed raidSweepOptsCheck. Errors: RAID_ENOMEM (work NULL only). */
raid_status raidSweepOne(const RaidSweepSeries *s, const double *fast, const double *slow,
                           const RaidSweepOpts *o, raid_sweep_stats *st, raid_sweep_trade *trades,
                           size_t cap, double *work);

/* The decision at bar t from fast[t], slow[t] (above): the one place the moving averages enter. */
static inline int raidSweepDecide(double f, double sl, int short_side)
{
    if (isnan(f) || isnan(sl)) return 0;
    return f > sl ? 1 : (short_side ? -1 : 0);
}

/* The trade list of one combination of a batch (malloc'd; raidSweepTradesFree frees ncomb of them). */
typedef struct RaidSweepTrades {
    raid_sweep_trade *v;
    size_t n;
} RaidSweepTrades;
void raidSweepTradesFree(RaidSweepTrades *t, size_t ncomb);

/* The batch over ncomb combinations of one series, each moving average computed once by the caller:
 * ma[p*n .. p*n+n-1] is the moving average of period periods[p], p = 0..nperiods-1 (NaN = undefined).
 * Combination k uses fast = ma row fast_idx[k], slow = ma row slow_idx[k] (indices < nperiods). A
 * combination with periods[fast_idx[k]] >= periods[slow_idx[k]] is skipped (out[k].trades = -1, NaN
 * statistics, no trades; the caller's grid excludes them). out[k] receives the statistics; when trades
 * is not NULL, trades[k] receives the trade list (empty lists: v NULL, n 0). OpenMP over combinations;
 * the results do not depend on the number of threads or on the order of the combinations. Errors
 * (raid_errmsg): RAID_EINVAL (bad options, an index out of range), RAID_ENOMEM (then nothing is left
 * allocated in trades). */
raid_status raidSweepCpu(const RaidSweepSeries *s, const double *ma, size_t nperiods, const int *periods,
                           const uint32_t *fast_idx, const uint32_t *slow_idx, size_t ncomb,
                           const RaidSweepOpts *o, raid_sweep_stats *out, RaidSweepTrades *trades);

/* ---- The sweep of a grid over many series (sweep.c) ---- */

/* The result of include/raid/sweep.h (sweep.c builds it and gives its accessors; the writers of
 * src/jobs/sweep.c read it). */
struct raid_sweep_result {
    size_t nseries, ncomb;  /* combinations per series */
    int *fast, *slow;       /* ncomb periods of the grid (fast < slow), fast then slow ascending */
    raid_sweep_stats *st;   /* nseries x ncomb */
    RaidSweepTrades *tr;    /* nseries x ncomb, or NULL when the trades are not kept */
    char **sym;             /* nseries names, or NULL: no symbols */
    RaidStrlist msg;        /* the series skipped and the combinations without a value, one line per series */
    size_t *msg_series;     /* msg.n: the series of each message */
    size_t msg_cap;
    size_t nvalued;         /* combinations with a value (trades >= 0) */
};

/* The sweep of spec over nseries series: close[off[s] .. off[s+1]), open the same shape or NULL, symbols
 * NULL or nseries names (raid_sweep_run_arrays gives the contract of the arguments, the messages and the
 * errors). in: NULL for arrays, or the series handle the arrays come from (raid_ma_read_csv_columns:
 * close its column 0, open its column 1, off its offsets), whose path, lines and dates name a bad price
 * (RAID_EPARSE, FILE:LINE:COL) and a series skipped, as raid_sweep_run promises. out: the result, or NULL
 * with par; par: NULL, or the parity report (raid_sweep_parity). *out and *par NULL on failure; the
 * message on ctx. */
raid_status raidSweepRun(raid_ctx *ctx, const raid_sweep_spec *spec, const double *close, const double *open,
                         const int64_t *off, size_t nseries, const char *const *symbols, const raid_ma_input *in,
                         raid_sweep_result **out, raid_sweep_parity_report **par);

/* ---- The device sweep (sweep_device.c, kernels/ta_sweep.cl; docs/ta_sweep.md "The device sweep") ---- */

/* The scan of raidSweepCpu on ctx's device, from a table resident there: tab holds nperiods rows of
 * s->n moving-average values as normalised double-floats (raidMaDeviceTable, or
 * raidSweepDeviceTableUpload), NaN where undefined; combination k compares rows fast_idx[k] and
 * slow_idx[k] (every combination taken, none skipped). The decisions compare the double-floats exactly,
 * so on a table of double-float values the trades and the exposure equal raidSweepCpu's on the same
 * values (hi + lo) bit for bit; total_log_return (the sum of the per-bar returns: the trades' log returns
 * telescoped), sharpe (from the sum and the sum of squares) and max_drawdown (per-chunk peaks and
 * minima) come from double-float partials per chunk combined in float64, within docs/ta_sweep.md's bound
 * of the cpu path's. trades: NULL, or ncomb lists (as raidSweepCpu's; prices from s) from a second
 * pass. Errors (raid_ctx_errmsg): RAID_EINVAL (a row out of range), RAID_EUNSUPPORTED (sizes beyond the
 * kernel's 32-bit indices, more than 715,827,882 trades in one series), RAID_ENOMEM, the device
 * layer's; on failure trades holds nothing to free. */
raid_status raidSweepDeviceRun(raid_ctx *ctx, const RaidSweepSeries *s, const RaidBuf *tab, size_t nperiods,
                              const uint32_t *fast_idx, const uint32_t *slow_idx, size_t ncomb,
                              const RaidSweepOpts *o, raid_sweep_stats *out, RaidSweepTrades *trades);

/* A host table ma[nperiods][n] (float64, NaN = undefined) onto the device as double-float pairs (hi =
 * (float)v, lo = (float)(v - hi): v to about 2^-48) in *tab (acquired; the caller releases it). Errors:
 * RAID_EUNSUPPORTED (a value beyond float's range, more than 2^30 values), RAID_ENOMEM, the device
 * layer's; *tab zeroed on failure. */
raid_status raidSweepDeviceTableUpload(raid_ctx *ctx, const double *ma, size_t nperiods, size_t n, RaidBuf *tab);

/* The device table back as float64: ma[i] = (hi + lo) 2^escale rounded to the nearest double (hi + lo
 * can need more than 53 bits; the scaling is exact), NaN where hi is NaN. Errors: RAID_ENOMEM, the device
 * layer's. */
raid_status raidSweepDeviceTableDownload(raid_ctx *ctx, const RaidBuf *tab, size_t nperiods, size_t n, int escale,
                                         double *ma);

/* ---- The parity report (sweep_parity.c; include/raid/sweep.h, docs/ta_sweep.md "Parity report") ---- */

/* The moving average ma (wma or hma) of period n over x[0..len) by the float32 prefix-sum trap
 * (raid_ma_wma_prefix_f32; hma from three of them, include/raid/sweep.h). x finite. Errors (raid_errmsg):
 * RAID_EINVAL (another ma), RAID_ENOMEM. */
raid_status raidSweepPrefixMa(raid_ma_stat ma, int64_t n, const double *x, size_t len, double *out);

/* The moving average ma (hma, wma or mean) of period n over x[0..len) by plain float32 direct window sums
 * (the method of the float32 Metal backtest), emulated on the host: x scaled by the power of two that puts
 * its largest |x| into [1/2, 1) (the device's scaling; undone at the end) and rounded to float, every operation in
 * float (HMA's inner series and outer WMA too). x finite. Errors (raid_errmsg): RAID_EINVAL (another ma),
 * RAID_ENOMEM. */
raid_status raidSweepF32Ma(raid_ma_stat ma, int64_t n, const double *x, size_t len, double *out);

/* An empty report for the checked path of spec at precision prec (the context's; listing capacity
 * allocated); NULL when out of memory. */
raid_sweep_parity_report *raidSweepParityNew(const raid_sweep_spec *spec, raid_precision prec, int on_device);

/* The bounds of |checked - float64| of total_log_return, sharpe and max_drawdown (bound[0..2]) of one
 * combination whose trade lists are equal, a = the float64 path's statistics (docs/ta_sweep.md "The device
 * sweep": u = 2^-53, R = sum over bars of |lc| (+ |lgap| + |lin| with fill at the open) + 2 trades |c|:
 * bound[0] = 2u (n - 1 + trades) + 2^-45 R, bound[2] = 2 bound[0], bound[1] from them and a's sd; INFINITY
 * when a's sd cannot be had: mean or sharpe 0). */
void raidSweepStatsBound(const RaidSweepSeries *s, const RaidSweepOpts *o, const raid_sweep_stats *a,
                            double bound[3]);

/* Compare combination (series, fast, slow) of series s: the float64 path's moving averages f64, s64, stats
 * a and trades ta against the checked path's fc, sc, b, tb (trades in time order). Adds to rep: shifted
 * trades, and where the lists are equal the statistics against raidSweepStatsBound. */
void raidSweepParityAdd(raid_sweep_parity_report *rep, const RaidSweepSeries *s, const RaidSweepOpts *o,
                           size_t series, int fast, int slow, const double *f64, const double *s64, const double *fc,
                           const double *sc, const raid_sweep_stats *a, const RaidSweepTrades *ta,
                           const raid_sweep_stats *b, const RaidSweepTrades *tb);

#endif
