"""Realized covariance: daily N x N matrices of intraday prices (raid_cov_job_*, the job of `raid cov`)."""
import os
import warnings

import numpy as np
import pandas as pd

from ._convert import c_int, flag, is_arrow, symbols as symbol_names
from ._core import RaidNotice, array, check, context, ffi, lib
from ._realized import _read_opts, _through_ticks


class CovResult(tuple):
    """(dates, symbols, values) with two more attributes: min_eig and n (see raid.cov)."""

    def __new__(cls, dates, symbols, values, min_eig, n):
        self = super().__new__(cls, (dates, symbols, values))
        self.dates, self.symbols, self.values, self.min_eig, self.n = dates, symbols, values, min_eig, n
        return self


def cov_estimators():
    """The estimator names raid.cov takes: rcov, rbpcov, rsemicov, hy, mrc, mrc_psd, rkcov."""
    # (the header's RAID_COV_NESTIMATORS is a #define, which the preprocessed cdef does not keep: the names
    # are read until raid_cov_estimator_name says NULL)
    names, k = [], 0
    while (p := lib.raid_cov_estimator_name(k)) != ffi.NULL:
        names.append(ffi.string(p).decode())
        k += 1
    return names


def _symbol_list(symbols):
    """The names of cov's symbols argument (a list, tuple, array, Series or Arrow array of names) as UTF-8
    bytes in its order, by the package's symbols rule (docs/python.md "Inputs": text, or values of one type
    named by str(); a missing one, mixed types, a NUL byte refused naming the row). A name given twice is
    left to the library, which refuses it; an empty list is refused as `raid cov --symbols ''` is."""
    if isinstance(symbols, (str, bytes)):
        raise TypeError(f"symbols must be a list of names, not a {type(symbols).__name__}")
    if is_arrow(symbols):
        symbols = symbols.to_pylist()
    col = symbols if isinstance(symbols, pd.Series) else pd.Series(list(symbols), dtype=object)
    if len(col) == 0:
        raise ValueError(f"symbols must name at least one symbol (None: every symbol), not {list(symbols)!r}")
    codes, names = symbol_names(col)
    return [names[c] for c in codes]


def cov(prices_df_or_path, estimator="rcov", sample=None, refresh_time=False, session=None, tz="UTC",
        symbols=None, min_obs=None, psd_project=False, device=None, symbol_col=None, time_col=None,
        price_col=None):
    """Daily realized covariance matrices of intraday prices: `raid cov` (docs/measures.md "Covariance").

    prices_df_or_path: a DataFrame (or pyarrow Table) of symbol, timestamp, price as
    raid.realized_from_prices takes it, or the path of a CSV file as `raid cov` reads it (its errors name
    FILE:LINE:COL). estimator: "rcov" (default), "rbpcov", "rsemicov", "hy", "mrc", "mrc_psd", "rkcov"
    (raid.cov_estimators()). sample: "tick", "Ns", "Nmin", ... as realized_from_prices; None: "5min",
    or "tick" for hy and refresh_time. refresh_time: True to synchronise by refresh time (tick sampling)
    instead of previous tick on the union of the sampled times. session, tz, symbol_col, time_col,
    price_col: as realized_from_prices. symbols: None (every symbol, in order of first appearance) or a list
    (tuple, array, Series) of at least one name, the matrices' order, by the package's symbols rule
    (docs/python.md "Inputs"); a listed symbol without a price in the input is absent every day (NaN row and
    column), as with `raid cov --symbols`. min_obs: an integer >= 1 (not a float or bool): a symbol with
    fewer sampled prices on a day is absent that day (NaN row and column); None: 2. psd_project: True to
    replace each matrix by the nearest PSD one with the same variances (Higham 2002). The flags refresh_time
    and psd_project are True or False. device: None or a device string (the context; on a device the sums
    of products of every estimator, hy's included, are double-float on the device, within the bound of
    docs/precision.md "Covariance" of the float64 host path, df policy only).

    Returns a CovResult, a tuple (dates, symbols, values) with two more attributes:
    dates: numpy array of str YYYY-MM-DD (days,); symbols: list of str (N); values: float64 array of
    shape (days, N, N) (rsemicov (days, 3, N, N): P, N, M), NaN where undefined; .min_eig: float64
    (days,) the smallest eigenvalue of each day's matrix of the present symbols before any projection
    (rsemicov (days, 2): P and N), NaN where the matrix is undefined; .n: int64 (days,) the synchronised
    returns of the day (hy: the most returns of a symbol). Raises RaidError (RAID_EPARSE with the row,
    RAID_EINVAL for a bad estimator, sample, session, tz or symbol list: a name given twice), ValueError for
    bad arguments (a flag that is not a bool, a min_obs that is not an integer >= 1 or past int64, an empty
    list of symbols or a missing name in it).
    """
    refresh_time, psd_project = flag(refresh_time, "refresh_time"), flag(psd_project, "psd_project")
    est = ffi.new("raid_cov_estimator *")
    check(lib.raid_cov_estimator_parse(str(estimator).encode(), est))
    if refresh_time and est[0] == lib.RAID_COV_HY:
        raise ValueError("refresh_time does not apply to the estimator hy (it uses each symbol's own observations)")
    if sample is None:
        sample = "tick" if refresh_time or est[0] == lib.RAID_COV_HY else "5min"
    elif refresh_time and str(sample).lower() != "tick":
        raise ValueError("refresh_time samples the observations themselves: give sample='tick' or None")
    o = ffi.new("raid_cov_opts *")
    lib.raid_cov_opts_init(o)
    o.estimator = est[0]
    o.sync = lib.RAID_COV_SYNC_REFRESH if refresh_time else lib.RAID_COV_SYNC_PREVIOUS
    keep = []
    if symbols is not None:
        names = [ffi.new("char[]", s) for s in _symbol_list(symbols)]
        keep += names
        arr = ffi.new("const char *[]", names)
        keep.append(arr)
        o.symbols, o.nsymbols = arr, len(names)
    if min_obs is not None:
        min_obs = c_int(min_obs, "min_obs", "int64_t")
        if min_obs < 1:
            raise ValueError(f"min_obs must be an integer >= 1, not {min_obs}")
        o.min_obs = min_obs
    o.psd_project = int(psd_project)
    jp = ffi.new("raid_cov_job **")
    check(lib.raid_cov_job_create(jp, o))
    job = ffi.gc(jp[0], lib.raid_cov_job_destroy)
    ctx = context(device if device is not None else "cpu")
    if isinstance(prices_df_or_path, (str, os.PathLike)):
        ro = _read_opts(sample, session, tz, True, keep)
        for col, field in ((symbol_col, "symbol_col"), (time_col, "time_col"), (price_col, "price_col")):
            if col is not None:
                keep.append(ffi.new("char[]", str(col).encode()))
                setattr(ro, field, keep[-1])
        rdp = ffi.new("raid_reader **")
        check(lib.raid_reader_open(rdp, os.fsencode(prices_df_or_path), ro))
        rd = ffi.gc(rdp[0], lib.raid_reader_close)
        done = ffi.new("int *")
        while not done[0]:
            check(lib.raid_cov_job_add_reader(job, ctx, rd, done), ctx)
        for i in range(lib.raid_reader_notice_count(rd)):
            warnings.warn(ffi.string(lib.raid_reader_notice(rd, i)).decode(), RaidNotice, stacklevel=2)
    else:
        _through_ticks(prices_df_or_path, sample, session, tz, symbol_col, time_col, price_col, True,
                       lambda tk, fin: check(lib.raid_cov_job_add_ticks(job, ctx, tk, fin), ctx))
    check(lib.raid_cov_job_finish(job))
    days, N = lib.raid_cov_job_ndays(job), lib.raid_cov_job_nsymbols(job)
    parts = lib.raid_cov_parts(est[0])
    syms = [ffi.string(lib.raid_cov_job_symbol(job, i)).decode() for i in range(N)]
    d = array(lib.raid_cov_job_dates(job), days, np.int32) if days else np.zeros(0, np.int32)
    dates = np.array([f"{x // 10000:04d}-{x // 100 % 100:02d}-{x % 100:02d}" for x in d], dtype=str)
    shape = (days, parts, N, N) if parts == 3 else (days, N, N)
    size = days * parts * N * N
    values = (array(lib.raid_cov_job_values(job), size, np.float64).reshape(shape) if size
              else np.zeros(shape, np.float64))
    eig = array(lib.raid_cov_job_min_eig(job), days * parts, np.float64) if days else np.zeros(0)
    eig = eig.reshape(days, parts)[:, :2] if parts == 3 else eig.reshape(days)
    n = array(lib.raid_cov_job_n(job), days, np.int64) if days else np.zeros(0, np.int64)
    return CovResult(dates, syms, values, eig.copy(), n.copy())
