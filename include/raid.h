/*
 * raid.h -- the umbrella header of libraid: include this one.
 *
 * RAID computes float64-faithful realized measures, regressions and (later) volatility models on OpenCL
 * devices whose float64 is missing or slow: every device accumulator is a double-float pair kept with
 * error-free transforms, chunk partials are combined in float64 on the host in a fixed order, and every
 * device result can be checked against the float64 CPU backend.
 *
 * The API is split by area under include/raid/ (core.h states the conventions every part follows):
 *   raid/core.h      versions, errors, contexts, devices
 *   raid/realized.h  realized measures
 *   raid/regress.h   regression statistics, robust meats, OLS and robust inference
 *   raid/reader.h    CSV of intraday prices or returns into segments
 *   raid/returns.h   the log returns of intraday prices, one row a return
 *   raid/jumps.h     the Lee-Mykland test for a jump in each return
 *   raid/simulate.h  the simulator
 *   raid/outfile.h   output files written whole or not at all (temporary file, renamed)
 *   raid/har.h       HAR-family regressions of daily realized variance: fits, windows, forecasts
 *   raid/garch.h     GARCH-family volatility models of many series at once: fits, windows, forecasts
 *   raid/ma.h        moving averages and rolling statistics of many price series (technical analysis)
 *   raid/sweep.h     moving-average crossover backtests over a grid of periods (the sweep)
 *   raid/groupby.h   group-by of float64 values by int64 keys, with exact (correctly rounded) group sums
 *   raid/bars.h      trades to OHLCV bars per symbol and interval (exact volume and vwap sums)
 *   raid/sort.h      sorting float64 columns: sort, stable argsort, pairs, segments, nulls
 *   raid/select.h    order statistics of float64 columns: k-th value, median, quantiles, top-k, min/max
 *   raid/arrow.h     the column operations on Arrow C data interface arrays (no copy where the layout allows)
 *   raid/precision.h the f32 precision curve (raid precision-report)
 *   raid/tuning.h    knobs and measurements for benchmarks and tests only
 */
#ifndef RAID_H
#define RAID_H

#include "raid/core.h"
#include "raid/realized.h"
#include "raid/regress.h"
#include "raid/reader.h"
#include "raid/simulate.h"
#include "raid/outfile.h"
#include "raid/har.h"
#include "raid/garch.h"
#include "raid/ma.h"
#include "raid/sweep.h"
#include "raid/groupby.h"
#include "raid/bars.h"
#include "raid/sort.h"
#include "raid/select.h"
#include "raid/arrow.h"
#include "raid/precision.h"
#include "raid/f64.h"
#include "raid/returns.h"
#include "raid/cov.h"
#include "raid/jumps.h"
#include "raid/tuning.h"

#endif /* RAID_H */
