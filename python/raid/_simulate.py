"""The library's simulator (docs/simulate.md) and the device list, as DataFrames."""
import os
import tempfile

import numpy as np
import pandas as pd

from ._convert import c_int
from ._core import check, ffi, lib, read_csv_exact, records, show


def sim_options():
    """The options of raid.simulate with their defaults: the fields of raid_sim_opts (raid_sim_opts_init)."""
    o = ffi.new("raid_sim_opts *")
    lib.raid_sim_opts_init(o)
    return {name: getattr(o, name) for name, _ in ffi.typeof("raid_sim_opts").fields}


def simulate(kind="prices", iv=False, **opts):
    """Simulated intraday data from the stochastic-volatility model with jumps and noise (docs/simulate.md).

    opts: the fields of raid_sim_opts (raid.sim_options() lists them with their defaults): seed,
    nsymbols, ndays, obs_per_day, mean_var, vol_of_logvar, mean_reversion, rho, jump_rate, jump_sd,
    noise_sd, start_price.
    kind="prices": a DataFrame symbol (str, "S0001", ...), timestamp (datetime64, local wall-clock
    09:30:00 to 16:00:00 on weekdays from 2020-01-02), price (float64): the CSV `raid simulate` writes,
    read back exactly. kind="returns": a DataFrame series (int, 0-based symbol), day (int, 0-based), ret
    (float64 log returns), obs_per_day - 1 returns per day, symbol-major (raid_simulate_returns).
    iv=True: also the integrated variance of each day, as a second DataFrame (symbol, date, iv for prices;
    series, day, iv for returns). Raises RaidError (RAID_EINVAL for an option out of its domain, with the
    library's message naming it, the same for both kinds; a model that leaves float64), ValueError for
    an option of the wrong type or outside its C type's range (an integer field given 2.7 or 2**40),
    TypeError for an unknown option.
    """
    o = ffi.new("raid_sim_opts *")
    lib.raid_sim_opts_init(o)
    fields = dict(ffi.typeof("raid_sim_opts").fields)
    for k, v in opts.items():
        if k not in fields:
            raise TypeError(f"simulate() got an unknown option '{show(k)}' (expected one of {sorted(fields)})")
        ftype = fields[k].type
        if ftype.kind == "primitive" and ftype.cname in ("double", "float"):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
                raise ValueError(f"simulate: {k} must be a real number, not {v!r} ({type(v).__name__})")
            v = float(v)
        else:
            v = c_int(v, k, ftype.cname)
        setattr(o, k, v)
    if kind == "prices":
        return _prices(o, iv)
    if kind == "returns":
        return _returns(o, iv)
    raise ValueError(f"kind must be 'prices' or 'returns', not {kind!r}")


def _returns(o, want_iv):
    nseg = o.nsymbols * o.ndays
    m = o.obs_per_day - 1
    r = np.empty(max(nseg * m, 1), dtype=np.float64)
    ivs = np.empty(max(nseg, 1), dtype=np.float64)
    check(lib.raid_simulate_returns(o, ffi.from_buffer("double[]", r), ffi.from_buffer("double[]", ivs)))
    seg = np.repeat(np.arange(nseg), m)
    df = pd.DataFrame({"series": seg // o.ndays, "day": seg % o.ndays, "ret": r[:nseg * m]})
    if not want_iv:
        return df
    s = np.arange(nseg)
    return df, pd.DataFrame({"series": s // o.ndays, "day": s % o.ndays, "iv": ivs[:nseg]})


def _prices(o, want_iv):
    with tempfile.TemporaryDirectory(prefix="raid-sim-") as tmp:
        p = os.path.join(tmp, "prices.csv")
        q = os.path.join(tmp, "iv.csv")
        check(lib.raid_simulate_csv(o, p.encode(), q.encode() if want_iv else ffi.NULL))
        df = read_csv_exact(p, dtype={"symbol": str, "timestamp": str, "price": np.float64}, keep_default_na=False)
        df["timestamp"] = pd.to_datetime(df["timestamp"], format="ISO8601")
        if not want_iv:
            return df
        iv = read_csv_exact(q, dtype={"symbol": str, "date": str, "iv": np.float64}, keep_default_na=False)
        return df, iv


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
