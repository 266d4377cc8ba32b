"""raid: float64-faithful realized measures (and HAR models) on float32 GPUs, from Python.

A binding of libraid's public API (include/raid.h) with cffi; numpy arrays in, pandas DataFrames out.
Library failures raise RaidError with the library's status and message. docs/python.md has the guide.

    raid.devices()                         OpenCL and CUDA devices (the "cpu" backend is always there)
    raid.realized(returns, offsets, ...)   realized measures of segments of returns
    raid.realized_from_prices(df, ...)     the same from intraday prices, as `raid realized` reads them
    raid.returns(df_or_path, ...)          their log returns, one row a return, as `raid returns` writes them
    raid.cov(df_or_path, estimator=...)    daily realized covariance matrices of many symbols, as `raid cov`
    raid.jumps(df_or_path, ...)            the Lee-Mykland test of each of raid.returns' returns (`raid jumps`)
    raid.to_csv(df, path)                  write a result as the CLI writes the same job's CSV
    raid.simulate(kind=..., ...)           the library's simulator
    raid.har(measures, model=..., ...)     HAR-family regressions, windows, forecasts, losses
    raid.garch(returns, model=..., ...)    GARCH, GJR and EGARCH fits of many series (and windows) at once
    raid.ma(x, stat=..., window=...)       moving averages and rolling statistics (TTR conventions)
    raid.sweep(x, fast=..., slow=...)      moving-average crossover backtests over a grid of periods
    raid.groupby(keys, values, aggs=...)   group-by of float64 values by int64 keys, exact group sums
    raid.sort(x), raid.argsort(x)          float64 sort and stable argsort, bit for bit numpy's (radix)
    raid.median(x), raid.quantile(x, q)    order statistics without sorting, numpy's semantics bit for bit:
    raid.kth, raid.topk, raid.min/max      np.partition, np.quantile (linear), np.sort's ends, np.min/nanmin
    raid.bars(trades_df, interval=...)     trades to OHLCV bars per symbol and interval (exact volume, vwap)
    raid.ffi, raid.lib                     the whole C API as cffi declares it from include/ (low level)
"""
from ._bars import bars
from ._core import RaidError, RaidNotice, device_name, ffi, lib, status_name, version
from ._garch import garch
from ._groupby import groupby
from ._har import HarFit, har
from ._ma import ma
from ._csv import to_csv
from ._f64 import (absolute, add, arccos, arcsin, arctan, arctan2, ceil, copysign, cos, cosh, divide, equal, exp,
                   exp10, exp2, expm1, floor, greater, greater_equal, isfinite, isinf, isnan, less, less_equal, log,
                   log1p, log2, log10, maximum, minimum, multiply, negative, not_equal, power, rint, sin, sinh, sqrt,
                   subtract, tan, tanh, trunc)
from ._f64 import eval  # noqa: A004 (raid.eval, as numexpr.evaluate)
from ._realized import jumps, measure_names, realized, realized_from_prices, returns
from ._cov import CovResult, cov, cov_estimators
from ._select import kth, max, median, min, quantile, topk  # noqa: A004 (raid.min/raid.max, as np.min)
from ._simulate import backend_absent, devices, sim_options, simulate
from ._sort import argsort, sort, sort_pairs
from ._sweep import sweep

__version__ = version()

__all__ = ["HarFit", "garch", "groupby", "har", "RaidError", "RaidNotice", "ffi", "lib", "backend_absent", "devices", "device_name", "kth",
           "ma", "max", "measure_names", "median", "min", "quantile", "topk", "realized", "realized_from_prices", "returns", "jumps", "cov", "cov_estimators", "CovResult",
           "sim_options", "simulate", "sort", "argsort", "sort_pairs", "status_name", "sweep", "to_csv", "version",
           "bars", "absolute", "add", "ceil", "copysign", "divide", "eval", "floor", "maximum", "minimum",
           "multiply", "negative", "rint", "sqrt", "subtract", "trunc", "equal", "not_equal", "less",
           "less_equal", "greater", "greater_equal", "isnan", "isinf", "isfinite", "log", "log2", "log10", "log1p",
           "exp", "exp2", "exp10", "expm1", "sinh", "cosh", "tanh", "sin", "cos", "tan", "arcsin", "arccos",
           "arctan", "arctan2"]
