"""GARCH-family volatility models through the library's GARCH API (include/raid/garch.h): an opaque
specification, the return series added per symbol, one batched fit on a context, and the result read
through its accessors into the DataFrame that `raid garch` writes as CSV."""
import numpy as np
import pandas as pd

from . import _cuda
from ._convert import as_c, c_int, column, date_labels, floats, frame, index_labels, is_frame, symbol_runs
from ._core import _text, array, check, context, ffi, lib, reporting
from ._csv import mark_model

COLUMNS = ["symbol", "window_end", "n", "model", "dist", "mu", "omega", "alpha", "gamma", "beta", "nu", "se_mu",
           "se_omega", "se_alpha", "se_gamma", "se_beta", "se_nu", "loglik", "iterations", "status", "sigma2_last",
           "sigma2_next"]
_PARAMS = ["mu", "omega", "alpha", "gamma", "beta", "nu"]


def _word(fn, text, ctype, what):
    if not isinstance(text, str):
        raise ValueError(f"{what} must be a string, not {text!r}")
    out = ffi.new(ctype + " *")
    check(fn(text.encode(), out))
    return out[0]


def _spec(model, dist, mean, init, ez, se, window, step, max_iter):
    pp = ffi.new("raid_garch_spec **")
    check(lib.raid_garch_spec_create(pp))
    spec = ffi.gc(pp[0], lib.raid_garch_spec_destroy)
    check(lib.raid_garch_spec_set_model(spec, _word(lib.raid_garch_model_parse, model, "raid_garch_model", "model")))
    check(lib.raid_garch_spec_set_dist(spec, _word(lib.raid_garch_dist_parse, dist, "raid_garch_dist", "dist")))
    check(lib.raid_garch_spec_set_mean(spec, _word(lib.raid_garch_mean_parse, mean, "raid_garch_mean", "mean")))
    check(lib.raid_garch_spec_set_init(spec, _word(lib.raid_garch_init_parse, init, "raid_garch_init", "init")))
    check(lib.raid_garch_spec_set_ez(spec, _word(lib.raid_garch_ez_parse, ez, "raid_garch_ez", "ez")))
    check(lib.raid_garch_spec_set_se(spec, _word(lib.raid_garch_se_parse, se, "raid_garch_se", "se")))
    if step is not None and window is None:
        raise ValueError("step needs window (as raid garch's --step needs --window)")
    step = 1 if step is None else c_int(step, "step", "int64_t")
    if step < 1:
        raise ValueError(f"step must be a positive number of returns, not {step}")
    kind, n = ffi.new("raid_garch_window *"), ffi.new("int64_t *")
    check(lib.raid_garch_window_parse(("full" if window is None else str(window)).encode(), kind, n))
    check(lib.raid_garch_spec_set_window(spec, kind[0], n[0], step))
    check(lib.raid_garch_spec_set_max_iter(spec, c_int(max_iter, "max_iter")))
    return spec


# masked entries: what to do instead (raid.garch has no null values; NaN makes a series non-finite)
_HOW = ("give the returns without them (returns.compressed()) or NaN for them (returns.filled(np.nan), which makes "
        "the series non-finite)")


def _series_list(returns, ret_col, symbol_col, date_col):
    """(name bytes, float64 returns, dates or None, 0-based row numbers) per symbol."""
    if isinstance(returns, dict):
        out = []
        for k, v in returns.items():
            if not isinstance(k, str):
                raise ValueError(f"symbol {k!r} must be a string")
            (_, r, d, rows), = _series_list(v, ret_col, None, None)
            out.append((k.encode(), r, d, rows))
        return out
    if isinstance(returns, pd.Series):
        r = floats(returns, "returns", nulls="nan", how=_HOW)
        name = returns.name if isinstance(returns.name, str) else ""
        return [(name.encode(), r, index_labels(returns.index), np.arange(len(r), dtype=np.int64))]
    if is_frame(returns):
        df = frame(returns, "returns", "ret (symbol, date)")
        rc = column(df, ret_col, "ret")
        sc = column(df, symbol_col, "symbol", required=False)
        dc = column(df, date_col, "date", required=False)
        n = len(df)
        if sc is None:
            codes, names, bounds = np.zeros(n, np.int64), [b""], np.array([0, n] if n else [0], np.int64)
        else:
            codes, names, bounds = symbol_runs(df[sc], "raid garch")
        r = floats(df[rc], rc, nulls="nan")
        dates = date_labels(df[dc]) if dc is not None else None
        return [(names[codes[s0]], r[s0:s1], None if dates is None else dates[s0:s1],
                 np.arange(s0, s1, dtype=np.int64)) for s0, s1 in zip(bounds[:-1].tolist(), bounds[1:].tolist())]
    r = floats(returns, "returns", nulls="nan", how=_HOW)
    return [(b"", r, None, np.arange(len(r), dtype=np.int64))]


def _from_device(returns, device):
    """CUDA returns (one array, or a dict of them; docs/python.md "CUDA arrays"): host copies, and the device
    string of their device. raid_garch_input_add keeps its own copy of every series on the host, where the
    fits' float64 refinement, inference and windows read them, so a device input is copied once here; the
    device batches of the fits run on the arrays' device. Anything else as it is."""
    if isinstance(returns, dict) and any(_cuda.is_device(v) for v in returns.values()):
        arrs = {k: _cuda.cuda_array(v, f"returns[{k!r}]") for k, v in returns.items()}
        s, _ = _cuda.spec(list(arrs.values()), device)
        context(s)  # the device's context first: a device that cannot run fails before any copy
        return {k: a.host() for k, a in arrs.items()}, s
    if _cuda.is_device(returns):
        a = _cuda.cuda_array(returns, "returns")
        s, _ = _cuda.spec([a], device)
        context(s)
        return a.host(), s
    return returns, device


def _input(series):
    pp = ffi.new("raid_garch_input **")
    check(lib.raid_garch_input_create(pp))
    gin = ffi.gc(pp[0], lib.raid_garch_input_destroy)
    for name, r, dates, rows in series:
        r, rp = as_c(r, np.float64, "returns")
        rows, lp = as_c(rows, np.int64, "rows")
        keep = [ffi.new("char[]", str(d).encode()) for d in dates] if dates is not None else None
        dp = ffi.new("char *[]", keep) if keep is not None else ffi.NULL
        check(lib.raid_garch_input_add(gin, name, len(r), rp, dp, lp))
    return gin


def garch(returns, model="garch", dist="normal", mean="constant", init="backcast", ez="sqrt2pi", se="robust",
          window=None, step=None, max_iter=500, device=None, ret_col=None, symbol_col=None, date_col=None,
          progress=None):
    """Fit a GARCH-family model to one or many return series (docs/garch.md; `raid garch`).

    returns: a 1-D array (numpy, list, pyarrow: one series, symbol ""); a pandas Series (its index gives window_end when
    it holds dates, datetime-like or strings; its name, if a string, the symbol); a DataFrame with a ret
    column and optional symbol and date columns (names case-insensitive, *_col rename them; a symbol's
    rows contiguous, in time order), as `raid garch` reads its CSV (or a pyarrow Table of them); or a dict
    {symbol: array or Series}. Returns in any unit: the estimates come back in that unit, by the package's
    values rule (docs/python.md "Inputs": integers exact in float64 taken, text refused). NaN (and pandas
    NA, pyarrow null) makes a series "non-finite"; a masked array with masked entries is refused (give
    returns.compressed()).
    model "garch", "gjr", "egarch"; dist "normal", "t"; mean "constant", "zero"; init "backcast" (arch's,
    the default) or "sample"; ez "sqrt2pi" or "dist" (EGARCH's kappa); se "robust" or "classic";
    window None (full sample), "rolling:N" or "expanding:N" with step (default 1; only with a window);
    max_iter BFGS iterations;
    device as raid.realized (None: $RAID_DEVICE or auto); progress: the fits' progress (unit "fits"), None (the
    default: none), True (a tqdm bar), a tqdm class or bar, or a callable(done, total) (docs/python.md
    "Progress").

    Returns a DataFrame with `raid garch`'s columns (one row per series, or per window); the fit's
    messages (why a fit has no estimates or did not converge) are in its .attrs["messages"]. Raises
    RaidError for a bad specification and the device's errors, ValueError for input it cannot take.
    """
    spec = _spec(model, dist, mean, init, ez, se, window, step, max_iter)
    returns, device = _from_device(returns, device)
    gin = _input(_series_list(returns, ret_col, symbol_col, date_col))
    ctx = context(device)
    rp = ffi.new("raid_garch_result **")
    with reporting(ctx, progress, "garch"):
        check(lib.raid_garch_fit(ctx, spec, gin, rp), ctx)
    res = ffi.gc(rp[0], lib.raid_garch_result_destroy)
    n = lib.raid_garch_result_nrows(res)
    P = len(_PARAMS)
    params = array(lib.raid_garch_result_params(res), n * P, np.float64).reshape(n, P)
    ses = array(lib.raid_garch_result_se(res), n * P, np.float64).reshape(n, P)
    status = array(lib.raid_garch_result_status(res), n, np.int32)
    ends = [lib.raid_garch_result_window_end(res, r) for r in range(n)]
    cols = {"symbol": [_text(lib.raid_garch_result_symbol(res, r)) for r in range(n)],
            "window_end": [None if e == ffi.NULL else _text(e) for e in ends],
            "n": array(lib.raid_garch_result_n(res), n, np.int64),
            "model": [_text(lib.raid_garch_model_name(lib.raid_garch_spec_model(spec)))] * n,
            "dist": [_text(lib.raid_garch_dist_name(lib.raid_garch_spec_dist(spec)))] * n}
    for j, p in enumerate(_PARAMS):
        cols[p] = params[:, j]
    for j, p in enumerate(_PARAMS):
        cols["se_" + p] = ses[:, j]
    cols["loglik"] = array(lib.raid_garch_result_loglik(res), n, np.float64)
    cols["iterations"] = array(lib.raid_garch_result_iterations(res), n, np.int32).astype(np.int64)
    cols["status"] = [_text(lib.raid_garch_status_name(int(s))) for s in status]
    cols["sigma2_last"] = array(lib.raid_garch_result_sigma2_last(res), n, np.float64)
    cols["sigma2_next"] = array(lib.raid_garch_result_sigma2_next(res), n, np.float64)
    out = pd.DataFrame(cols, columns=COLUMNS)
    out.attrs["messages"] = [_text(lib.raid_garch_result_message(res, i))
                             for i in range(lib.raid_garch_result_nmessages(res))]
    return mark_model(out)
