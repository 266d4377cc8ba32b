"""Realized measures: of numpy returns (raid_realized_compute), and of a DataFrame of intraday prices
through the library's segmenting and sampling (raid_ticks_*, the CSV reader's rules on arrays)."""
import os
import warnings

import numpy as np
import pandas as pd

from . import _cuda
from ._convert import as_c, c_strings, column, flag, floats, frame, integers, is_text, real, symbols, texts, timestamps_us
from ._core import RaidNotice, array, check, context, ffi, lib, records, show
from ._csv import mark_model

# Rows pushed to raid_ticks between two takes (and computations): bounds the returns held at once.
_TAKE_EVERY = 1 << 20


def measure_names(noise=False):
    """The measure columns in output order: rv, bpv, rs_neg, rs_pos, rq, tpq, medrv, jump_z, jump_p; with
    noise=True also the noise-robust ones (docs/measures.md): rk, rk_h, tsrv, tsrv_k, prv, minrv. These
    are the names that the measures argument of raid.realized and raid.realized_from_prices takes."""
    if not noise:
        return [ffi.string(p).decode() for p in lib.raid_realized_names]
    names, k = [], 0
    while (p := lib.raid_realized_column_name(k)) != ffi.NULL:
        names.append(ffi.string(p).decode())
        k += 1
    return names


def _measures_list(measures):
    """The comma list of a measures argument (None: None, the default nine), checked by the library's
    parser (raid_realized_measures_parse: unknown or repeated names, with the valid ones listed)."""
    if measures is None:
        return None
    if isinstance(measures, (str, bytes)):
        raise TypeError(f"measures must be a list of names such as ['rv', 'rk'], not {type(measures).__name__} "
                        f"{show(measures)!r}")
    names = list(measures)
    for m in names:
        if not isinstance(m, str) or "," in m or not m.isascii():
            raise ValueError(f"bad measure name {show(m)!r} (valid: {', '.join(measure_names(noise=True))})")
    text = ",".join(names).encode()
    cols, n = ffi.new("int[]", len(measure_names(noise=True))), ffi.new("size_t *")
    check(lib.raid_realized_measures_parse(text, cols, n))
    return text


def _columns(measures):
    """The names of the columns after n: the nine, or those of measures in its order."""
    return measure_names() if measures is None else measures.decode().split(",")


def _frame(out, nseg, noise=None, measures=None):
    rec = records(out, nseg, "raid_realized")
    cols = {"n": rec["n"], **{c: rec[c] for c in measure_names()}}
    if noise is not None:
        nrec = records(noise, nseg, "raid_realized_noise")
        cols.update({c: nrec[c] for c in measure_names(noise=True)[len(measure_names()):]})
    return mark_model(pd.DataFrame({c: cols[c] for c in ["n", *_columns(measures)]}))


def _wants_noise(measures):
    return measures is not None and any(c not in measure_names() for c in _columns(measures))


def realized(returns, offsets, device="auto", precision="df", measures=None):
    """Daily realized measures of segments of returns (docs/measures.md).

    returns: 1-d float64 array of log returns (dimensionless; the package's values rule, docs/python.md
    "Inputs": float32, float16 and integers exact in float64 converted, other dtypes a TypeError, nulls
    such as masked entries a ValueError naming the row), every segment's back to back, each finite
    and at most 1e74 in magnitude. offsets: 1-d integer array (any integer dtype, values in int64) of
    nseg + 1 non-decreasing indices into returns; segment s is returns[offsets[s]:offsets[s+1]]. device: "auto", "cpu", "opencl",
    "opencl:P.D", "cuda", "cuda:N" (raid.devices()), None for $RAID_DEVICE. precision: "df" or "f32" (device input policy,
    docs/precision.md; the cpu backend is float64 throughout). measures: None (the nine columns below)
    or a list of column names in the order wanted (raid.measure_names(noise=True): the nine and the
    noise-robust rk, rk_h, tsrv, tsrv_k, prv, minrv, as `raid realized --measures`); the noise-robust
    ones by raid_realized_noise_compute: bandwidths chosen on the host, sums on the device (within
    raid_realized_noise_bound of float64, docs/precision.md), from host memory.

    Returns a DataFrame of nseg rows: n (int64, the number of returns) and rv, bpv, rs_neg, rs_pos
    (squared return units), rq, tpq (fourth powers), medrv (squared), jump_z, jump_p (float64; NaN where
    a measure is undefined for n), or n and the columns of measures (rk, tsrv, prv, minrv squared return
    units; rk_h and tsrv_k the bandwidth and subsample counts, float64). Raises RaidError (RAID_EINVAL for
    a return out of range or decreasing offsets, an unknown or repeated measure, device errors),
    ValueError for offsets outside returns or a bad measure name, TypeError for measures given as a str.
    """
    measures = _measures_list(measures)
    if _cuda.is_device(returns):
        return _realized_device(returns, offsets, device, precision, measures)
    r, rp = as_c(floats(returns, "returns", how="give the returns without them (returns.compressed(), with "
                                               "offsets to match)"), np.float64, "returns")
    off, op = as_c(integers(offsets, "offsets"), np.int64, "offsets")
    if len(off) == 0:
        raise ValueError("offsets must hold nseg + 1 >= 1 entries")
    if off.min() < 0 or off.max() > len(r):
        raise ValueError(f"offsets must lie in [0, len(returns)] = [0, {len(r)}]")
    nseg = len(off) - 1
    ctx = context(device, precision)
    out = ffi.new("raid_realized[]", max(nseg, 1))
    check(lib.raid_realized_compute(ctx, rp, op, nseg, out), ctx)
    noise = None
    if _wants_noise(measures):
        noise = ffi.new("raid_realized_noise[]", max(nseg, 1))
        check(lib.raid_realized_noise_compute(ctx, rp, op, nseg, noise), ctx)
    return _frame(out, nseg, noise, measures)


def _realized_device(returns, offsets, device, precision, measures=None):
    """raid.realized of a CUDA array of returns (docs/python.md "CUDA arrays"): a dict of CuPy arrays on its
    device, the DataFrame's columns (n and the measures, in order). The measures are formed on the host in
    float64 from the device's combined sums (nseg rows); the returns are read in place where
    raid_realized_compute takes device memory, else copied to the host first. offsets stay host memory."""
    ca = _cuda.cuda_array(returns, "returns")
    ctx, d = _cuda.cuda_context([ca], device, precision)
    off, op = as_c(integers(_cuda.small(offsets, "offsets"), "offsets"), np.int64, "offsets")
    if len(off) == 0:
        raise ValueError("offsets must hold nseg + 1 >= 1 entries")
    if off.min() < 0 or off.max() > ca.size:
        raise ValueError(f"offsets must lie in [0, len(returns)] = [0, {ca.size}]")
    nseg = len(off) - 1
    if "raid_realized_compute" in _cuda.IN_PLACE:
        rp = ca.cdata("double *")
    else:  # an explicit host copy
        keep = ca.host()
        rp = ffi.from_buffer("double[]", keep) if keep.size else ffi.NULL
    out = ffi.new("raid_realized[]", max(nseg, 1))
    check(lib.raid_realized_compute(ctx, rp, op, nseg, out), ctx)
    rec = records(out, nseg, "raid_realized")
    cols = {c: rec[c] for c in ["n", *measure_names()]}
    if _wants_noise(measures):  # the host chooses their bandwidths: from a host copy of the returns
        keep = ca.host()
        hp = ffi.from_buffer("double[]", keep) if keep.size else ffi.NULL
        noise = ffi.new("raid_realized_noise[]", max(nseg, 1))
        check(lib.raid_realized_noise_compute(ctx, hp, op, nseg, noise), ctx)
        nrec = records(noise, nseg, "raid_realized_noise")
        cols.update({c: nrec[c] for c in measure_names(noise=True)[len(measure_names()):]})
    return {c: _cuda.to_device(np.ascontiguousarray(cols[c]), d) for c in ["n", *_columns(measures)]}


# ---------------------------------------------------------------------------------------------------
# Prices
# ---------------------------------------------------------------------------------------------------

def no_symbol_notice(stacklevel):
    """The CSV reader's notice for data without the (optional, default) symbol column, as a RaidNotice."""
    warnings.warn("no symbol column 'symbol': the whole file is one series", RaidNotice, stacklevel=stacklevel)


def _sample_us(sample):
    us = ffi.new("int64_t *")
    check(lib.raid_parse_sample(str(sample).encode(), us),
          what=f"bad sample '{show(sample)}' (expected tick, Ns, Nmin, Nh or Nms)")
    return us[0]


def _session(session):
    a, b = ffi.new("int32_t *"), ffi.new("int32_t *")
    check(lib.raid_parse_session(str(session).encode(), a, b))
    return a[0], b[0]


def _read_opts(sample, session, tz, samples, keep):
    """A raid_read_opts of prices (keep: the strings it points to, kept alive by the caller)."""
    o = ffi.new("raid_read_opts *")
    lib.raid_read_opts_init(o)
    o.kind = lib.RAID_INPUT_PRICES
    if tz is not None:
        keep.append(ffi.new("char[]", str(tz).encode()))
        o.tz = keep[-1]
    o.sample_us = _sample_us(sample)
    if session is not None:
        o.session_start_s, o.session_end_s = _session(session)
    o.samples = int(samples)
    return o


def _through_ticks(df, sample, session, tz, symbol_col, time_col, price_col, samples, add, depth=0):
    """The rows of df (realized_from_prices' columns and rules) through a raid_ticks segmenter: add(tk,
    finish) takes its complete segments every _TAKE_EVERY rows and at the end (finish = 1); the
    segmenter's notices as RaidNotice warnings at the caller's caller (depth more frames up)."""
    df = frame(df, "df", "symbol (optional), timestamp, price")
    sym_c = column(df, symbol_col, "symbol", required=False)
    t_c = column(df, time_col, "timestamp")
    p_c = column(df, price_col, "price")
    n = len(df)
    price, pp = as_c(floats(df[p_c], p_c, nulls="nan"), np.float64, p_c)
    tcol = df[t_c]
    if is_text(tcol):  # the library's parser, the CSV reader's (raid_ticks_push_text)
        keep_text, texts_p = c_strings(texts(tcol, "timestamp"), "timestamp")
        times_p, utc = ffi.NULL, 0
    else:
        t_us, utc = timestamps_us(tcol, t_c, "datetime64 (naive or tz-aware) or ISO 8601 text")
        t_us, times_p = as_c(t_us, np.int64, "timestamp")
        texts_p = ffi.NULL
    if sym_c is None:
        codes, sym_bytes = np.zeros(n, dtype=np.int64), [b""]
        no_symbol_notice(stacklevel=4 + depth)
    else:
        codes, sym_bytes = symbols(df[sym_c])
    code32 = np.ascontiguousarray(codes, dtype=np.uint32)
    code_p = ffi.from_buffer("uint32_t[]", code32)
    names = [ffi.new("char[]", b) for b in sym_bytes]
    names_p = ffi.new("const char *[]", names)
    keep = []
    o = _read_opts(sample, session, tz, samples, keep)
    tkp = ffi.new("raid_ticks **")
    check(lib.raid_ticks_create(tkp, o))
    tk = ffi.gc(tkp[0], lib.raid_ticks_destroy)
    # blocks of rows in row order, symbols interleaved as they come (one call a block: a tape of many
    # symbols costs no call per run of one symbol), the complete segments taken after each block
    for s0 in range(0, n, _TAKE_EVERY):
        k = min(_TAKE_EVERY, n - s0)
        check(lib.raid_ticks_push_coded(tk, names_p, len(names), code_p + s0,
                                        times_p + s0 if times_p != ffi.NULL else ffi.NULL, int(utc),
                                        texts_p + s0 if texts_p != ffi.NULL else ffi.NULL, pp + s0, k))
        if k == _TAKE_EVERY:
            add(tk, 0)
    add(tk, 1)
    for i in range(lib.raid_ticks_notice_count(tk)):
        warnings.warn(ffi.string(lib.raid_ticks_notice(tk, i)).decode(), RaidNotice, stacklevel=3 + depth)


def realized_from_prices(df, sample="5min", session=None, tz="UTC", symbol_col=None, time_col=None,
                         price_col=None, device="auto", precision="df", measures=None):
    """Daily realized measures of intraday prices, with `raid realized`'s reader semantics (docs/input.md).

    df: a DataFrame (or a pyarrow Table) with a symbol column (optional: without it the rows are one symbol ""), a timestamp
    column and a price column, found by name case-insensitively (defaults "symbol", "timestamp", "price";
    symbol_col, time_col, price_col rename them, as the CLI's --symbol-col, --time-col, --price-col).
    Rows in file order: symbols may interleave; within a symbol time must not go backwards. Timestamps:
    datetime64 without a zone are local wall-clock times (a CSV timestamp without an offset), tz-aware
    ones are instants converted to tz (a CSV timestamp with an offset), of any unit (s, ms, us, ns), years
    0001 to 9999; text (str or object columns) goes to the library's ISO 8601 parser, the CSV reader's
    (raid_ticks_push_text), so exactly the CLI's timestamps are accepted, each with or without an offset.
    Symbols: text, or values of one type named by str(); missing ones, mixed types, NUL bytes are a
    ValueError naming the row. Without a symbol column a RaidNotice says so, as the CLI does.
    Prices: positive and finite, by the package's values rule (docs/python.md "Inputs": integers exact in
    float64 taken, NA and nulls read as NaN, an empty CSV field). Row numbers in messages are the DataFrame's 0-based positions.
    sample: "tick", "Ns", "Nmin", "Nh" or "Nms" (default "5min"); session: "HH:MM-HH:MM" local time or
    None; tz: IANA zone of the local time (default "UTC"). device, precision, measures: as raid.realized
    (measures chooses the columns after n, as the CLI's --measures).

    Returns a DataFrame with the columns and values of `raid realized`'s CSV: symbol (str), date (str,
    YYYY-MM-DD, the local date), n (int64), rv, bpv, rs_neg, rs_pos, rq, tpq, medrv, jump_z, jump_p
    (float64, NaN where the CSV field is empty), sorted by symbol (first appearance) then date.
    raid.to_csv writes it byte for byte as the CLI does. The library's notices (a sampling grid finer
    than the data's spacing, which `raid realized` reports on stderr) are warnings of class RaidNotice.
    Raises RaidError (RAID_EPARSE for bad data with the row, RAID_EINVAL for a bad tz, sample or session),
    KeyError or ValueError for missing or duplicate columns, TypeError for a price column that is not
    numbers or a timestamp column that is neither datetimes nor text (docs/python.md "Inputs").
    """
    measures = _measures_list(measures)
    ctx = context(device, precision)
    tabp = ffi.new("raid_realized_table **")
    check(lib.raid_realized_table_create(tabp))
    tab = ffi.gc(tabp[0], lib.raid_realized_table_destroy)
    if measures is not None:
        check(lib.raid_realized_table_set_measures(tab, measures))
    # The library's realized job (include/raid/realized.h): each add takes the complete segments,
    # computes their measures and keeps only those, so memory is bounded by the open segments and the rows
    # pushed since the last add; finish sorts the rows as the CLI does.
    _through_ticks(df, sample, session, tz, symbol_col, time_col, price_col, False,
                   lambda tk, fin: check(lib.raid_realized_table_add_ticks(tab, ctx, ffi.NULL, tk, fin), ctx))
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
    cols = ffi.new("int[]", len(measure_names(noise=True)))
    for j in range(lib.raid_realized_table_measures(tab, cols)):
        res[ffi.string(lib.raid_realized_column_name(cols[j])).decode()] = array(
            lib.raid_realized_table_column(tab, cols[j]), nrows, np.float64)
    return mark_model(res)


def _returns_table(df_or_path, sample, session, tz, device, symbol_col, time_col, price_col, stacklevel):
    """The finished raid_returns_table of raid.returns' arguments (the returns job: include/raid/returns.h),
    the reader's notices as RaidNotice warnings at stacklevel."""
    ctx = context(device) if device is not None else ffi.NULL
    tabp = ffi.new("raid_returns_table **")
    check(lib.raid_returns_table_create(tabp))
    tab = ffi.gc(tabp[0], lib.raid_returns_table_destroy)
    checked = (lambda st: check(st, ctx)) if device is not None else check
    if isinstance(df_or_path, (str, os.PathLike)):
        keep = []
        o = _read_opts(sample, session, tz, True, keep)
        if symbol_col is not None:
            keep.append(ffi.new("char[]", str(symbol_col).encode()))
            o.symbol_col = keep[-1]
        if time_col is not None:
            keep.append(ffi.new("char[]", str(time_col).encode()))
            o.time_col = keep[-1]
        if price_col is not None:
            keep.append(ffi.new("char[]", str(price_col).encode()))
            o.price_col = keep[-1]
        rdp = ffi.new("raid_reader **")
        check(lib.raid_reader_open(rdp, os.fsencode(df_or_path), o))
        rd = ffi.gc(rdp[0], lib.raid_reader_close)
        done = ffi.new("int *")
        while not done[0]:
            checked(lib.raid_returns_table_add_reader(tab, ctx, rd, 1 << 24, done))
        for i in range(lib.raid_reader_notice_count(rd)):
            warnings.warn(ffi.string(lib.raid_reader_notice(rd, i)).decode(), RaidNotice, stacklevel=stacklevel)
    else:
        _through_ticks(df_or_path, sample, session, tz, symbol_col, time_col, price_col, True,
                       lambda tk, fin: checked(lib.raid_returns_table_add_ticks(tab, ctx, tk, fin)), depth=stacklevel - 2)
    check(lib.raid_returns_table_finish(tab))
    return tab


def _returns_frame(tab):
    """The rows of a finished returns table as raid.returns' DataFrame."""
    nrows = lib.raid_returns_table_nrows(tab)
    names_of = [ffi.string(lib.raid_returns_table_symbol_name(tab, j)).decode()
                for j in range(lib.raid_returns_table_nsymbols(tab))]
    sym = array(lib.raid_returns_table_symbol_ids(tab), nrows, np.uint32)
    date = array(lib.raid_returns_table_dates(tab), nrows, np.int32)
    return pd.DataFrame({  # object columns of str even when empty (an empty list would make float64 ones)
        "symbol": pd.Series([names_of[i] for i in sym], dtype=object),
        "date": pd.Series([f"{d // 10000:04d}-{d // 100 % 100:02d}-{d % 100:02d}" for d in date], dtype=object),
        "timestamp": array(lib.raid_returns_table_times(tab), nrows, np.int64).astype("datetime64[us]"),
        "ret": array(lib.raid_returns_table_returns(tab), nrows, np.float64),
    })


def returns(df_or_path, sample="5min", session=None, tz="UTC", device=None, symbol_col=None, time_col=None,
            price_col=None):
    """Log returns of intraday prices, one row a return: `raid returns` (docs/f64.md "Log returns").

    df_or_path: a DataFrame (or pyarrow Table) as realized_from_prices takes, or the path of a CSV file as
    `raid returns` reads it (its errors name FILE:LINE:COL). sample, session, tz, symbol_col, time_col,
    price_col: as realized_from_prices (the same segments and samples as the realized measures). device:
    None (default) takes the returns the segmenter computes on the host; a device string ("cpu", "opencl",
    "opencl:P.D", "cuda", "cuda:N", "auto") computes them from the sampled prices there with
    raid_f64_log_returns: the same bits either way. Each return is log(p / prev) in binary64 with log1p and
    log correctly rounded.

    Returns a DataFrame sorted by symbol (first appearance), date, then time: symbol (str), date (str,
    YYYY-MM-DD, the trading date), timestamp (datetime64[us], the end price's local wall-clock time in tz:
    the observation's with sample="tick", the grid point's otherwise), ret (float64). Raises as
    realized_from_prices; RaidError with FILE:LINE:COL for a bad CSV.
    """
    tab = _returns_table(df_or_path, sample, session, tz, device, symbol_col, time_col, price_col, stacklevel=3)
    return _returns_frame(tab)


def jumps(df_or_path, sample="5min", session=None, tz="UTC", window=None, alpha=0.01, all=False, device=None,
          symbol_col=None, time_col=None, price_col=None):
    """The Lee-Mykland (2008) test for a jump in each intraday log return: `raid jumps` (docs/measures.md
    "Jumps: Lee-Mykland").

    df_or_path, sample, session, tz, device, symbol_col, time_col, price_col: as raid.returns (the same
    returns). Each return r_i of a symbol with at least K - 1 returns of that symbol before it (the window
    reaches back into its previous days) is divided by the bipower estimate of its local standard
    deviation, L_i = r_i / sigma_i with sigma_i^2 = (1/(K-2)) sum_{j=i-K+2}^{i-1} |r_j||r_{j-1}|, and is a
    jump where (|L_i| - C_n)/S_n > -log(-log(1 - alpha)), C_n and S_n Lee and Mykland's Gumbel constants
    for the n returns of the return's day. window: K (an int from 3 to 2^40), or None for LM's per symbol,
    ceil(sqrt(252 m)) with m the symbol's mean number of returns a day. alpha: the significance of each
    day's test, a real number in (0, 1) (text is not parsed). all: False for the detected jumps only, True
    for every tested return (True or False).

    Returns a DataFrame of raid.returns' columns (symbol, date, timestamp, ret) and statistic (float64, L_i;
    NaN where the window's bipower sum is 0) and sign (int8: 1, -1, 0 for a zero return), one row a
    detected jump; with all=True one row a tested return and a column jump (float64: 1.0, 0.0, NaN where no
    decision is possible: a zero bipower sum or a day of one return), the rows of `raid jumps --all`. The
    window used for each symbol is in the frame's attrs["window"] (a dict symbol -> K). Raises as
    raid.returns; ValueError for a window or alpha out of range, an alpha that is not a real number or an
    all that is not a bool, TypeError for a window that is not an int.
    """
    if window is None:
        k = 0
    elif isinstance(window, (bool, np.bool_)) or not isinstance(window, (int, np.integer)):
        raise TypeError(f"window must be an int (K) or None, not {type(window).__name__}")
    elif not 3 <= int(window) <= 1 << 40:
        raise ValueError(f"window must be from 3 to 2^40 (K - 1 returns before each tested one), not {int(window)}")
    else:
        k = int(window)
    a = real(alpha, "alpha")
    if not 0.0 < a < 1.0:
        raise ValueError(f"alpha must be in (0, 1), not {alpha!r}")
    all = flag(all, "all")
    tab = _returns_table(df_or_path, sample, session, tz, device, symbol_col, time_col, price_col, stacklevel=3)
    jtp = ffi.new("raid_jumps_table **")
    check(lib.raid_jumps_table_compute(jtp, tab, k, a))
    jt = ffi.gc(jtp[0], lib.raid_jumps_table_destroy)
    res = _returns_frame(tab)
    n = len(res)
    res["statistic"] = array(lib.raid_jumps_table_statistic(jt), n, np.float64)
    res["sign"] = np.sign(res["ret"].to_numpy()).astype(np.int8)
    code = array(lib.raid_jumps_table_jump(jt), n, np.int8)
    if all:
        keep = code != lib.RAID_JUMP_UNTESTED
        res["jump"] = np.where(code == lib.RAID_JUMP_UNDEFINED, np.nan, (code == lib.RAID_JUMP_YES).astype(np.float64))
    else:
        keep = code == lib.RAID_JUMP_YES
    res = res[keep].reset_index(drop=True)
    res.attrs["window"] = {ffi.string(lib.raid_returns_table_symbol_name(tab, j)).decode(): lib.raid_jumps_table_window(jt, j)
                           for j in range(lib.raid_returns_table_nsymbols(tab))}
    return res
