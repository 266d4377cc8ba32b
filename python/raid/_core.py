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


def show(text):
    """text (str: as UTF-8; or bytes) as every message of the library shows a quoted input (raid_show_text,
    include/raid/core.h): printable ASCII as it is, other bytes as \\xHH, at most 80 bytes then the length."""
    b = text if isinstance(text, bytes) else str(text).encode("utf-8", "surrogateescape")
    out = ffi.new("char[]", 512)  # RAID_SHOW_CAP (include/raid/core.h) is 360
    return ffi.string(lib.raid_show_text(out, b, len(b))).decode("ascii")


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
    """This thread's raid_ctx for device ("auto", "cpu", "opencl", "opencl:P.D", "cuda", "cuda:N"; None: $RAID_DEVICE or
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
