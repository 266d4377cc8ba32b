"""The shared library, its errors and its contexts: what every function of the package builds on.

The declarations come from include/ at build time (gen_ffi.py writes _raid_ffi.py); the library bundled
beside this file is loaded with dlopen (cffi's ABI mode). Nothing here mirrors a C struct: numpy dtypes
of the library's structs are derived from the declarations (field names, offsets, sizes).
"""
import atexit
import os
import threading

import numpy as np
import pandas as pd

from ._raid_ffi import ffi

_HERE = os.path.dirname(os.path.abspath(__file__))
lib = ffi.dlopen(os.path.join(_HERE, "libraid.so"))


class RaidError(Exception):
    """A failure reported by the library.

    status: the raid_status value (int); name: its enumerator ("RAID_EINVAL"); reason: raid_strerror's
    text ("invalid argument"); message: the library's message (raid_ctx_errmsg or raid_errmsg), or the
    binding's own when the call sets none.
    """

    def __init__(self, status, message):
        self.status = int(status)
        self.name = status_name(status)
        self.reason = ffi.string(lib.raid_strerror(status)).decode()
        self.message = message
        super().__init__(f"{self.name} ({self.reason}): {message}")


class RaidNotice(UserWarning):
    """A notice of the library about the input that changes no number (raid_ticks_notice)."""


def status_name(status):
    """The enumerator of a raid_status value, e.g. 'RAID_EPARSE'."""
    return ffi.string(ffi.cast("raid_status", int(status)))


def _text(p):
    return ffi.string(p).decode("utf-8", "replace") if p != ffi.NULL else ""


def check(status, ctx=None, what=None):
    """Raise RaidError for a status other than RAID_OK, with the message of the context (a call that
    took one) or raid_errmsg() (a context-free call); what: the binding's message when the call sets none."""
    if status != lib.RAID_OK:
        msg = what if what is not None else _text(lib.raid_ctx_errmsg(ctx) if ctx is not None else lib.raid_errmsg())
        raise RaidError(status, msg)


def version():
    """The library's version string."""
    return _text(lib.raid_version())


# ---------------------------------------------------------------------------------------------------
# Contexts: one per device spec and thread (a raid_ctx serves one thread at a time), kept for reuse (a
# context owns the OpenCL context and its compiled kernels).
# ---------------------------------------------------------------------------------------------------

class _Contexts(threading.local):
    def __init__(self):
        self.by_spec = {}


_contexts = _Contexts()

PRECISIONS = {"f32": "RAID_PREC_F32", "df": "RAID_PREC_DF"}


def context(device="auto", precision="df"):
    """This thread's raid_ctx for device ("auto", "cpu", "opencl", "opencl:P.D"; None: $RAID_DEVICE or
    auto), set to precision ("df" or "f32")."""
    if device is not None and not isinstance(device, str):
        raise TypeError(f"device must be a string, not {type(device).__name__}")
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be 'df' or 'f32', not {precision!r}")
    ctx = _contexts.by_spec.get(device)
    if ctx is None:
        pp = ffi.new("raid_ctx **")
        check(lib.raid_ctx_create(pp, device.encode() if device is not None else ffi.NULL))
        ctx = ffi.gc(pp[0], lib.raid_ctx_destroy)
        _contexts.by_spec[device] = ctx
    check(lib.raid_ctx_set_precision(ctx, getattr(lib, PRECISIONS[precision])), ctx)
    return ctx


@atexit.register
def _release_contexts():
    _contexts.by_spec.clear()


def device_name(device="auto"):
    """The description of the device a context for this spec uses ("cpu (float64, 2 threads)", ...)."""
    return _text(lib.raid_ctx_device_name(context(device)))


# ---------------------------------------------------------------------------------------------------
# Structs as numpy records, from the declarations
# ---------------------------------------------------------------------------------------------------

_PRIMITIVE = {"double": "f8", "float": "f4", "int64_t": "i8", "uint64_t": "u8", "int32_t": "i4",
              "uint32_t": "u4", "int": "i4", "unsigned int": "u4", "size_t": "u8", "char": "S1"}


def struct_dtype(ctype):
    """A numpy dtype with the fields, offsets and size of a C struct as cffi reads it from the headers."""
    t = ffi.typeof(ctype)
    names, formats, offsets = [], [], []
    for name, f in t.fields:
        ft = f.type
        if ft.kind == "array" and ft.item.cname == "char":
            fmt = f"S{ft.length}"
        elif ft.kind == "array":
            fmt = (np.dtype(_PRIMITIVE[ft.item.cname]), (ft.length,))
        elif ft.kind == "enum":
            fmt = f"i{ffi.sizeof(ft)}"
        else:
            fmt = _PRIMITIVE[ft.cname]
        names.append(name)
        formats.append(fmt)
        offsets.append(f.offset)
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": ffi.sizeof(t)})


def records(cdata, n, ctype):
    """A copy of n structs at cdata as a numpy record array."""
    dt = struct_dtype(ctype)
    if n == 0:
        return np.zeros(0, dtype=dt)
    return np.frombuffer(ffi.buffer(cdata, n * dt.itemsize), dtype=dt).copy()


def array(ptr, n, dtype):
    """A copy of n values of a numpy dtype at a C pointer."""
    dtype = np.dtype(dtype)
    if n == 0:
        return np.zeros(0, dtype=dtype)
    return np.frombuffer(ffi.buffer(ptr, n * dtype.itemsize), dtype=dtype).copy()


def as_c(a, dtype, name):
    """A C-contiguous one-dimensional numpy array of dtype (float64 or int64) and a cffi pointer to its
    data (keep the array alive while the pointer is used). A 0-d array or scalar is refused as numpy's
    np.sort refuses it (np.ascontiguousarray alone would make it one-dimensional)."""
    if np.ndim(a) != 1:
        raise ValueError(f"{name} must be one-dimensional, not of shape {np.shape(a)}")
    a = np.ascontiguousarray(a, dtype=dtype)
    if a.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, not of shape {a.shape}")
    return a, ffi.from_buffer(_C_OF[a.dtype.str] + "[]", a)


_C_OF = {np.dtype("f8").str: "double", np.dtype("i8").str: "int64_t"}


class DtypeError(TypeError, ValueError):
    """An array of a dtype a function does not take (raid.sort of int64, say): a TypeError; also a
    ValueError, which raid.realized raised for it before."""


def _nullable(a):
    """a pandas Series or array of a nullable (masked) integer, unsigned or boolean dtype (Int64, UInt8,
    boolean, ...): pandas' to_numpy() gives float64 (rounding past 2**53) or object where it holds NA."""
    return (isinstance(a, (pd.Series, pd.api.extensions.ExtensionArray)) and
            isinstance(a.dtype, pd.api.extensions.ExtensionDtype) and a.dtype.kind in "iub" and
            hasattr(a.dtype, "numpy_dtype"))


def plain(a, name):
    """np.asarray(a) (a pandas Series: its values) in native byte order (a big-endian '>f8' array: a
    converted copy); ValueError for a masked array (its mask would be lost). A pandas nullable integer
    (Int64, ...) gives its numpy dtype (int64, ...), never a float64 cast: ValueError naming the first NA
    row if it holds one (real_floats with exact_integers makes NA a NaN instead)."""
    if isinstance(a, np.ma.MaskedArray):
        raise ValueError(f"{name}: masked arrays are refused (the mask would be ignored); give the values "
                         "to use (a.compressed(), with keys or offsets to match) or, where the call takes a "
                         "validity mask (raid.groupby's valid=), the data with valid=~np.ma.getmaskarray(a)")
    if _nullable(a):
        na = np.asarray(pd.isna(a))
        if na.any():
            raise ValueError(f"row {int(np.flatnonzero(na)[0])}: {name} is NA (pandas {a.dtype}): drop the "
                             f"NA rows or give the values without them")
        return a.to_numpy(dtype=a.dtype.numpy_dtype)
    a = np.asarray(a.to_numpy() if isinstance(a, pd.Series) else a)
    if a.dtype.kind in "fiuc" and not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    return a


_EXACT_FLOATS = (np.dtype(np.float64), np.dtype(np.float32), np.dtype(np.float16))


def real_floats(a, name, exact_integers=False):
    """a as a numpy float64 array: float64, or float32 / float16 (upcast exactly). Any other dtype (int,
    uint, bool, complex, object, str, longdouble) raises DtypeError (a TypeError) naming it: a silent cast
    of int64 to float64 rounds values beyond 2**53, so the caller converts explicitly. exact_integers: an
    integer dtype is taken when every value converts to float64 exactly, else ValueError naming the row.
    A pandas nullable integer (Int64 ...) follows the rule of its numpy dtype (DtypeError without
    exact_integers; with it, its NAs become NaN). Big-endian arrays are converted (a copy)."""
    if _nullable(a) and a.dtype.kind in "iu":
        na = np.asarray(pd.isna(a))
        f = real_floats(a.to_numpy(dtype=a.dtype.numpy_dtype, na_value=0), name, exact_integers)
        if na.any():
            f = f.copy()
            f[na] = np.nan
        return f
    a = plain(a, name)
    if a.dtype in _EXACT_FLOATS:
        return a.astype(np.float64, copy=False)
    if exact_integers and a.dtype.kind in "iu":
        f = a.astype(np.float64)
        top = 2.0 ** (8 * a.dtype.itemsize - (a.dtype.kind == "i"))  # the first value past the dtype's range
        bad = f >= top  # rounded up past the range (2**63 - 1 to 2**63)
        bad[~bad] = f[~bad].astype(a.dtype) != a[~bad]
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            raise ValueError(f"row {r}: {name} {a[r]} is not exactly representable as float64 (integers are "
                             f"exact only up to 2**53 in magnitude): convert explicitly if rounding is meant")
        return f
    raise DtypeError(f"{name} must be real floating (float64; float32 and float16 are upcast exactly), not dtype "
                     f"{a.dtype}: convert it explicitly, e.g. {name}.astype(np.float64) (exact for integers only up "
                     f"to 2**53 in magnitude)")


def column_floats(a, name):
    """A column of prices or values (numpy array, list, pandas Series) as a float64 numpy array, with
    real_floats' rules and integers taken when exact: int64 past 2**53 or uint64 past it, bool, object
    and str raise (DtypeError / ValueError naming the row) rather than being rounded or parsed silently.
    pandas' nullable dtypes (Float64, Int64, ...) give NaN where they hold NA."""
    return real_floats(a, name, exact_integers=True)


def python_ints(a):
    """a as a one-dimensional object array when it is a sequence of Python (or numpy) integers, not bool and
    not a numpy array or Series; else None. numpy would make float64 of [1, 2**63], object of 2**64."""
    if isinstance(a, (np.ndarray, pd.Series)):
        return None
    obj = np.asarray(a, dtype=object)
    ok = obj.ndim == 1 and obj.size and all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
                                            for v in obj)
    return obj if ok else None


def integers(a, name):
    """a as a numpy int64 array: any integer dtype with values in int64's range, or a list of Python ints;
    ValueError otherwise (floats, which would be truncated, strings, bool, objects, uint64 past 2**63 - 1)."""
    obj = python_ints(a)
    if obj is not None:
        big = [v for v in obj if not -2 ** 63 <= v < 2 ** 63]
        if big:
            raise ValueError(f"{name}: {big[0]} is out of range for int64")
        return np.array([int(v) for v in obj], dtype=np.int64)
    a = plain(a, name)
    if a.size == 0 and a.dtype.kind in "iuf":  # [] is float64 to numpy
        return a.astype(np.int64)
    if a.dtype.kind not in "iu":
        raise ValueError(f"{name} must be integers, not dtype {a.dtype}")
    if a.dtype.kind == "u" and a.size and a.max() > np.iinfo(np.int64).max:
        raise ValueError(f"{name}: {a.max()} is out of range for int64")
    return a.astype(np.int64)


def c_int(v, name, ctype="int"):
    """v as a Python int for a C integer argument of type ctype: an integer (int or numpy integer, not
    bool or float) in the type's range, else ValueError naming the argument (never OverflowError)."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, not {v!r} ({type(v).__name__})")
    v = int(v)
    bits = 8 * ffi.sizeof(ctype)
    unsigned = ctype.startswith("u") or ctype.startswith("unsigned") or ctype == "size_t"
    lo, hi = (0, 2 ** bits - 1) if unsigned else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
    if not lo <= v <= hi:
        raise ValueError(f"{name} = {v} is out of range [{lo}, {hi}] ({ctype})")
    return v


def symbol_codes(col, what="symbol"):
    """Codes (int64, per row) and names (UTF-8 bytes, in order of first appearance) of a symbol column.
    Refused with ValueError naming the row (the DataFrame's 0-based position): a missing symbol (NaN,
    None, a categorical's missing value), symbols of mixed types (1 and "1" would merge as text), a NUL
    byte (C strings end there) or text that is not encodable as UTF-8 (a lone surrogate). Symbols that
    are not strings, all of one type (integers, say), are named by str()."""
    try:
        codes, uniq = pd.factorize(col, sort=False, use_na_sentinel=True)
    except UnicodeEncodeError:  # pandas hashes text as UTF-8: a lone surrogate
        for r, v in enumerate(col.to_numpy(dtype=object)):
            try:
                if isinstance(v, str):
                    v.encode("utf-8")
            except UnicodeEncodeError as e:
                raise ValueError(f"row {r}: {what} {v!r} is not valid Unicode text ({e.reason})") from None
        raise
    codes = np.asarray(codes, dtype=np.int64)
    first = lambda k: int(np.flatnonzero(codes == k)[0])  # noqa: E731
    if (codes < 0).any():
        raise ValueError(f"row {first(-1)}: missing {what} (NaN or None)")
    uniq = list(uniq)
    kinds = [str if isinstance(u, str) else type(u) for u in uniq]
    for k, t in enumerate(kinds):
        if t is not kinds[0]:
            raise ValueError(f"row {first(k)}: {what} {uniq[k]!r} of type {t.__name__}, after {what}s of type "
                             f"{kinds[0].__name__} (row {first(0)}): mixed types are refused, since str() could "
                             f"merge them; give the column one type")
    names = []
    for k, u in enumerate(uniq):
        s = u if isinstance(u, str) else str(u)
        if "\0" in s:
            raise ValueError(f"row {first(k)}: {what} {s!r} holds a NUL byte")
        try:
            names.append(s.encode("utf-8"))
        except UnicodeEncodeError as e:
            raise ValueError(f"row {first(k)}: {what} {s!r} is not valid Unicode text ({e.reason})") from None
    return codes, names


# pandas before 3 parses floats exactly only with float_precision="round_trip" (3 does by default and
# deprecates the argument)
_EXACT = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}


def read_csv_exact(path, **kw):
    """pd.read_csv with every float parsed to the nearest float64 (what C's strtod gives)."""
    return pd.read_csv(path, **kw, **_EXACT)


# ---------------------------------------------------------------------------------------------------
# Progress: the library's reports (raid_ctx_set_progress, include/raid/core.h) to a callable or a tqdm bar
# ---------------------------------------------------------------------------------------------------

# tqdm's units are singular ("it"): the library's plural nouns (include/raid/core.h raid_progress_fn)
_UNIT = {"bytes": "B", "fits": "fit", "windows": "window", "backtests": "backtest", "rows": "row"}


class _Progress:
    """The sink of progress=: None or False (nothing); True (a tqdm.auto bar; tqdm must be installed); a
    tqdm-like class (called as cls(total=, unit=, unit_scale=, desc=), e.g. tqdm.tqdm or tqdm.notebook.tqdm:
    its bars are closed at the end); a tqdm-like instance (anything with update(); reset(total=) starts a
    phase, its unit attribute is set: the caller closes it); or a callable f(done, total) (total None when
    not known), called with the library's counts as they come."""

    def __init__(self, progress, desc):
        self.desc = desc
        self.cls = self.bar = self.fn = None
        self.owned = False
        if progress is True:
            try:
                from tqdm.auto import tqdm
            except ImportError:
                raise ImportError("progress=True draws a tqdm bar, and tqdm is not installed: pip install tqdm, or "
                                  "pass a callable(done, total)") from None
            self.cls = tqdm
        elif isinstance(progress, type):
            self.cls = progress
        elif hasattr(progress, "update"):
            self.bar = progress
        elif callable(progress):
            self.fn = progress
        else:
            raise TypeError(f"progress must be True, False, None, a tqdm class or bar, or a callable(done, total), "
                            f"not {progress!r}")
        self.unit = None
        self.last = 0
        self.error = None

    def report(self, done, total, unit):
        total = total or None
        if self.fn is not None:
            self.fn(done, total)
            return
        if unit != self.unit or done < self.last:  # a new phase
            if self.cls is not None:
                if self.bar is not None:
                    self.bar.close()
                self.bar = self.cls(total=total, unit=_UNIT.get(unit, unit), unit_scale=unit == "bytes",
                                    desc=self.desc)
                self.owned = True
            else:
                self.bar.reset(total=total)
                self.bar.unit = unit
            self.unit, self.last = unit, 0
        elif total != getattr(self.bar, "total", total):
            self.bar.total = total
        self.bar.update(done - self.last)
        self.last = done

    def close(self):
        if self.bar is not None:
            if self.owned:
                self.bar.close()
            elif hasattr(self.bar, "refresh"):
                self.bar.refresh()


class reporting:
    """with reporting(ctx, progress, desc): the library's progress reports of the jobs run on ctx inside
    go to progress (_Progress: what it takes); on leaving, the context reports nothing again, a bar made
    here is closed, and an exception the sink raised (KeyboardInterrupt in a tqdm callback, say) is
    raised, after the job: the library calls back from the calling thread only, and a failing callback
    cannot stop its job."""

    def __init__(self, ctx, progress, desc=None):
        self.ctx = ctx
        self.sink = None if progress is None or progress is False else _Progress(progress, desc)
        self.cb = None

    def _on_error(self, exc_type, exc, tb):
        if self.sink.error is None:
            self.sink.error = exc
        return None

    def __enter__(self):
        if self.sink is None:
            return self
        sink = self.sink

        def on_progress(user, done, total, unit):
            sink.report(int(done), int(total), ffi.string(unit).decode())

        self.cb = ffi.callback("raid_progress_fn", on_progress, onerror=self._on_error)
        check(lib.raid_ctx_set_progress(self.ctx, self.cb, ffi.NULL), self.ctx)
        return self

    def __exit__(self, exc_type, exc, tb):
        if self.sink is None:
            return False
        lib.raid_ctx_set_progress(self.ctx, ffi.NULL, ffi.NULL)
        self.cb = None
        self.sink.close()
        if exc_type is None and self.sink.error is not None:
            raise self.sink.error
        return False
