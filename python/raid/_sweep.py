"""The moving-average crossover sweep through the library's sweep API (include/raid/sweep.h):
raid_sweep_run_arrays on numpy arrays (one series, or ragged series by offsets), pandas Series and
DataFrames (one series per symbol, as `raid sweep` reads its CSV); the float64 cpu path or the device
sweep (docs/ta_sweep.md)."""
import numpy as np
import pandas as pd

from ._convert import as_c, c_int, column, flag, floats, frame, integers, is_frame, real, symbol_runs
from ._core import _text, check, context, ffi, lib, records, reporting
from ._csv import mark_model
from ._ma import _check_dates, _stat

# masked entries: what to do instead (a sweep has no missing prices)
_HOW = "give the prices without them ({name}.compressed(), with offsets to match)"

STATS = ["trades", "total_log_return", "sharpe", "max_drawdown", "exposure"]
TRADES = ["entry_bar", "exit_bar", "entry_price", "exit_price", "side"]


def _range(r, name):
    """(lo, hi, step) from a tuple/list of 1 to 3 integers, an integer, or a string "LO:HI:STEP"."""
    if isinstance(r, str):
        lo, hi, st = ffi.new("int *"), ffi.new("int *"), ffi.new("int *")
        check(lib.raid_sweep_parse_range(r.encode(), lo, hi, st))
        return lo[0], hi[0], st[0]
    if isinstance(r, (int, np.integer)) and not isinstance(r, bool):
        r = (r,)
    if not isinstance(r, (tuple, list)) or not 1 <= len(r) <= 3:
        raise ValueError(f"{name} must be (lo, hi, step), (lo, hi), an integer or 'LO:HI:STEP', not {r!r}")
    v = [c_int(x, name) for x in r]
    return (v[0], v[0], 1) if len(v) == 1 else (v[0], v[1], v[2] if len(v) == 3 else 1)


def _spec(fast, slow, ma, short, cost_bps, fill, bars_per_year, trades, formulation="direct"):
    """The spec, checked as on the cpu path (precision df); the context's precision is checked by the run."""
    s = ffi.new("raid_sweep_spec *")
    lib.raid_sweep_spec_default(s)
    s.ma = _stat(ma)
    s.fast_lo, s.fast_hi, s.fast_step = _range(fast, "fast")
    s.slow_lo, s.slow_hi, s.slow_step = _range(slow, "slow")
    s.short_side = 1 if flag(short, "short") else 0
    if fill not in ("close", "next-open"):
        raise ValueError(f"fill must be 'close' or 'next-open', not {fill!r}")
    s.fill = lib.RAID_SWEEP_FILL_CLOSE if fill == "close" else lib.RAID_SWEEP_FILL_NEXT_OPEN
    s.cost_bps = real(cost_bps, "cost_bps")
    s.bars_per_year = real(bars_per_year, "bars_per_year")
    s.keep_trades = 1 if flag(trades, "trades") else 0
    if formulation not in ("direct", "prefix"):
        raise ValueError(f"formulation must be 'direct' or 'prefix', not {formulation!r}")
    s.formulation = lib.RAID_SWEEP_DIRECT if formulation == "direct" else lib.RAID_SWEEP_PREFIX
    check(lib.raid_sweep_spec_check(ffi.NULL, s))
    return s


def _run(close, open_, off, names, spec, device, precision, progress=None):
    c, pc = as_c(close, np.float64, "close")
    o, po = (None, ffi.NULL) if open_ is None else as_c(open_, np.float64, "open")
    if o is not None and o.size != c.size:
        raise ValueError(f"open has {o.size} values, close {c.size}")
    off, poff = as_c(off, np.int64, "offsets")
    if off.size < 2 or off[0] < 0 or off[-1] > c.size:
        raise ValueError(f"offsets must have at least two entries in [0, {c.size}]")
    keep = [ffi.new("char[]", n) for n in names] if names is not None else None
    psym = ffi.new("const char *[]", keep) if keep is not None else ffi.NULL
    ctx = context(device, precision)
    out = ffi.new("raid_sweep_result **")
    with reporting(ctx, progress, "sweep"):
        check(lib.raid_sweep_run_arrays(ctx, spec, pc, po, poff, off.size - 1, psym, out), ctx)
    return ffi.gc(out[0], lib.raid_sweep_result_destroy)


def _frames(r, names, trades):
    K = lib.raid_sweep_result_count(r)
    se, f, w = ffi.new("size_t *"), ffi.new("int *"), ffi.new("int *")
    st = ffi.new("raid_sweep_stats *")
    cols = {k: np.empty(K, np.int64) for k in ("series", "fast", "slow", "trades")}
    for k in STATS[1:]:
        cols[k] = np.empty(K)
    tv, tn = ffi.new("const raid_sweep_trade **"), ffi.new("size_t *")
    tparts = []
    for k in range(K):
        check(lib.raid_sweep_result_get(r, k, se, f, w, st))
        cols["series"][k], cols["fast"][k], cols["slow"][k], cols["trades"][k] = se[0], f[0], w[0], st.trades
        for s in STATS[1:]:
            cols[s][k] = getattr(st, s)
        if trades:
            check(lib.raid_sweep_result_trades(r, k, tv, tn))
            if tn[0]:
                rec = records(tv[0], tn[0], "raid_sweep_trade")
                tparts.append((se[0], f[0], w[0], rec))
    if (cols["trades"] < 0).any():  # combinations without a value: NaN, as read_csv reads raid sweep's empty fields
        cols["trades"] = np.where(cols["trades"] < 0, np.nan, cols["trades"])
    df = pd.DataFrame({k: cols[k] for k in ["fast", "slow", *STATS]})
    df.attrs["messages"] = [_text(lib.raid_sweep_result_message(r, i)) for i in range(lib.raid_sweep_result_nmessages(r))]
    if names is not None:
        df.insert(0, "symbol", [names[i] for i in cols["series"]])
    if not trades:
        return mark_model(df)
    rows = {k: [] for k in ["series", "fast", "slow", *TRADES]}
    for s_, f_, w_, rec in tparts:
        n = rec.size
        rows["series"].append(np.full(n, s_, np.int64))
        rows["fast"].append(np.full(n, f_, np.int64))
        rows["slow"].append(np.full(n, w_, np.int64))
        for t in TRADES:
            rows[t].append(rec[t])
    cat = {k: (np.concatenate(v) if v else np.zeros(0, np.float64 if "price" in k else np.int64))
           for k, v in rows.items()}
    cat["side"] = cat["side"].astype(np.int64)
    tdf = pd.DataFrame({k: cat[k] for k in ["fast", "slow", *TRADES]})
    if names is not None:
        tdf.insert(0, "symbol", [names[i] for i in cat["series"]])
    return mark_model(df, tdf)


def sweep(x, fast=(5, 50, 1), slow=(20, 200, 5), *, ma="hma", short=False, cost_bps=0.0, fill="close",
          bars_per_year=252, trades=False, open=None, offsets=None, close_col=None, open_col=None,
          symbol_col=None, date_col=None, device=None, precision="df", formulation="direct", progress=None):
    """Backtests of the moving-average crossover over a grid of (fast, slow) periods (docs/ta_sweep.md).

    Long when MA(fast) > MA(slow) at bar t (both defined), flat otherwise (short instead with short=True);
    a change decided at bar t is filled at the close of bar t+1 (fill="next-open": its open, which needs
    open prices); a position open at the last bar is closed at its close; cost_bps per side. fast, slow:
    (lo, hi, step), (lo, hi), a period, or "LO:HI:STEP"; pairs with fast >= slow are skipped. ma: "hma"
    (R TTR's convention), "wma", "mean" or "ema".

    x may be (prices by the package's values rule, docs/python.md "Inputs") a one-dimensional array of closes (one series, or several back to back by offsets, nseries +
    1 int64), a pandas Series of closes, or a DataFrame (or a pyarrow Table) as `raid sweep` reads its CSV: close_col (default
    "close"), open_col (default "open"; used only with fill="next-open"), one series per symbol when a
    symbol column is there (symbol_col, default "symbol"; its rows contiguous), in time order when a date
    column is there (date_col, default "date", else "timestamp": a date out of order or repeated raises
    RaidError naming the symbol and row, as `raid sweep` refuses it; arrays and Series carry no dates, their
    order is the caller's). open: the opens of an array or Series x. Prices finite and > 0.

    Returns a DataFrame [symbol,]fast,slow,trades,total_log_return,sharpe,max_drawdown,exposure (the rows of
    `raid sweep`'s CSV); a combination without a value (its series has fewer than 3 bars, or its slow
    average has its first value too late for a position: docs/ta_sweep.md) has NaN statistics, trades
    included (the column is then float64, as pandas reads the CSV's empty fields), and the reasons, one line
    per series, are in .attrs["messages"]; with trades=True a pair (that, trades DataFrame [symbol,]fast,slow,entry_bar,
    exit_bar,entry_price,exit_price,side). device: as raid.context: "cpu" the float64 path, a device the
    device sweep (moving averages, trades and statistics there: the float64 trades except at float64
    ties, statistics within docs/ta_sweep.md's bound). precision: the context's, as raid.realized's
    (raid.context; docs/precision.md): "df" or "f32" (plain float32 sums of hma, wma and mean, emulated
    on "cpu"), formulation "direct" or "prefix" (the float32 prefix-sum trap), as `raid sweep`. progress: the
    backtests' progress (unit "backtests": series x pairs), as raid.garch's. Errors: ValueError (arguments), RaidError (the library's: a bad price, a grid without pairs)."""
    spec = _spec(fast, slow, ma, short, cost_bps, fill, bars_per_year, trades, formulation)
    names = None
    if is_frame(x):
        x = frame(x, "x", "close (open, symbol)")
        cc = column(x, close_col, "close")
        close = floats(x[cc], cc, nulls="nan")
        open_ = None
        if fill == "next-open":
            oc = column(x, open_col, "open")
            open_ = floats(x[oc], oc, nulls="nan")
        sc = column(x, symbol_col, "symbol", required=False)
        dc = column(x, date_col, "date", required=False)
        if dc is None and date_col is None:
            dc = column(x, None, "timestamp", required=False)
        codes = None
        if sc is not None:
            codes, names, off = symbol_runs(x[sc], "raid sweep")
        else:
            off = np.array([0, close.size], dtype=np.int64)
        if dc is not None:  # in time order within each series, as `raid sweep` reads its CSV
            _check_dates(x[dc], off, names, codes)
    else:
        close = floats(x, "x", nulls="nan", how=_HOW.format(name="x"))
        open_ = None if open is None else floats(open, "open", nulls="nan", how=_HOW.format(name="open"))
        off = np.array([0, close.size], np.int64) if offsets is None else integers(offsets, "offsets")
    r = _run(close, open_, off, names, spec, device, precision, progress)
    res = _frames(r, [n.decode() for n in names] if names is not None else None, trades)
    return res
