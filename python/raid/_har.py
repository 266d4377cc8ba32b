"""HAR-family regressions of daily realized variance through the library's HAR API (include/raid/har.h):
an opaque specification, the input series added per symbol, the fit on a context, and the result read
through its accessors into DataFrames."""
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._convert import as_c, c_int, column, date_labels, datetimes, floats, frame, real, symbol_runs
from ._core import _text, array, check, context, ffi, lib, reporting
from ._csv import mark_model
from ._realized import no_symbol_notice


@dataclass
class HarFit:
    """The result of raid.har.

    coefs: one row per estimated symbol (full sample) or window: symbol, model, transform, h,
      [window_end,] n, r2, r2_adj, then NAME, NAME_se, NAME_t for each design column (const, rv_d, rv_w,
      rv_m, ...): the columns of `raid har`'s CSV.
    forecasts: (windows) symbol, date, forecast, actual, sq_err, qlike (the .forecasts.csv).
    losses: (windows) symbol, model, transform, h, n_forecasts, mse, qlike, n_qlike (the .losses.csv).
    symbols: symbol, status (the raid_status enumerator, "RAID_OK" when estimated), estimated (bool).
    messages: the fit's messages (rows left out, why a symbol or window was not estimated), in order, as
      (symbol, text) pairs.
    """
    coefs: pd.DataFrame
    forecasts: pd.DataFrame
    losses: pd.DataFrame
    symbols: pd.DataFrame
    messages: list = field(default_factory=list)


def _parse(fn, text, ctype):
    out = ffi.new(ctype + " *")
    check(fn(str(text).encode(), out))
    return out[0]


def _spec(model, lags, h, transform, se, nw_lag, window, alpha):
    pp = ffi.new("raid_har_spec **")
    check(lib.raid_har_spec_create(pp))
    spec = ffi.gc(pp[0], lib.raid_har_spec_destroy)
    check(lib.raid_har_spec_set_model(spec, _parse(lib.raid_har_model_parse, model, "raid_har_model")))
    if isinstance(lags, str):
        lag_arr, nl = ffi.new("int[]", 64), ffi.new("int *")
        check(lib.raid_har_lags_parse(lags.encode(), lag_arr, nl))
        lags = list(lag_arr[0:nl[0]])
    lags = [c_int(v, f"lags[{i}]") for i, v in enumerate(lags)]
    check(lib.raid_har_spec_set_lags(spec, ffi.new("int[]", lags), len(lags)))
    check(lib.raid_har_spec_set_horizon(spec, c_int(h, "h")))
    check(lib.raid_har_spec_set_transform(spec, _parse(lib.raid_har_transform_parse, transform,
                                                       "raid_har_transform")))
    check(lib.raid_har_spec_set_se(spec, _parse(lib.raid_har_se_parse, se, "raid_se_kind"),
                                   -1 if nw_lag is None else c_int(nw_lag, "nw_lag", "int64_t")))
    kind, n = ffi.new("raid_har_window *"), ffi.new("int64_t *")
    check(lib.raid_har_window_parse(str(window).encode(), kind, n))
    check(lib.raid_har_spec_set_window(spec, kind[0], n[0]))
    check(lib.raid_har_spec_set_alpha(spec, real(alpha, "alpha")))
    check(lib.raid_har_spec_check(spec))
    return spec


def _dates(col):
    """Dates for raid_har_input_add (strings, written back as given) or, for datetimes (numpy or Arrow),
    int32 yyyymmdd of their calendar dates for raid_har_input_add_ymd (written "YYYY-MM-DD")."""
    dt = datetimes(col)
    if dt is None:
        return date_labels(col)
    miss = dt.isna().to_numpy(dtype=bool)
    if miss.any():
        raise ValueError(f"row {int(np.flatnonzero(miss)[0])}: missing date")
    return (dt.dt.year * 10000 + dt.dt.month * 100 + dt.dt.day).to_numpy(dtype=np.int32)


def _input(measures, cols):
    """A raid_har_input with one series per symbol of the DataFrame (rows of a symbol contiguous, as the
    CSV reader wants them)."""
    symbol_col, date_col, rv_col, bpv_col, rq_col, jump_p_col = cols
    measures = frame(measures, "measures", "symbol (optional), date, rv (bpv, rq, jump_p)")
    sym_c = column(measures, symbol_col, "symbol", required=False)
    date_c = column(measures, date_col, "date")
    rv_c = column(measures, rv_col, "rv")
    opt = [column(measures, c, d, required=False) for c, d in ((bpv_col, "bpv"), (rq_col, "rq"),
                                                                (jump_p_col, "jump_p"))]
    n = len(measures)
    if sym_c is None:
        codes, names, bounds = np.zeros(n, dtype=np.int64), [b""], np.array([0, n] if n else [0], np.int64)
        no_symbol_notice(stacklevel=4)
    else:
        codes, names, bounds = symbol_runs(measures[sym_c], "raid har")
    pp = ffi.new("raid_har_input **")
    check(lib.raid_har_input_create(pp))
    hin = ffi.gc(pp[0], lib.raid_har_input_destroy)
    keep = [ffi.new("char[]", str(c).encode()) if c is not None else ffi.NULL for c in (rv_c, *opt)]
    check(lib.raid_har_input_set_names(hin, *keep))
    dates = _dates(measures[date_c])
    rv = floats(measures[rv_c], rv_c, nulls="nan")  # NaN: a missing value, as an empty CSV field
    series = [None if c is None else floats(measures[c], c, nulls="nan") for c in opt]
    rows = np.arange(n, dtype=np.int64)
    for s0, s1 in zip(bounds[:-1], bounds[1:]):
        s0, s1 = int(s0), int(s1)
        if isinstance(dates, np.ndarray):
            add, darr = lib.raid_har_input_add_ymd, ffi.from_buffer("int32_t[]", np.ascontiguousarray(dates[s0:s1]))
        else:
            d = []
            for r, v in enumerate(dates[s0:s1], s0):
                try:
                    d.append(ffi.new("char[]", v.encode()))
                except UnicodeEncodeError as e:
                    raise ValueError(f"row {r}: date {v!r} is not valid Unicode text ({e.reason})") from None
            add, darr = lib.raid_har_input_add, ffi.new("char *[]", d)
        arrs = [as_c(rv[s0:s1], np.float64, "rv")]
        arrs += [as_c(v[s0:s1], np.float64, "series") if v is not None else (None, ffi.NULL) for v in series]
        ln = as_c(rows[s0:s1], np.int64, "rows")
        check(add(hin, names[codes[s0]], s1 - s0, darr, *[p for _, p in arrs], ln[1]))
    return hin


def har(measures, model="har", lags=(1, 5, 22), h=1, transform="none", se="nw", nw_lag=None, window="full",
        alpha=0.05, device="auto", symbol_col=None, date_col=None, rv_col=None, bpv_col=None, rq_col=None,
        jump_p_col=None, progress=None):
    """Fit a HAR-family model to daily realized measures, per symbol (docs/har.md; `raid har`).

    measures: a DataFrame (or a pyarrow Table) of one row per symbol and day, a symbol's rows contiguous and in increasing
    date order, e.g. the output of raid.realized_from_prices: symbol (optional), date (str "YYYY-MM-DD"
    or datetime64), rv (squared return units), bpv (har-j, har-cj), rq (harq, fourth-power units), jump_p
    (har-cj); NaN (and pandas NA, pyarrow null) marks a missing value; values by the package's values rule
    (docs/python.md "Inputs": integers exact in float64 taken, text refused). Columns are found by name case-insensitively; *_col rename them.
    model: "har", "har-j", "har-cj", "harq"; lags: increasing day counts, the first 1 (or "1,5,22");
    h: forecast horizon in days; transform: "none", "log", "sqrt"; se: "ols", "white", "nw"; nw_lag:
    the Newey-West lag (None: floor(4 (n/100)^(2/9)) per fit); window: "full", "rolling:N" or
    "expanding:N" (N design rows); alpha: the jump significance of har-cj; device as raid.realized;
    progress: the windows' progress (unit "windows"; a full-sample fit reports none), as raid.garch's.

    Messages name rows by the DataFrame's 0-based position ("row 5"). A missing date or symbol, symbols of
    mixed types, lags or h that are not integers or outside C int are ValueError naming the row or the
    argument; without a symbol column a RaidNotice says so.

    Returns a HarFit (coefs, forecasts, losses, symbols, messages). Raises RaidError for an invalid
    specification (RAID_EINVAL with the library's message) and the device's errors; a symbol that cannot
    be estimated is not an exception: its status and messages are in the result.
    """
    spec = _spec(model, lags, h, transform, se, nw_lag, window, alpha)
    hin = _input(measures, (symbol_col, date_col, rv_col, bpv_col, rq_col, jump_p_col))
    ctx = context(device)
    rp = ffi.new("raid_har_result **")
    with reporting(ctx, progress, "har"):
        check(lib.raid_har_fit(ctx, spec, hin, rp), ctx)
    res = ffi.gc(rp[0], lib.raid_har_result_destroy)

    model_name = _text(lib.raid_har_model_name(lib.raid_har_spec_model(spec)))
    tr_name = _text(lib.raid_har_transform_name(lib.raid_har_spec_transform(spec)))
    hh = lib.raid_har_spec_horizon(spec)
    windowed = lib.raid_har_spec_window(spec) != lib.RAID_HAR_FULL

    nrows, k = lib.raid_har_result_nrows(res), lib.raid_har_result_k(res)
    names = [_text(lib.raid_har_result_coef_name(res, j)) for j in range(k)]
    rsym = array(lib.raid_har_result_row_symbol(res), nrows, np.int64)
    cols = {"symbol": [_text(lib.raid_har_result_symbol(res, int(s))) for s in rsym],
            "model": [model_name] * nrows, "transform": [tr_name] * nrows, "h": np.full(nrows, hh, np.int64)}
    if windowed:
        cols["window_end"] = [_text(lib.raid_har_result_row_end(res, r)) for r in range(nrows)]
    cols["n"] = array(lib.raid_har_result_row_n(res), nrows, np.int64)
    cols["r2"] = array(lib.raid_har_result_r2(res), nrows, np.float64)
    cols["r2_adj"] = array(lib.raid_har_result_r2_adj(res), nrows, np.float64)
    beta, sev, tv = (array(f(res), nrows * k, np.float64).reshape(nrows, k) for f in
                     (lib.raid_har_result_beta, lib.raid_har_result_se, lib.raid_har_result_tstat))
    for j, name in enumerate(names):
        cols[name], cols[name + "_se"], cols[name + "_t"] = beta[:, j], sev[:, j], tv[:, j]
    coefs = pd.DataFrame(cols)

    nf = lib.raid_har_result_nforecasts(res)
    fsym = array(lib.raid_har_result_fc_symbol(res), nf, np.int64)
    forecasts = pd.DataFrame({
        "symbol": [_text(lib.raid_har_result_symbol(res, int(s))) for s in fsym],
        "date": [_text(lib.raid_har_result_fc_date(res, i)) for i in range(nf)],
        "forecast": array(lib.raid_har_result_fc_forecast(res), nf, np.float64),
        "actual": array(lib.raid_har_result_fc_actual(res), nf, np.float64),
        "sq_err": array(lib.raid_har_result_fc_sq_err(res), nf, np.float64),
        "qlike": array(lib.raid_har_result_fc_qlike(res), nf, np.float64)})

    ns = lib.raid_har_result_nsymbols(res)
    sym_names = [_text(lib.raid_har_result_symbol(res, s)) for s in range(ns)]
    status = [lib.raid_har_result_status(res, s) for s in range(ns)]
    symbols = pd.DataFrame({"symbol": sym_names,
                            "status": [ffi.string(ffi.cast("raid_status", st)) for st in status],
                            "estimated": [st == lib.RAID_OK for st in status]})
    loss = {"symbol": [], "n_forecasts": [], "mse": [], "qlike": [], "n_qlike": []}
    n, mse, ql, nq = ffi.new("size_t *"), ffi.new("double *"), ffi.new("double *"), ffi.new("size_t *")
    for s in range(ns):
        if lib.raid_har_result_loss(res, s, n, mse, ql, nq):
            for key, v in zip(loss, (sym_names[s], n[0], mse[0], ql[0], nq[0])):
                loss[key].append(v)
    losses = pd.DataFrame({"symbol": loss["symbol"], "model": model_name, "transform": tr_name,
                           "h": np.full(len(loss["symbol"]), hh, np.int64),
                           "n_forecasts": np.array(loss["n_forecasts"], np.int64),
                           "mse": np.array(loss["mse"], np.float64), "qlike": np.array(loss["qlike"], np.float64),
                           "n_qlike": np.array(loss["n_qlike"], np.int64)})
    messages = [(sym_names[lib.raid_har_result_message_symbol(res, i)] if
                 lib.raid_har_result_message_symbol(res, i) < ns else None,
                 _text(lib.raid_har_result_message(res, i))) for i in range(lib.raid_har_result_nmessages(res))]
    mark_model(coefs, forecasts, losses, symbols)
    return HarFit(coefs, forecasts, losses, symbols, messages)

