"""Moving averages and rolling statistics through the library's indicator API (include/raid/ma.h):
raid_ma_compute on numpy arrays (one series, or ragged series by offsets), pandas Series and DataFrames
(one series per symbol, as `raid ma` reads its CSV). float64, R TTR's conventions (docs/ta.md)."""
import numpy as np
import pandas as pd

from ._convert import as_c, c_int, column, date_labels, datetimes, floats, frame, integers, is_frame, symbol_runs
from ._core import check, context, ffi, lib, reporting
from ._csv import mark_model

# masked entries: what to do instead (NaN is a missing value here, docs/ta.md)
HOW = "give NaN for them ({name}.filled(np.nan): a missing value restarts the series) or the values without them"


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


def _check_dates(col, off, names, codes):
    """The library's time-order check of a date column per series (raid_dates_check_order or, for datetimes,
    raid_times_check_order: include/raid/reader.h, the rule of `raid ma`'s and `raid sweep`'s CSV
    readers): RaidError naming the symbol and the row (the DataFrame's 0-based position) of the first date
    that does not come after the one before it; ValueError for a missing date. The dates are the package's
    date labels (_convert.datetimes, date_labels: numpy or Arrow datetimes as times, the rest as text)."""
    n = len(col)
    poff = ffi.from_buffer("int64_t[]", np.ascontiguousarray(off, dtype=np.int64))
    keep = None if names is None else [ffi.new("char[]", names[codes[int(o)]]) for o in off[:-1]]
    psym = ffi.NULL if keep is None else ffi.new("const char *[]", keep)
    rows = np.arange(n, dtype=np.int64)
    prow = ffi.from_buffer("int64_t[]", rows)
    dt = datetimes(col)
    if dt is not None:  # instants (tz-aware) or clock times, as integers
        idx = pd.DatetimeIndex(dt)
        if idx.isna().any():
            raise ValueError(f"row {int(np.flatnonzero(idx.isna())[0])}: missing date (NaN, None or NaT)")
        t = np.ascontiguousarray(idx.asi8, dtype=np.int64)
        per_s = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}[idx.unit]
        check(lib.raid_times_check_order(ffi.from_buffer("int64_t[]", t), per_s, poff, len(off) - 1, psym, prow))
        return
    kd = [ffi.new("char[]", v.encode("utf-8", "surrogateescape")) for v in date_labels(col)]
    check(lib.raid_dates_check_order(ffi.new("const char *[]", kd), poff, len(off) - 1, psym, prow))


def ma(x, stat="wma", window=10, *, offsets=None, col=None, symbol_col=None, date_col=None, device=None,
       progress=None):
    """A moving average or rolling statistic (docs/ta.md), in float64 with R TTR's conventions.

    stat: "sum", "mean" (or "sma"), "sumsq", "var" (sample, divisor window - 1), "wma" (weights 1..window), "ema"
    (2/(window+1), seeded by the mean of the first window values) or "hma" (window >= 2); window: an
    integer in [1, 2^30]. NaN where a window is incomplete; leading NaN shift the start; a NaN inside a
    series restarts it (every window holding it NaN; the EMA and HMA warm up again after it). A series
    shorter than the warm-up is NaN throughout (R TTR stops with an error there; never a value for it).

    x may be (values by the package's values rule, docs/python.md "Inputs": integers exact in float64 taken,
    pandas NA and pyarrow nulls read as NaN, text refused):
      - a one-dimensional array (numpy, list, pyarrow) of values: one series, or the series x[offsets[s]:offsets[s+1]]
        back to back when offsets (nseries + 1 non-decreasing int64) is given; returns a float64 array of
        x's length (NaN outside the offsets' range);
      - a pandas Series: one series; returns a Series with x's index, named stat;
      - a pandas DataFrame (or a pyarrow Table) as `raid ma` reads its CSV: the values in column col (default "close"), one
        series per symbol when a symbol column is there (symbol_col, default "symbol"; its rows
        contiguous), the date column (date_col, default "date", else "timestamp") kept; returns a DataFrame
        [symbol,][date,]STAT with x's index: `raid ma`'s output. Each series' dates must increase (a date
        out of order or repeated raises RaidError naming the symbol and row, as `raid ma` refuses it):
        compared as times (datetime64, or ISO 8601 text), as numbers, else as text (raid_date_compare,
        include/raid/reader.h). Arrays and Series carry no dates: their order is the caller's.
    device: as raid.context (today every device computes on the host in float64); progress: the series'
    progress (unit "series"), as raid.garch's. Errors: ValueError
    (arguments), RaidError (the library's: a window out of range, an infinite value, ...)."""
    if is_frame(x):
        x = frame(x, "x", "close (symbol, date)")
        vc = column(x, col, "close")
        sc = column(x, symbol_col, "symbol", required=False)
        dc = column(x, date_col, "date", required=False)
        if dc is None and date_col is None:
            dc = column(x, None, "timestamp", required=False)
        values = floats(x[vc], vc, nulls="nan")
        names = codes = None
        if sc is not None:
            codes, names, off = symbol_runs(x[sc], "raid ma")
        else:
            off = np.array([0, values.size], dtype=np.int64)
        if dc is not None:  # in time order within each series, as `raid ma` reads its CSV
            _check_dates(x[dc], off, names, codes)
        out = pd.DataFrame(index=x.index)
        if sc is not None:
            out["symbol"] = x[sc].to_numpy()
        if dc is not None:
            out[dc] = x[dc].to_numpy()
        out[stat] = _compute(values, off, stat, window, device, progress)
        return mark_model(out)
    values = floats(x, "x", nulls="nan", how=HOW.format(name="x"))
    if isinstance(x, pd.Series):
        return pd.Series(_compute(values, [0, values.size], stat, window, device, progress), index=x.index,
                         name=stat)
    return _compute(values, [0, values.size] if offsets is None else integers(offsets, "offsets"), stat, window,
                    device, progress)
