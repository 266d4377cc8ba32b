"""Realized measures: of numpy returns (raid_realized_compute), and of a DataFrame of intraday prices
through the library's segmenting and sampling (raid_ticks_*, the CSV reader's rules on arrays)."""
import datetime
import warnings

import numpy as np
import pandas as pd

from ._core import RaidNotice, array, as_c, check, context, ffi, integers, lib, real_floats, records, symbol_codes

# Rows pushed to raid_ticks between two takes (and computations): bounds the returns held at once.
_TAKE_EVERY = 1 << 20


def measure_names():
    """The measure columns in output order: rv, bpv, rs_neg, rs_pos, rq, tpq, medrv, jump_z, jump_p."""
    return [ffi.string(p).decode() for p in lib.raid_realized_names]


def _frame(out, nseg):
    rec = records(out, nseg, "raid_realized")
    cols = ["n", *measure_names()]
    return pd.DataFrame({c: rec[c] for c in cols})


def realized(returns, offsets, device="auto", precision="df"):
    """Daily realized measures of segments of returns (docs/measures.md).

    returns: 1-d float64 array of log returns (dimensionless; float32 and float16 are upcast exactly,
    any other dtype, masked arrays included, is a ValueError), every segment's back to back, each finite
    and at most 1e74 in magnitude. offsets: 1-d integer array (any integer dtype, values in int64) of
    nseg + 1 non-decreasing indices into returns; segment s is returns[offsets[s]:offsets[s+1]]. device: "auto", "cpu", "opencl",
    "opencl:P.D" (raid.devices()), None for $RAID_DEVICE. precision: "df" or "f32" (device input policy,
    docs/precision.md; the cpu backend is float64 throughout).

    Returns a DataFrame of nseg rows: n (int64, the number of returns) and rv, bpv, rs_neg, rs_pos
    (squared return units), rq, tpq (fourth powers), medrv (squared), jump_z, jump_p (float64; NaN where
    a measure is undefined for n). Raises RaidError (RAID_EINVAL for a return out of range or decreasing
    offsets, device errors), ValueError for offsets outside returns.
    """
    r, rp = as_c(real_floats(returns, "returns"), np.float64, "returns")
    off, op = as_c(integers(offsets, "offsets"), np.int64, "offsets")
    if len(off) == 0:
        raise ValueError("offsets must hold nseg + 1 >= 1 entries")
    if off.min() < 0 or off.max() > len(r):
        raise ValueError(f"offsets must lie in [0, len(returns)] = [0, {len(r)}]")
    nseg = len(off) - 1
    ctx = context(device, precision)
    out = ffi.new("raid_realized[]", max(nseg, 1))
    check(lib.raid_realized_compute(ctx, rp, op, nseg, out), ctx)
    return _frame(out, nseg)


# ---------------------------------------------------------------------------------------------------
# Prices
# ---------------------------------------------------------------------------------------------------

def _column(df, name, default, required=True):
    """The column of df named name (default when None), matched case-insensitively as the CSV reader
    matches the header; None when absent and not required."""
    want = (name if name is not None else default).lower()
    hits = [c for c in df.columns if isinstance(c, str) and c.lower() == want]
    if len(hits) > 1:
        raise ValueError(f"duplicate column '{want}': {hits}")
    if not hits:
        if required or name is not None:
            raise KeyError(f"missing column '{name if name is not None else default}'")
        return None
    return hits[0]


# Years 0001 to 9999 in microseconds since 1970-01-01T00:00:00 (raid_ticks_push's range).
_T_MIN = -62135596800000000
_T_MAX = 253402300799999999


def _datetime_us(col):
    """A datetime64 column (naive: local wall-clock; tz-aware: UTC instants) as int64 microseconds since
    1970-01-01T00:00:00, computed from the column's own unit (s, ms, us, ns: no detour through ns, which
    wraps outside 1677-2262), fractions below a microsecond truncated as the reader truncates them; and
    whether they are UTC instants. ValueError naming the row for NaT or a time outside the years 0001 to
    9999."""
    utc = isinstance(col.dtype, pd.DatetimeTZDtype)
    v = (col.dt.tz_convert(None) if utc else col).to_numpy()
    unit, count = np.datetime_data(v.dtype)
    i = v.view(np.int64)
    nat = np.isnat(v)
    if nat.any():
        raise ValueError(f"row {int(np.flatnonzero(nat)[0])}: missing timestamp (NaT)")
    per = np.timedelta64(count, unit) / np.timedelta64(1, "us")  # microseconds per tick of the unit
    if per >= 1:
        f = int(per)
        out = (i < -(-_T_MIN // f)) | (i > _T_MAX // f)
        if out.any():
            r = int(np.flatnonzero(out)[0])
            raise ValueError(f"row {r}: timestamp {v[r]} outside the years 0001 to 9999")
        return i * f, utc
    return i // int(round(1 / per)), utc


def _text_ptrs(col):
    """A column of ISO 8601 text as UTF-8 bytes (keep alive) and a char ** to one NUL-terminated string per
    row, for raid_ticks_push_text (the CSV reader's parser: no parsing here). datetime objects in an
    object column (pandas gives those for mixed offsets) are written with isoformat(). ValueError naming
    the row for a missing value, a value that is neither text nor a datetime, a NUL byte or text that is
    not encodable as UTF-8."""
    vals = col.to_numpy(dtype=object)
    n = len(vals)
    texts = []
    for r, v in enumerate(vals):
        if isinstance(v, str):
            texts.append(v)
        elif isinstance(v, datetime.datetime) and not pd.isna(v):
            texts.append(v.isoformat())
        elif v is None or (isinstance(v, float) and v != v) or v is pd.NaT or v is pd.NA:
            raise ValueError(f"row {r}: missing timestamp")
        else:
            raise ValueError(f"row {r}: timestamp {v!r} of type {type(v).__name__} (expected ISO 8601 text or "
                             "a datetime64 column)")
    joined = "\0".join(texts) + "\0"
    try:
        buf = joined.encode("utf-8")
    except UnicodeEncodeError:
        for r, t in enumerate(texts):
            try:
                t.encode("utf-8")
            except UnicodeEncodeError as e:
                raise ValueError(f"row {r}: timestamp {t!r} is not valid Unicode text ({e.reason})") from None
        raise
    ends = np.flatnonzero(np.frombuffer(buf, dtype=np.uint8) == 0)
    if len(ends) != max(n, 1):
        r = next(r for r, t in enumerate(texts) if "\0" in t)
        raise ValueError(f"row {r}: timestamp {texts[r]!r} holds a NUL byte")
    cbuf = ffi.from_buffer("char[]", buf)
    starts = np.concatenate([[0], ends[:-1] + 1]).astype(np.uint64)
    ptrs = starts + np.uint64(int(ffi.cast("uintptr_t", cbuf)))
    return (buf, cbuf, ptrs), ffi.cast("char **", ffi.from_buffer(ptrs))


def no_symbol_notice(stacklevel):
    """The CSV reader's notice for data without the (optional, default) symbol column, as a RaidNotice."""
    warnings.warn("no symbol column 'symbol': the whole file is one series", RaidNotice, stacklevel=stacklevel)


def _sample_us(sample):
    us = ffi.new("int64_t *")
    check(lib.raid_parse_sample(str(sample).encode(), us), what=f"bad sample '{sample}' (expected tick, Ns, Nmin, Nh or Nms)")
    return us[0]


def _session(session):
    a, b = ffi.new("int32_t *"), ffi.new("int32_t *")
    check(lib.raid_parse_session(str(session).encode(), a, b))
    return a[0], b[0]


def realized_from_prices(df, sample="5min", session=None, tz="UTC", symbol_col=None, time_col=None,
                         price_col=None, device="auto", precision="df"):
    """Daily realized measures of intraday prices, with `raid realized`'s reader semantics (docs/input.md).

    df: a DataFrame with a symbol column (optional: without it the rows are one symbol ""), a timestamp
    column and a price column, found by name case-insensitively (defaults "symbol", "timestamp", "price";
    symbol_col, time_col, price_col rename them, as the CLI's --symbol-col, --time-col, --price-col).
    Rows in file order: symbols may interleave; within a symbol time must not go backwards. Timestamps:
    datetime64 without a zone are local wall-clock times (a CSV timestamp without an offset), tz-aware
    ones are instants converted to tz (a CSV timestamp with an offset), of any unit (s, ms, us, ns), years
    0001 to 9999; text (str or object columns) goes to the library's ISO 8601 parser, the CSV reader's
    (raid_ticks_push_text), so exactly the CLI's timestamps are accepted, each with or without an offset.
    Symbols: text, or values of one type named by str(); missing ones, mixed types, NUL bytes are a
    ValueError naming the row. Without a symbol column a RaidNotice says so, as the CLI does.
    Prices: float64, positive and finite. Row numbers in messages are the DataFrame's 0-based positions.
    sample: "tick", "Ns", "Nmin", "Nh" or "Nms" (default "5min"); session: "HH:MM-HH:MM" local time or
    None; tz: IANA zone of the local time (default "UTC"). device, precision: as raid.realized.

    Returns a DataFrame with the columns and values of `raid realized`'s CSV: symbol (str), date (str,
    YYYY-MM-DD, the local date), n (int64), rv, bpv, rs_neg, rs_pos, rq, tpq, medrv, jump_z, jump_p
    (float64, NaN where the CSV field is empty), sorted by symbol (first appearance) then date.
    raid.to_csv writes it byte for byte as the CLI does. The library's notices (a sampling grid finer
    than the data's spacing, which `raid realized` reports on stderr) are warnings of class RaidNotice.
    Raises RaidError (RAID_EPARSE for bad data with the row, RAID_EINVAL for a bad tz, sample or session),
    KeyError or ValueError for missing or duplicate columns, TypeError for a price column that is not
    real floating (integers are taken when each is exactly a float64, else ValueError naming the row).
    """
    sym_c = _column(df, symbol_col, "symbol", required=False)
    t_c = _column(df, time_col, "timestamp")
    p_c = _column(df, price_col, "price")
    n = len(df)
    price, pp = as_c(real_floats(df[p_c], "price", exact_integers=True), np.float64, "price")
    tcol = df[t_c]
    if pd.api.types.is_datetime64_any_dtype(tcol.dtype):
        t_us, utc = _datetime_us(tcol)
        t_us, tp = as_c(t_us, np.int64, "timestamp")
        push = lambda sym, s0, k: lib.raid_ticks_push(tk, sym, tp + s0, int(utc), pp + s0, k)  # noqa: E731
    else:  # text: the library's parser, the CSV reader's (raid_ticks_push_text)
        keep_text, tp = _text_ptrs(tcol)
        push = lambda sym, s0, k: lib.raid_ticks_push_text(tk, sym, tp + s0, pp + s0, k)  # noqa: E731
    if sym_c is None:
        codes, sym_bytes = np.zeros(n, dtype=np.int64), [b""]
        no_symbol_notice(stacklevel=3)
    else:
        codes, sym_bytes = symbol_codes(df[sym_c])
    # runs of rows of one symbol, in row order
    cut = np.flatnonzero(np.diff(codes) != 0) + 1
    starts = np.concatenate([[0], cut]) if n else np.zeros(0, dtype=np.int64)
    ends = np.concatenate([cut, [n]]) if n else np.zeros(0, dtype=np.int64)

    o = ffi.new("raid_read_opts *")
    lib.raid_read_opts_init(o)
    o.kind = lib.RAID_INPUT_PRICES
    keep = []
    if tz is not None:
        keep.append(ffi.new("char[]", str(tz).encode()))
        o.tz = keep[-1]
    o.sample_us = _sample_us(sample)
    if session is not None:
        o.session_start_s, o.session_end_s = _session(session)

    tkp = ffi.new("raid_ticks **")
    check(lib.raid_ticks_create(tkp, o))
    tk = ffi.gc(tkp[0], lib.raid_ticks_destroy)
    ctx = context(device, precision)
    tabp = ffi.new("raid_realized_table **")
    check(lib.raid_realized_table_create(tabp))
    tab = ffi.gc(tabp[0], lib.raid_realized_table_destroy)
    # The library's realized job (include/raid/realized.h): each add takes the complete segments,
    # computes their measures and keeps only those, so memory is bounded by the open segments and the rows
    # pushed since the last add; finish sorts the rows as the CLI does.
    pushed = 0
    for s0, s1 in zip(starts, ends):
        check(push(sym_bytes[codes[s0]], int(s0), int(s1 - s0)))
        pushed += s1 - s0
        if pushed >= _TAKE_EVERY:
            check(lib.raid_realized_table_add_ticks(tab, ctx, ffi.NULL, tk, 0), ctx)
            pushed = 0
    check(lib.raid_realized_table_add_ticks(tab, ctx, ffi.NULL, tk, 1), ctx)
    for i in range(lib.raid_ticks_notice_count(tk)):
        warnings.warn(ffi.string(lib.raid_ticks_notice(tk, i)).decode(), RaidNotice, stacklevel=2)
    check(lib.raid_realized_table_finish(tab))
    nrows = lib.raid_realized_table_nrows(tab)
    names_of = [ffi.string(lib.raid_realized_table_symbol_name(tab, j)).decode()
                for j in range(lib.raid_realized_table_nsymbols(tab))]
    sym = array(lib.raid_realized_table_symbol_ids(tab), nrows, np.uint32)
    date = array(lib.raid_realized_table_dates(tab), nrows, np.int32)
    res = pd.DataFrame({
        "symbol": [names_of[i] for i in sym],
        "date": [f"{d // 10000:04d}-{d // 100 % 100:02d}-{d % 100:02d}" for d in date],
        "n": array(lib.raid_realized_table_n(tab), nrows, np.int64),
    })
    for k, name in enumerate(measure_names()):
        res[name] = array(lib.raid_realized_table_column(tab, k), nrows, np.float64)
    return res


def to_csv(df, path_or_buf=None):
    """Write a DataFrame of the package (realized_from_prices, and har's coefs, forecasts and losses) as
    the CLI writes its CSV: floats as %.17g, NaN as an empty field, RFC 4180 quoting, LF line ends, no
    index. Returns the text when path_or_buf is None."""
    return df.to_csv(path_or_buf, index=False, float_format="%.17g", lineterminator="\n")
