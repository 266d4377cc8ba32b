/*
 * raid/sweep.h -- moving-average crossover backtests over a grid of (fast, slow) periods, every series
 * (symbol) of an input at once (docs/ta_sweep.md is the specification of the trades and the
 * statistics). Part of the public API; include <raid.h> for all of it. Conventions: raid/core.h.
 *
 * Strategy on the closes of one series: long when MA(fast)[t] > MA(slow)[t] (both defined), flat otherwise
 * (short instead of flat with short_side); a change decided at bar t is filled at close[t+1] (or open[t+1]
 * with RAID_SWEEP_FILL_NEXT_OPEN); a position open at the last bar is closed at its close; cost per side.
 * MA is raid_ma_compute's statistic (include/raid/ma.h; HMA by default, R TTR's convention).
 *
 * Backends (docs/ta_sweep.md): on a device context every distinct moving average the grid needs is
 * computed once per series on the device (double-float direct window sums, or plain float32 with the
 * context's precision RAID_PREC_F32), and the trades and statistics of every combination are scanned there
 * too (per chunk of bars, partials combined in float64 on the host in a fixed order); the trades equal the float64 path's
 * except at float64 ties (raid_sweep_parity proves it), the statistics are within docs/ta_sweep.md's
 * bound. On NULL or a cpu context the float64 cpu path (the oracle): the moving averages with
 * raid_ma_compute on the host (periods in parallel), then every combination (OpenMP; results independent
 * of the thread count). Memory: bars x distinct periods of one series (8 bytes each on the host or the
 * device), plus combinations x statistics (plus the trades when kept).
 */
#ifndef RAID_SWEEP_H
#define RAID_SWEEP_H

#include "raid/core.h"
#include "raid/ma.h"

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum raid_sweep_fill { RAID_SWEEP_FILL_CLOSE = 0, RAID_SWEEP_FILL_NEXT_OPEN = 1 } raid_sweep_fill;

/* Formulation of the moving averages of the sweep (and of the path the parity report checks): direct window
 * sums, the default, at the context's precision (raid_ctx_set_precision, include/raid/core.h): RAID_PREC_DF,
 * the default, double-float direct sums on a device (float64 on the cpu); RAID_PREC_F32, plain float32
 * direct window sums (the float32 Metal backtest's method: on a device its kernels, on the cpu emulated for
 * the parity report); prefix, the float32 prefix-sum WMA, only to show its trap (computed on the host; a
 * device scans it; the precision is not used). */
typedef enum raid_sweep_formulation { RAID_SWEEP_DIRECT = 0, RAID_SWEEP_PREFIX = 1 } raid_sweep_formulation;

#define RAID_SWEEP_MAX_PERIOD 1048576 /* 2^20: the largest period of a grid */
#define RAID_SWEEP_MAX_COMBOS 100000000 /* 1e8: the largest number of combinations of one grid */

typedef struct raid_sweep_spec {
    raid_ma_stat ma;                 /* the moving average: RAID_MA_HMA (default), MEAN, WMA or EMA (price units) */
    int fast_lo, fast_hi, fast_step; /* fast periods lo, lo + step, ... <= hi (bars; >= 1, >= 2 for hma) */
    int slow_lo, slow_hi, slow_step; /* slow periods; combinations with fast >= slow are skipped */
    int short_side;                  /* 1: short instead of flat when both are defined and fast <= slow */
    raid_sweep_fill fill;            /* close (default) or next-open (needs open prices) */
    double cost_bps;                 /* cost per side in basis points, [0, 1e4); default 0 */
    double bars_per_year;            /* annualisation of the Sharpe ratio, > 0; default 252 */
    int keep_trades;                 /* 1: keep every trade (raid_sweep_result_trades, raid_sweep_write_trades) */
    raid_sweep_formulation formulation; /* direct (default) or prefix (wma, hma: the trap) */
} raid_sweep_spec;

/** The defaults: hma, fast 5:50:1, slow 20:200:5, long/flat, fill at the close, no cost, 252 bars per year,
 *  no trades kept, direct. */
RAID_API void raid_sweep_spec_default(raid_sweep_spec *s);

/** Parse a range "LO:HI:STEP" (or "LO:HI", step 1, or "P", one period) of periods: integers, 1 <= LO <= HI
 *  <= RAID_SWEEP_MAX_PERIOD, 1 <= STEP. Errors: RAID_EINVAL (NULL, syntax, out of range; raid_errmsg). */
RAID_API raid_status raid_sweep_parse_range(const char *s, int *lo, int *hi, int *step);

/** Check a spec for a run on ctx (NULL: the cpu path, precision RAID_PREC_DF): ranges, ma, fill, cost,
 *  bars_per_year, the context's precision RAID_PREC_F32 (direct formulation) only with hma, wma or mean,
 *  formulation prefix with wma or hma, the number of combinations with fast < slow: at least 1, at most
 *  RAID_SWEEP_MAX_COMBOS. raid_sweep_run and raid_sweep_parity check the same. Errors: RAID_EINVAL
 *  (raid_errmsg(); ctx's message is left alone). */
RAID_API raid_status raid_sweep_spec_check(const raid_ctx *ctx, const raid_sweep_spec *s);

/* One trade: bars are indices into its series (0-based); prices the fill prices (close or open). */
typedef struct raid_sweep_trade {
    int64_t entry_bar, exit_bar;
    double entry_price, exit_price;
    int side; /* +1 long, -1 short */
} raid_sweep_trade;

/* The statistics of one combination (docs/ta_sweep.md). */
typedef struct raid_sweep_stats {
    int64_t trades;          /* the number of trades (a flip counts two); -1 marks a combination without a value
                                (its series skipped, or its slow average undefined up to the last bar: below),
                                whose statistics are NaN */
    double total_log_return; /* sum over trades of side log(exit/entry) + 2 log1p(-cost), log units */
    double sharpe;           /* mean/sd of the n-1 per-bar log returns x sqrt(bars_per_year); 0 when sd = 0 */
    double max_drawdown;     /* largest fall of the log equity curve below its running peak, log units, >= 0 */
    double exposure;         /* fraction of the n-1 return bars with a position, [0, 1] */
} raid_sweep_stats;

typedef struct raid_sweep_result raid_sweep_result;

/** Run the grid of spec on nseries series: close[offsets[s] .. offsets[s+1]) (offsets: nseries + 1
 *  non-decreasing, offsets[0] >= 0), open the same shape or NULL (required by next-open; ignored with fill
 *  close). Bars in time order: index order is time order (no dates here; raid_dates_check_order of
 *  include/raid/reader.h checks a binding's dates, and raid_sweep_run's input was checked when read).
 *  Prices finite and > 0. symbols: nseries names (copied; NULL: no symbol column in the outputs). ctx:
 *  NULL or cpu (the float64 path) or a device (above). *out: the result (raid_sweep_result_destroy).
 *  Combinations without a value (trades -1, NaN statistics, empty CSV fields; raid_sweep_result_nvalued
 *  counts the others), each series that has any named in a message (raid_sweep_result_message):
 *    - every combination of a series of fewer than 3 bars (the Sharpe ratio's sd needs two returns): the
 *      series is skipped ("series S ('A') has 2 bars (at least 3 are needed): skipped, ..."), the others
 *      are swept, as raid garch fits the series it can;
 *    - a combination whose slow average has its first value too late for a position: raid_ma_warmup(ma,
 *      slow) > bars - 3 with fill at the close (a decision at bar t is filled at bar t+1, and the fill at
 *      the last close only exits), > bars - 2 at the next open (R TTR refuses a window longer than the
 *      series): no value rather than zeros that would pose as the statistics of a strategy.
 *  Errors: RAID_EINVAL (spec, offsets, a bad price: its series and bar), RAID_ENOMEM; message
 *  raid_ctx_errmsg(ctx) (ctx NULL: raid_errmsg()). *out NULL on failure. */
RAID_API raid_status raid_sweep_run_arrays(raid_ctx *ctx, const raid_sweep_spec *spec, const double *close,
                                           const double *open, const int64_t *offsets, size_t nseries,
                                           const char *const *symbols, raid_sweep_result **out);

/** Run the grid on a table read by raid_ma_read_csv_columns with cols = {close, open} (open optional):
 *  column 0 the closes, column 1 (when present) the opens; the symbols (when the file had a symbol
 *  column) go to the outputs. A series too short is skipped with the message "FILE:LINE:COL: series 'A'
 *  has 2 bars (at least 3 are needed): skipped, its combinations have no value" (its first row, the symbol
 *  column). Errors: as raid_sweep_run_arrays, but RAID_EPARSE with FILE:LINE:COL for a bad price (its
 *  symbol and date) and "FILE:LINE:1: no data rows (only a header)" for a table without rows (a backtest of
 *  no data; raid ma writes such a table's header alone). */
RAID_API raid_status raid_sweep_run(raid_ctx *ctx, const raid_sweep_spec *spec, const raid_ma_input *in,
                                    raid_sweep_result **out);

/** Combinations of the result: series-major, then fast ascending, then slow ascending (only fast < slow). */
RAID_API size_t raid_sweep_result_count(const raid_sweep_result *r);
/** Combination k: its series index, periods and statistics (any output pointer may be NULL).
 *  Errors: RAID_EINVAL (NULL r, k out of range; raid_errmsg). */
RAID_API raid_status raid_sweep_result_get(const raid_sweep_result *r, size_t k, size_t *series, int *fast,
                                           int *slow, raid_sweep_stats *st);
/** The trades of combination k in time order (*v NULL and *n 0 when none). Errors: RAID_EINVAL (NULL,
 *  k out of range, trades not kept). */
RAID_API raid_status raid_sweep_result_trades(const raid_sweep_result *r, size_t k, const raid_sweep_trade **v,
                                              size_t *n);
/** The name of series s ("" without symbols); NULL when out of range. */
RAID_API const char *raid_sweep_result_symbol(const raid_sweep_result *r, size_t s);
/** The combinations that have a value (trades >= 0); 0 for NULL. */
RAID_API size_t raid_sweep_result_nvalued(const raid_sweep_result *r);
/** Messages of the run (lines without "raid sweep: "): a series skipped, the combinations of a series without
 *  a value (raid_sweep_run_arrays); count, and message i (NULL out of range; valid while r lives). */
RAID_API size_t raid_sweep_result_nmessages(const raid_sweep_result *r);
RAID_API const char *raid_sweep_result_message(const raid_sweep_result *r, size_t i);
/** The series that message i is about; (size_t)-1 when i is out of range (a client summarising the
 *  messages per series, as the CLI does). */
RAID_API size_t raid_sweep_result_message_series(const raid_sweep_result *r, size_t i);

/** Write the CSV of `raid sweep`: header "[symbol,]fast,slow,trades,total_log_return,sharpe,max_drawdown,
 *  exposure" (symbol when the result has symbols), one row per combination in result order, real numbers
 *  as the shortest text that reads back as the same double (raid_csv_put_value: empty when not finite); a combination without a value
 *  has its five statistics, trades included, empty. Errors (raid_errmsg): RAID_EINVAL
 *  (NULL), RAID_EIO (a write failed; errno kept). */
RAID_API raid_status raid_sweep_write_csv(const raid_sweep_result *r, FILE *f);
/** Write every trade: header "[symbol,]fast,slow,entry_bar,exit_bar,entry_price,exit_price,side", the
 *  combinations in result order, their trades in time order (bars 0-based in the series, prices 17
 *  significant digits, side 1 or -1). Errors: RAID_EINVAL (NULL, trades not kept), RAID_EIO. */
RAID_API raid_status raid_sweep_write_trades(const raid_sweep_result *r, FILE *f);
RAID_API void raid_sweep_result_destroy(raid_sweep_result *r);

/* ---- The parity report (docs/ta_sweep.md "Parity report") ----
 * The float64 cpu path (moving averages in float64 on the host, the cpu scan: the oracle) beside the
 * checked path, which is what raid_sweep_run gives on ctx with ctx's precision and spec's formulation:
 *   - direct, df on a device: the device sweep (moving averages, trades and statistics on the device);
 *     on NULL or cpu: float64 again, equal by construction;
 *   - prefix (any ctx): THE TRAP: WMA by raid_ma_wma_prefix_f32, HMA(n) from three of them (inner series
 *     2 WMA(x, n/2) - WMA(x, n) in float64, then the prefix WMA of window trunc(sqrt(n)) over its defined
 *     part), on the host, scanned on ctx; ma must be wma or hma. It must fail.
 *   - direct, f32 (RAID_PREC_F32): plain float32 direct window sums (the float32 Metal backtest's method; on a device its
 *     kernels, on the cpu emulated in float, the same values); hma, wma or mean. Its tie threshold is
 *     float32's, per combination: 2 u (B(fast) + B(slow)), u = 2^-24, B(n) the derived bound of one
 *     average in units of u M (n + 3; hma 2 (n/2 + 3) + n + 6 + 3 (trunc(sqrt n) + 3)); tie_rel reports
 *     the grid's largest.
 * Per combination the two trade lists are compared; a trade (entry bar, exit bar, side) present in one list
 * and not in the other is a shifted trade (counted on both paths: a moved exit is two). Each shifted trade
 * is checked against the float64 path's own margin |fast[t] - slow[t]| / close[t] at the bars t in
 * [max(0, entry_bar - 2), exit_bar - 1] where the two paths decide differently (the bars that can move that
 * trade): when the largest of them is below tie_rel (1e-12) it is a float64 tie (allowed, listed with its
 * margin), otherwise (or when a moving average is defined on one path only: margin NaN) a violation.
 * Where the two trade lists of a combination are equal, its statistics must agree: trades and exposure
 * exactly, total_log_return, sharpe and max_drawdown within docs/ta_sweep.md's bound of the device's
 * statistics (a host scan gives equal values); a combination outside is a statistics violation. */
typedef struct raid_sweep_shift {
    size_t series;          /* the series (symbol) index */
    int fast, slow;         /* the combination */
    int path;               /* 0: a float64 trade missing from the checked path; 1: a checked trade missing from float64 */
    raid_sweep_trade trade; /* the trade */
    double margin;          /* the largest float64 |fast - slow| / close at a differing decision of its span (NaN: definedness) */
    int tie;                /* 1 when margin < tie_rel: a float64 tie, allowed */
} raid_sweep_shift;

typedef struct raid_sweep_parity_report {
    raid_precision precision;           /* of the checked path: the context's (RAID_PREC_DF, RAID_PREC_F32) */
    raid_sweep_formulation formulation; /* of the checked path */
    raid_ma_stat ma;                    /* the moving average */
    int on_device;                      /* 1: the checked MAs came from a device; 0: from the host */
    size_t combos;                      /* combinations compared (series x pairs) */
    size_t count_differs;               /* combinations whose trade count differs */
    int64_t trades, trades_checked;     /* all trades of the float64 path, of the checked path */
    int64_t shifted;                    /* shifted trades (both paths) */
    int64_t ties, violations;           /* shifted trades at float64 ties (allowed) and the others */
    int64_t max_count_drift;            /* the largest |trade count difference| of one combination */
    double max_abs_dlogret;             /* the largest |delta total_log_return| of one combination */
    double tie_rel;                     /* the tie threshold on the float64 margin relative to the close: 1e-12 (f32:
                                           the grid's largest; each combination uses its own periods') */
    int64_t max_violations;             /* the threshold on violations: 0 */
    size_t stat_checked;                /* combinations with equal trade lists whose statistics were compared */
    size_t stat_violations;             /* of them, statistics outside the bound (threshold 0) */
    double max_stat_ratio;              /* the largest |delta| / bound of a statistic over them (<= 1 passes) */
    int passed;                         /* 1: violations <= max_violations and stat_violations == 0 */
    size_t nlisted;                     /* the shifted trades listed (the first 1,000 in result order) */
    raid_sweep_shift *listed;
} raid_sweep_parity_report;

/** Run the parity of spec on a table read by raid_ma_read_csv_columns (as raid_sweep_run) on ctx (NULL, cpu
 *  or a device). The checked path: ctx's precision (raid_ctx_precision; RAID_PREC_F32 needs ma hma, wma or
 *  mean, and is emulated on the host on a cpu context) with spec->formulation direct, or prefix (needs ma
 *  wma or hma; it ignores the precision). *out: the report (raid_sweep_parity_destroy); a failed parity is a
 *  report with passed = 0, not an error. res: NULL, or receives the checked path's result (as raid_sweep_run
 *  on ctx gives it). Errors: as raid_sweep_run; message raid_ctx_errmsg(ctx) (ctx NULL: raid_errmsg()). *out and *res NULL on failure. */
RAID_API raid_status raid_sweep_parity(raid_ctx *ctx, const raid_sweep_spec *spec, const raid_ma_input *in,
                                       raid_sweep_parity_report **out, raid_sweep_result **res);
/** The same on arrays (the arguments of raid_sweep_run_arrays). */
RAID_API raid_status raid_sweep_parity_arrays(raid_ctx *ctx, const raid_sweep_spec *spec, const double *close,
                                              const double *open, const int64_t *offsets, size_t nseries,
                                              const char *const *symbols, raid_sweep_parity_report **out,
                                              raid_sweep_result **res);
/** Write the report as text (docs/ta_sweep.md "Parity report": the counts, each against its threshold, the
 *  verdict, then the listed shifted trades with their margins). Errors: RAID_EINVAL (NULL), RAID_EIO. */
RAID_API raid_status raid_sweep_parity_write(const raid_sweep_parity_report *r, FILE *f);
RAID_API void raid_sweep_parity_destroy(raid_sweep_parity_report *r);

#ifdef __cplusplus
}
#endif
#endif /* RAID_SWEEP_H */
