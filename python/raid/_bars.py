"""Trades to OHLCV bars through the library's bars job on arrays (raid_bars_compute, include/raid/bars.h;
docs/column.md "Ticks to bars"): the same checks, session window, keys and exact group sums as `raid bars`,
the result as a pandas DataFrame with the CLI's columns."""
import datetime

import numpy as np
import pandas as pd

from ._convert import as_c, column, floats, frame, symbols, timestamps_us
from ._core import check, context, ffi, lib

_FIELDS = ("open", "high", "low", "close", "volume", "vwap")


def _interval_text(interval):
    """A timedelta (pandas, datetime, numpy) as the "Nms" / "Ns" text; any other value unchanged."""
    if isinstance(interval, (datetime.timedelta, np.timedelta64)):  # pd.Timedelta is a datetime.timedelta
        if isinstance(interval, np.timedelta64) and np.isnat(interval):
            raise ValueError("bad interval NaT")
        ns = int(pd.Timedelta(interval).value)
        if ns <= 0 or ns % 1_000_000:
            raise ValueError(f"bad interval {interval!r}: a positive whole number of milliseconds is needed")
        ms = ns // 1_000_000
        return f"{ms // 1000}s" if ms % 1000 == 0 else f"{ms}ms"
    return interval


def bars(trades, interval, tz=None, session=None, device=None, *, symbol_col=None, time_col=None, price_col=None,
         size_col=None):
    """OHLCV bars of trades, one row per symbol and interval with at least one trade, as `raid bars`.

    trades: a DataFrame (or a pyarrow Table) with the columns symbol (optional: without it one symbol ""), timestamp
    (datetime64 of any unit: naive values are local wall-clock times in tz, as a CSV timestamp without an
    offset; tz-aware ones are instants converted to tz, as one with an offset), price (> 0) and size
    (optional, >= 0; absent: 1 per trade), found by name case-insensitively (symbol_col, time_col,
    price_col, size_col rename them). A symbol's trades in time order; symbols may interleave.
    price and size: by the package's values rule (docs/python.md "Inputs"): float64 (float32, float16
    widened exactly) or integers whose every value is exactly a float64 (ValueError naming the row
    otherwise: beyond 2**53 not every integer is); any other dtype (text, bool, object) raises TypeError;
    pandas NA and pyarrow nulls are NaN (refused by the library, naming the row). A pandas Series instead
    of a DataFrame raises TypeError.
    interval: "Nms", "Ns", "Nmin", "Nh" or "Nd" (N a positive integer; at most 3650 days), e.g. "1min",
    "90min", "25h", "1d"; or a pd.Timedelta, datetime.timedelta or np.timedelta64 of a positive whole
    number of milliseconds (ValueError otherwise), e.g. pd.Timedelta("5min"). tz: the IANA zone of the local
    time (None: UTC, the CLI's default). session: None or "HH:MM-HH:MM" (local time, both ends inclusive;
    `raid realized --session`'s window: across midnight, the evening trades belong to the next trading
    date, which bars of whole days follow). device: as raid.context.

    Returns a DataFrame with the CLI's columns symbol (str), start (datetime64[us], the interval's local
    wall-clock start, naive), open, high, low, close, volume, vwap (float64; vwap NaN where the volume is
    0) and trades (int64), ordered by symbol (first appearance) then start: the CLI's CSV bit for bit.
    volume and the sum of price x size are exact sums rounded once. Errors: TypeError (not a DataFrame, dtypes),
    ValueError (columns, NaT, symbols, inexact integers), RaidError (the library's: "raid_bars_compute: row I:
    what" with the 0-based row)."""
    trades = frame(trades, "trades", "timestamp, price (and symbol, size)")
    sym_c = column(trades, symbol_col, "symbol", required=False)
    t_c = column(trades, time_col, "timestamp")
    p_c = column(trades, price_col, "price")
    s_c = column(trades, size_col, "size", required=False)
    t_us, utc = timestamps_us(trades[t_c], t_c, "datetime64 (naive or tz-aware)")
    t_us, pt = as_c(t_us, np.int64, "timestamp")
    price, pp = as_c(floats(trades[p_c], p_c, nulls="nan"), np.float64, p_c)
    size, ps = (None, ffi.NULL) if s_c is None else as_c(floats(trades[s_c], s_c, nulls="nan"), np.float64, s_c)
    keep = []
    if sym_c is None:
        psym, pnames, nsym = ffi.NULL, ffi.NULL, 0
    else:
        codes, names = symbols(trades[sym_c])
        codes, psym = as_c(codes, np.int64, "symbol")
        keep = [ffi.new("char[]", s) for s in names]
        pnames, nsym = ffi.new("char *[]", keep), len(names)
    text = lambda s: ffi.new("char[]", str(s).encode()) if s is not None else ffi.NULL  # noqa: E731
    iv, ptz, pses = text(_interval_text(interval)), text(tz), text(session)
    out = ffi.new("raid_bars **")
    ctx = context(device)
    check(lib.raid_bars_compute(ctx, psym, pnames, nsym, pt, pp, ps, t_us.size, iv, ptz, pses,
                                lib.RAID_BARS_UTC if utc else 0, out), ctx)
    b = ffi.gc(out[0], lib.raid_bars_destroy)
    n = lib.raid_bars_count(b)

    def col(ptr, dtype):
        dtype = np.dtype(dtype)
        return np.frombuffer(ffi.buffer(ptr, n * dtype.itemsize), dtype=dtype).copy() if n else np.zeros(0, dtype)

    symnames = np.array([ffi.string(lib.raid_bars_symbol(b, j)).decode() for j in range(lib.raid_bars_nsymbols(b))],
                        dtype=object)
    out_cols = {"symbol": symnames[col(lib.raid_bars_symbols(b), np.uint32)] if n else np.zeros(0, dtype=object),
             "start": col(lib.raid_bars_start(b), np.int64).view("datetime64[us]")}
    for j, f in enumerate(_FIELDS):
        out_cols[f] = col(lib.raid_bars_field(b, j), np.float64)
    out_cols["trades"] = col(lib.raid_bars_trades(b), np.int64)
    return pd.DataFrame(out_cols)
