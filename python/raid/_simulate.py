"""The library's simulator (docs/simulate.md) and the device list, as DataFrames."""
import os
import tempfile

import numpy as np
import pandas as pd

from ._convert import c_int, flag, floats, is_frame, matrix, real
from ._core import check, ffi, lib, read_csv_exact, records, show


def sim_options():
    """The options of raid.simulate with their defaults: the fields of raid_sim_opts (raid_sim_opts_init), its
    arrays (mean_vars, corr_matrix, trade_rates) given through mean_var, corr and trade_rate instead."""
    o = ffi.new("raid_sim_opts *")
    lib.raid_sim_opts_init(o)
    return {name: getattr(o, name) for name, f in ffi.typeof("raid_sim_opts").fields if f.type.kind != "pointer"}


# The options that take one value per symbol (or a matrix) besides a number, and their array fields.
_ARRAY_OPTS = {"mean_var": "mean_vars", "trade_rate": "trade_rates", "corr": "corr_matrix"}
_NO_NULLS = "give a value for every symbol"


def simulate(kind="prices", iv=False, cov=False, **opts):
    """Simulated intraday data from the stochastic-volatility model with jumps and noise (docs/simulate.md).

    opts: the fields of raid_sim_opts (raid.sim_options() lists them with their defaults): seed,
    nsymbols, ndays, obs_per_day, mean_var, vol_of_logvar, mean_reversion, rho, jump_rate, jump_sd,
    noise_sd, start_price, corr, trade_rate. mean_var and trade_rate may also be sequences of one value
    per symbol, corr an nsymbols x nsymbols correlation matrix (docs/simulate.md "Correlated symbols"):
    arrays, lists, Series, DataFrames, Arrow arrays by the package's values rule (docs/python.md "Inputs":
    masked entries, NA and nulls refused naming the row, text and booleans by dtype). A number is an int,
    float or numpy scalar, never text; iv and cov are True or False.
    kind="prices": a DataFrame symbol (str, "S0001", ...), timestamp (datetime64, local wall-clock
    09:30:00 to 16:00:00 on weekdays from 2020-01-02), price (float64): the CSV `raid simulate` writes,
    read back exactly (with a correlation or trade rates in its order: day by day, rows in time order).
    kind="returns": a DataFrame series (int, 0-based symbol), day (int, 0-based), ret (float64 log
    returns), obs_per_day - 1 returns per day, symbol-major (raid_simulate_returns; no trade rates).
    iv=True: also the integrated variance of each day, as a DataFrame (symbol, date, iv for prices; series,
    day, iv for returns). cov=True: also the true integrated covariance of each day, as a DataFrame in the
    long layout of `raid simulate --truth-cov` (date, symbol_i, symbol_j, value for prices; day, series_i,
    series_j, value for returns), one row per pair i <= j (raid_simulate_returns_cov). The result is the
    data alone, or a tuple: (data, iv), (data, cov) or (data, iv, cov). Raises RaidError (RAID_EINVAL for
    an option out of its domain, with the library's message naming it, the same for both kinds; a
    correlation that is not positive semidefinite, naming the Cholesky pivot; a model that leaves float64),
    ValueError for an option of the wrong type or shape or outside its C type's range (an integer field
    given 2.7 or 2**40, a number given as text, iv="no"), DtypeError (a ValueError) for an array of text or
    booleans, TypeError for an unknown option.
    """
    iv, cov = flag(iv, "iv"), flag(cov, "cov")
    o = ffi.new("raid_sim_opts *")
    lib.raid_sim_opts_init(o)
    fields = {k: f for k, f in ffi.typeof("raid_sim_opts").fields if f.type.kind != "pointer"}
    arrays = {}
    for k, v in opts.items():
        if k not in fields:
            raise TypeError(f"simulate() got an unknown option '{show(k)}' (expected one of {sorted(fields)})")
        ftype = fields[k].type
        if k in _ARRAY_OPTS and (isinstance(v, (list, tuple)) or is_frame(v) or np.ndim(v) > 0):
            # the package's values rule (docs/python.md "Inputs"): masked entries, NA and nulls refused naming
            # the row, text and booleans refused by dtype; a copy, which the library reads during the call
            a = matrix(v, k, _NO_NULLS, "a number or a matrix") if k == "corr" else floats(v, k, how=_NO_NULLS)
            arrays[k] = a.copy()
            continue
        if ftype.kind == "primitive" and ftype.cname in ("double", "float"):
            v = real(v, k)
        else:
            v = c_int(v, k, ftype.cname)
        setattr(o, k, v)
    n = o.nsymbols
    keep = []
    for k, a in arrays.items():
        want = (n, n) if k == "corr" else (n,)
        if a.shape != want:
            raise ValueError(f"simulate: {k} has shape {a.shape} for {n} symbols (expected {want})")
        buf = ffi.from_buffer("double[]", np.ascontiguousarray(a))
        keep.append(buf)
        setattr(o, _ARRAY_OPTS[k], buf)
    if kind == "prices":
        return _prices(o, iv, cov)
    if kind == "returns":
        return _returns(o, iv, cov)
    raise ValueError(f"kind must be 'prices' or 'returns', not {kind!r}")


def _result(df, *extra):
    extra = [e for e in extra if e is not None]
    return (df, *extra) if extra else df


def _returns(o, want_iv, want_cov):
    nseg = o.nsymbols * o.ndays
    m = o.obs_per_day - 1
    nc = lib.raid_sim_cov_size(o.nsymbols)
    r = np.empty(max(nseg * m, 1), dtype=np.float64)
    ivs = np.empty(max(nseg, 1), dtype=np.float64)
    cv = np.empty(max(o.ndays * nc, 1) if want_cov else 1, dtype=np.float64)
    check(lib.raid_simulate_returns_cov(o, ffi.from_buffer("double[]", r), ffi.from_buffer("double[]", ivs),
                                        ffi.from_buffer("double[]", cv) if want_cov else ffi.NULL))
    seg = np.repeat(np.arange(nseg), m)
    df = pd.DataFrame({"series": seg // o.ndays, "day": seg % o.ndays, "ret": r[:nseg * m]})
    ivdf = covdf = None
    if want_iv:
        s = np.arange(nseg)
        ivdf = pd.DataFrame({"series": s // o.ndays, "day": s % o.ndays, "iv": ivs[:nseg]})
    if want_cov:
        i, j = np.triu_indices(o.nsymbols)  # row by row: raid_sim_cov_size's order
        covdf = pd.DataFrame({"day": np.repeat(np.arange(o.ndays), nc), "series_i": np.tile(i, o.ndays),
                              "series_j": np.tile(j, o.ndays), "value": cv[:o.ndays * nc]})
    return _result(df, ivdf, covdf)


def _prices(o, want_iv, want_cov):
    with tempfile.TemporaryDirectory(prefix="raid-sim-") as tmp:
        p = os.path.join(tmp, "prices.csv")
        q = os.path.join(tmp, "iv.csv")
        c = os.path.join(tmp, "cov.csv")
        check(lib.raid_simulate_cov_csv(ffi.NULL, o, p.encode(), q.encode() if want_iv else ffi.NULL,
                                        c.encode() if want_cov else ffi.NULL))
        df = read_csv_exact(p, dtype={"symbol": str, "timestamp": str, "price": np.float64}, keep_default_na=False)
        df["timestamp"] = pd.to_datetime(df["timestamp"], format="ISO8601")
        ivdf = covdf = None
        if want_iv:
            ivdf = read_csv_exact(q, dtype={"symbol": str, "date": str, "iv": np.float64}, keep_default_na=False)
        if want_cov:
            covdf = read_csv_exact(c, dtype={"date": str, "symbol_i": str, "symbol_j": str, "value": np.float64},
                                   keep_default_na=False)
        return _result(df, ivdf, covdf)


def backend_absent(backend):
    """None when backend ("cpu", "opencl" or "cuda") can run in this process, else a sentence saying why
    not ("libcuda.so.1 not found (no NVIDIA driver)", "NVRTC not found (...)", "no CUDA device", ...):
    raid_backend_absent."""
    codes = {"cpu": lib.RAID_BACKEND_CPU, "opencl": lib.RAID_BACKEND_OPENCL, "cuda": lib.RAID_BACKEND_CUDA}
    if backend not in codes:
        raise ValueError(f"backend must be 'cpu', 'opencl' or 'cuda', not {backend!r}")
    why = lib.raid_backend_absent(codes[backend])
    return None if why == ffi.NULL else ffi.string(why).decode("utf-8", "replace")


def devices():
    """The devices of both backends (raid_devices) as a DataFrame, one row each: device (the spec for the
    device= arguments: "opencl:P.D" or "cuda:N"), type ("gpu", "cpu", ...), name, platform_name,
    compute_units, global_mem_bytes, has_fp64 (bool), platform, index, backend ("opencl" or "cuda") and the
    CUDA compute capability (cc_major, cc_minor; 0 for OpenCL). Empty without an OpenCL runtime and
    without CUDA (raid.backend_absent("cuda") says why CUDA is missing); the "cpu" backend (float64,
    OpenMP) is always available besides."""
    cap = 64
    while True:
        out = ffi.new("raid_device_info[]", cap)
        count = ffi.new("size_t *")
        check(lib.raid_devices(out, cap, count))
        if count[0] <= cap:
            break
        cap = count[0]
    rec = records(out, count[0], "raid_device_info")
    txt = lambda col: [v.decode("utf-8", "replace") for v in rec[col]]  # noqa: E731
    return pd.DataFrame({
        "device": txt("spec"),
        "type": txt("type"), "name": txt("name"), "platform_name": txt("platform_name"),
        "compute_units": rec["compute_units"].astype(np.int64), "global_mem_bytes": rec["global_mem_bytes"],
        "has_fp64": rec["has_fp64"].astype(bool), "platform": rec["platform"], "index": rec["device"],
        "backend": ["cuda" if b == lib.RAID_BACKEND_CUDA else "opencl" for b in rec["backend"]],
        "cc_major": rec["cc_major"], "cc_minor": rec["cc_minor"]})
