"""Moving averages and rolling statistics through the library's indicator API (include/raid/ma.h):
raid_ma_compute on numpy arrays (one series, or ragged series by offsets), pandas Series and DataFrames
(one series per symbol, as `raid ma` reads its CSV). float64, R TTR's conventions (docs/ta.md)."""
import numpy as np
import pandas as pd

from ._core import as_c, c_int, check, column_floats, context, ffi, lib, reporting, symbol_codes
from ._realized import _column


def _stat(stat):
    if not isinstance(stat, str):
        raise ValueError(f"stat must be a string, not {stat!r}")
    out = ffi.new("raid_ma_stat *")
    check(lib.raid_ma_stat_parse(stat.encode(), out))
    return out[0]


def _compute(values, offsets, stat, window, device, progress=None):
    x, px = as_c(values, np.float64, "x")
    off, poff = as_c(offsets, np.int64, "offsets")
    if off.size < 1:
        raise ValueError("offsets must have at least one entry")
    if off[-1] > x.size or (off.size and off[0] < 0):
        raise ValueError(f"offsets must lie in [0, {x.size}]")
    out = np.full(x.size, np.nan)
    pout = ffi.from_buffer("double[]", out)
    ctx = context(device)
    with reporting(ctx, progress, "ma"):
        check(lib.raid_ma_compute(ctx, _stat(stat), c_int(window, "window", "int64_t"), px, poff, off.size - 1, pout),
              ctx)
    return out


def _runs(codes, what):
    """Offsets of the contiguous runs of codes; ValueError when a code comes back after another."""
    n = codes.size
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]]) if n else np.zeros(0, np.int64)
    seen = codes[starts]
    if np.unique(seen).size != seen.size:
        k = next(i for i in range(seen.size) if seen[i] in seen[:i])
        raise ValueError(f"row {int(starts[k])}: {what} again, after other {what}s; the rows of a {what} must be "
                         f"contiguous (sort by {what}, date)")
    return np.r_[starts, n].astype(np.int64)


def ma(x, stat="wma", window=10, *, offsets=None, col=None, symbol_col=None, date_col=None, device=None,
       progress=None):
    """A moving average or rolling statistic (docs/ta.md), in float64 with R TTR's conventions.

    stat: "sum", "mean", "sumsq", "var" (sample, divisor window - 1), "wma" (weights 1..window), "ema"
    (2/(window+1), seeded by the mean of the first window values) or "hma" (window >= 2); window: an
    integer in [1, 2^30]. NaN where a window is incomplete; leading NaN shift the start; a NaN inside a
    series restarts it (every window holding it NaN; the EMA and HMA warm up again after it).

    x may be:
      - a one-dimensional array of float64 values: one series, or the series x[offsets[s]:offsets[s+1]]
        back to back when offsets (nseries + 1 non-decreasing int64) is given; returns a float64 array of
        x's length (NaN outside the offsets' range);
      - a pandas Series: one series; returns a Series with x's index, named stat;
      - a pandas DataFrame as `raid ma` reads its CSV: the values in column col (default "close"), one
        series per symbol when a symbol column is there (symbol_col, default "symbol"; its rows
        contiguous), the date column (date_col, default "date", else "timestamp") kept; returns a DataFrame
        [symbol,][date,]STAT with x's index: `raid ma`'s output.
    device: as raid.context (today every device computes on the host in float64); progress: the series'
    progress (unit "series"), as raid.garch's. Errors: ValueError
    (arguments), RaidError (the library's: a window out of range, an infinite value, ...)."""
    if isinstance(x, pd.DataFrame):
        vc = _column(x, col, "close")
        sc = _column(x, symbol_col, "symbol", required=False)
        dc = _column(x, date_col, "date", required=False)
        if dc is None and date_col is None:
            dc = _column(x, None, "timestamp", required=False)
        values = column_floats(x[vc], vc)
        if sc is not None:
            codes, _ = symbol_codes(x[sc])
            off = _runs(codes, "symbol")
        else:
            off = np.array([0, values.size], dtype=np.int64)
        out = pd.DataFrame(index=x.index)
        if sc is not None:
            out["symbol"] = x[sc].to_numpy()
        if dc is not None:
            out[dc] = x[dc].to_numpy()
        out[stat] = _compute(values, off, stat, window, device, progress)
        return out
    if isinstance(x, pd.Series):
        values = column_floats(x, "x")
        return pd.Series(_compute(values, [0, values.size], stat, window, device, progress), index=x.index,
                         name=stat)
    values = column_floats(x, "x")
    if values.ndim != 1:
        raise ValueError(f"x must be one-dimensional, not of shape {values.shape}")
    return _compute(values, [0, values.size] if offsets is None else offsets, stat, window, device, progress)
