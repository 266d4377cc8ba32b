"""CUDA arrays in, CuPy arrays out (docs/python.md "CUDA arrays").

Without a GPU: objects exposing __cuda_array_interface__ check the parsing and the refusals (dtype, shape,
strides, mask, stream 0, an address CUDA does not know); in a child process over the stand-in driver
(tests/tools/fake_libcuda.c, RAID_FAKE_LIBCUDA) memory that raid_memory_of knows as device memory checks the
choice of context (another device, a cpu or OpenCL device string, host and device inputs together).
With CuPy and a CUDA device (the GPU machine): every function's result on a CuPy array equals its result on
the numpy array bit for bit, and the functions that read device memory in place copy nothing
(raid_timing.bytes_wrapped)."""
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np

try:
    import pytest
except ImportError:  # the GPU machine may lack pytest: enough of it for running this file as a script
    class _Skip(Exception):
        pass

    class _Mark:
        def parametrize(self, *a, **k):
            return lambda f: None

    class pytest:  # noqa: N801
        mark = _Mark()

        @staticmethod
        def skip(msg):
            raise _Skip(msg)

        @staticmethod
        def raises(exc, match=None):
            import contextlib
            import re

            @contextlib.contextmanager
            def cm():
                try:
                    yield
                except exc as e:
                    assert match is None or re.search(match, str(e)), str(e)
                    return
                raise AssertionError(f"{exc.__name__} not raised")
            return cm()
    pytest.skip.Exception = _Skip

import raid
from raid import _cuda

ROOT = pathlib.Path(__file__).resolve().parents[2]


class Fake:
    """An object with __cuda_array_interface__ (version 3) over an address that is not device memory."""

    def __init__(self, **kw):
        d = {"shape": (4,), "typestr": "<f8", "data": (0x1000, False), "version": 3, "strides": None, "stream": None}
        d.update(kw)
        self.__cuda_array_interface__ = d


@pytest.mark.parametrize("kw, exc, words", [
    ({"typestr": "<f4"}, TypeError, "a device input must be float64"),
    ({"typestr": "<i8"}, TypeError, "a device input must be float64"),
    ({"shape": (2, 2)}, ValueError, "must be one-dimensional"),
    ({"shape": ()}, ValueError, "must be one-dimensional"),
    ({"strides": (16,)}, ValueError, "not C-contiguous"),
    ({"mask": object()}, ValueError, "masked CUDA array"),
    ({"stream": 0}, ValueError, "stream 0"),
    ({}, ValueError, "which CUDA does not know as device memory"),
])
def test_refused(kw, exc, words):
    for call in (raid.sort, raid.argsort, raid.median, lambda x: raid.quantile(x, 0.5),
                 lambda x: raid.realized(x, [0, 4]), lambda x: raid.kth(x, 1), raid.sqrt,
                 lambda x: raid.add(x, 1.0), lambda x: raid.add(2.0, x), raid.isnan, lambda x: raid.less(x, 0.0),
                 lambda x: raid.eval("a * 2 + b", a=x, b=1.0)):
        with pytest.raises(exc, match=words):
            call(Fake(**kw))
    with pytest.raises(exc, match=words):
        raid.groupby(np.zeros(4, np.int64) if kw else Fake(typestr="<i8"), Fake(**kw))


def test_keys_may_be_int64():
    # int64 is a key type of the group-by: past the dtype rule, refused as unknown memory only
    with pytest.raises(ValueError, match="does not know as device memory"):
        raid.groupby(Fake(typestr="<i8"), None, "count")
    with pytest.raises(TypeError, match="float64"):
        raid.groupby(Fake(typestr="<i4"), None, "count")


def test_contiguous_strides_and_one_element():
    # strides equal to the element size are contiguous; one element has any stride (CuPy gives None)
    for kw in ({"strides": (8,)}, {"shape": (1,), "strides": (64,)}):
        with pytest.raises(ValueError, match="does not know as device memory"):
            raid.sort(Fake(**kw))


def test_host_inputs_unchanged():
    x = np.array([3.0, -0.0, np.nan, 0.0, 1.0])
    assert not _cuda.is_device(x)
    out = raid.sort(x, device="cpu")
    assert isinstance(out, np.ndarray)
    np.testing.assert_array_equal(out.view(np.int64), np.sort(x, kind="stable").view(np.int64))

    class HostDlpack:  # DLPack of host memory (kDLCPU): not a device input
        def __dlpack_device__(self):
            return (1, 0)
    assert not _cuda.is_device(HostDlpack())


def test_spec():
    a0 = _cuda.CudaArray(1, 1, np.dtype(np.float64), 0, False, None, "x")
    a1 = _cuda.CudaArray(1, 1, np.dtype(np.float64), 1, False, None, "y")
    assert _cuda.spec([a0], None) == ("cuda:0", 0)
    assert _cuda.spec([a0], "auto") == ("cuda:0", 0)
    assert _cuda.spec([a0], "cuda") == ("cuda", 0)
    assert _cuda.spec([a1], "cuda:1") == ("cuda:1", 1)
    assert _cuda.spec([None, None], "cpu") == ("cpu", None)
    with pytest.raises(ValueError, match=r"x is memory of cuda:0, and device='cuda:1' names another device"):
        _cuda.spec([a0], "cuda:1")
    with pytest.raises(ValueError, match="names another device"):
        _cuda.spec([a1], "cuda")
    with pytest.raises(ValueError, match=r"CUDA device memory \(cuda:0\), which device='cpu' cannot read"):
        _cuda.spec([a0], "cpu")
    with pytest.raises(ValueError, match="which device='opencl' cannot read"):
        _cuda.spec([a0], "opencl")
    with pytest.raises(ValueError, match="x is on cuda:0 and y on cuda:1"):
        _cuda.spec([a0, a1], None)
    with pytest.raises(ValueError, match="another input is host memory"):
        _cuda.spec([a0, None], None)


# ---- over the stand-in driver, in a child process (RAID_CUDA_LIB must not reach this process's contexts) ----

def _fake_lib():
    p = os.environ.get("RAID_FAKE_LIBCUDA") or str(ROOT / "build" / "tests" / "libfake_libcuda.so")
    if not os.path.exists(p):
        pytest.skip("no stand-in libcuda (build the fake_libcuda target; ctest sets RAID_FAKE_LIBCUDA)")
    return p


CHILD = r"""
import ctypes, os, sys
import numpy as np
import pytest
import raid

lib = ctypes.CDLL(os.environ["RAID_CUDA_LIB"])
lib.fake_cuda_alloc.restype = ctypes.c_void_p
lib.fake_cuda_alloc.argtypes = [ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int]

class Dev:
    def __init__(self, ordinal, n=4, typestr="<f8"):
        p = lib.fake_cuda_alloc(8 * n, ordinal, 0, 0)
        self.__cuda_array_interface__ = {"shape": (n,), "typestr": typestr, "data": (p, False), "version": 3,
                                         "strides": None, "stream": None}

d0, d1 = Dev(0), Dev(1)
dev = raid.ffi.new("int *")
assert raid.lib.raid_memory_of(raid.ffi.cast("void *", d1.__cuda_array_interface__["data"][0]), dev) == \
    raid.lib.RAID_MEMORY_CUDA and dev[0] == 1
assert raid.lib.raid_memory_of(raid.ffi.new("double[4]"), dev) == raid.lib.RAID_MEMORY_HOST and dev[0] == -1
for call in (raid.sort, raid.argsort, raid.median, lambda x, device: raid.quantile(x, [0.1, 0.9], device=device),
             lambda x, device: raid.realized(x, [0, 4], device=device), lambda x, device: raid.kth(x, 0, device=device),
             lambda x, device: raid.groupby(x, x, device=device), lambda x, device: raid.garch(x, device=device),
             lambda x, device: raid.add(x, x, device=device), lambda x, device: raid.sqrt(x, device=device),
             lambda x, device: raid.equal(x, 1.0, device=device), lambda x, device: raid.eval("a / b", a=x, b=x, device=device)):
    with pytest.raises(ValueError, match=r"(x|a|returns|keys) is CUDA device memory \(cuda:0\), which device='cpu' "
                                         r"cannot read"):
        call(d0, device="cpu")
    with pytest.raises(ValueError, match=r"is memory of cuda:1, and device='cuda:0' names another device"):
        call(d1, device="cuda:0")
    with pytest.raises(raid.RaidError, match="no CUDA device 1"):  # the context of the array's own device
        call(d1, device=None)
with pytest.raises(ValueError, match="another input is host memory"):
    raid.groupby(d0, np.zeros(4), device=None)
for call in (lambda: raid.add(d0, np.zeros(4)), lambda: raid.less(np.zeros(4), d0),
             lambda: raid.eval("a + b", a=d0, b=np.zeros(4))):
    with pytest.raises(ValueError, match="another input is host memory"):
        call()
with pytest.raises(ValueError, match="x is on cuda:0 and y on cuda:1"):
    raid.multiply(d0, d1)
with pytest.raises(ValueError, match="y has 5 elements and x 4"):
    raid.add(d0, Dev(0, n=5))
with pytest.raises(ValueError, match="keys is on cuda:0 and values on cuda:1"):
    raid.groupby(Dev(0, typestr="<i8"), d1)
try:
    import cupy  # noqa: F401
except ImportError:  # the outputs of a device input are CuPy arrays: each in-place call gets as far as its output
    for call in (raid.sort, raid.median, lambda x: raid.kth(x, 1), lambda x: raid.quantile(x, [0.5]),
                 lambda x: raid.add(x, x), lambda x: raid.eval("a * 2", a=x)):
        with pytest.raises(ImportError, match="need CuPy"):
            call(d0)
print("ok")
"""


def test_over_the_stand_in_driver():
    env = dict(os.environ, RAID_CUDA_LIB=_fake_lib())
    r = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True)
    if r.returncode != 0 and "CUDA is not available" in r.stderr:
        pytest.skip("the stand-in driver needs NVRTC: " + r.stderr.strip().splitlines()[-1])
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().endswith("ok")


# ---- on a GPU, with CuPy ----

def _gpu():
    try:
        import cupy
    except ImportError:
        pytest.skip("CuPy is not installed")
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("no CUDA device")
    except Exception as e:  # noqa: BLE001 (no driver)
        pytest.skip(f"no CUDA: {e}")
    why = raid.backend_absent("cuda")
    if why:
        pytest.skip(f"RAID's CUDA backend cannot run: {why}")
    return cupy


def _bits(a):
    a = np.asarray(a)
    return a.view(np.int64) if a.dtype == np.float64 else a


def _same(dev, host):
    cp = _gpu()
    assert isinstance(dev, cp.ndarray), type(dev)
    h = cp.asnumpy(dev)
    assert h.shape == np.shape(host) and h.dtype == np.asarray(host).dtype, (h.shape, np.shape(host), h.dtype)
    np.testing.assert_array_equal(_bits(h), _bits(host))


def _data(n=200_003, seed=7):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n) * 1e-3
    x[::997] = -0.0
    x[5::1009] = 0.0
    x[::4999] = np.nan
    return x


def _no_copy(fn, ctx_spec, nbytes):
    """A function of _cuda.IN_PLACE read its device input in place: the context's last call wrapped at least
    nbytes of the caller's memory. Others copy explicitly (docs/python.md)."""
    if fn in _cuda.IN_PLACE:
        assert _cuda.bytes_wrapped(raid._core.context(ctx_spec)) >= nbytes


def test_gpu_sort_argsort():
    cp = _gpu()
    x = _data()
    xd = cp.asarray(x)
    for desc in (False, True):
        got = raid.sort(xd, descending=desc)
        _no_copy("raid_sort_f64_seg", "cuda:0", x.nbytes)  # of the last call on the context: this one
        _same(got, raid.sort(x, "cuda:0", descending=desc))
        for dt in (np.int64, np.uint32):
            _same(raid.argsort(xd, index_dtype=dt, descending=desc),
                  raid.argsort(x, "cuda:0", index_dtype=dt, descending=desc))
    off = np.array([0, 10, 10, 5000, x.size], np.int64)
    _same(raid.sort(xd, offsets=off), raid.sort(x, "cuda:0", offsets=off))
    _same(raid.sort(xd, device="cuda:0"), np.sort(x, kind="stable"))  # numpy's own answer
    _same(raid.argsort(xd), np.argsort(x, kind="stable"))


def test_gpu_select():
    cp = _gpu()
    x = _data()
    x = x[~np.isnan(x)]
    xd = cp.asarray(x)
    _same(raid.median(xd), np.float64(raid.median(x, device="cuda:0")))
    _same(raid.median(xd), np.median(x))
    _no_copy("raid_select_median", "cuda:0", x.nbytes)  # np.median made no call: the last was raid.median(xd)
    q = [0.0, 0.01, 0.5, 0.99, 1.0]
    _same(raid.quantile(xd, q), raid.quantile(x, q, device="cuda:0"))
    _same(raid.quantile(xd, 0.25), np.float64(raid.quantile(x, 0.25, device="cuda:0")))
    _same(raid.kth(xd, 17), np.float64(raid.kth(x, 17, device="cuda:0")))
    off = np.array([0, 3, 1000, x.size], np.int64)
    _same(raid.median(xd, offsets=off), raid.median(x, offsets=off, device="cuda:0"))
    _same(raid.quantile(xd, q, offsets=off), raid.quantile(x, q, offsets=off, device="cuda:0"))


def test_gpu_realized():
    cp = _gpu()
    rng = np.random.default_rng(3)
    r = rng.standard_normal(1_000_000) * 1e-3
    off = np.array([0, 1, 2, 3, 390, 100_000, 500_000, r.size], np.int64)
    dev = raid.realized(cp.asarray(r), off)
    _no_copy("raid_realized_compute", "cuda:0", r.nbytes)
    host = raid.realized(r, off, device="cuda:0")
    assert list(dev) == list(host.columns)
    for c in host.columns:
        _same(dev[c], host[c].to_numpy())


def test_gpu_f64():
    # the element-wise binary64 functions on CuPy arrays: read and written in place (no host copy), CuPy
    # results bit for bit those of the same call on the host arrays, scalars repeated on the device, out=
    cp = _gpu()
    x, y = _data(seed=11), _data(seed=12)
    xd, yd = cp.asarray(x), cp.asarray(y)
    for fn in (raid.add, raid.subtract, raid.multiply, raid.divide, raid.minimum, raid.maximum, raid.copysign):
        got = fn(xd, yd)
        _no_copy("raid_f64_map", "cuda:0", 2 * x.nbytes)  # of the last call on the context: this one
        _same(got, fn(x, y, device="cuda:0"))
        _same(fn(xd, 0.5), fn(x, 0.5, device="cpu"))
        _same(fn(-3.0, yd), fn(-3.0, y, device="cpu"))
    for fn in (raid.sqrt, raid.negative, raid.absolute, raid.trunc, raid.floor, raid.ceil, raid.rint):
        _same(fn(xd), fn(x, device="cpu"))
    for fn in (raid.equal, raid.less, raid.greater_equal):
        _same(fn(xd, yd), fn(x, y, device="cpu"))
    for fn in (raid.isnan, raid.isfinite):
        _same(fn(xd), fn(x, device="cpu"))
    _same(raid.eval("(a - b) / sqrt(abs(c)) + 1.5", a=xd, b=yd, c=xd),
          raid.eval("(a - b) / sqrt(abs(c)) + 1.5", a=x, b=y, c=x, device="cpu"))
    _no_copy("raid_f64_eval", "cuda:0", 3 * x.nbytes)
    out = cp.empty_like(xd)
    assert raid.add(xd, yd, out=out) is out
    _same(out, x + y)
    assert raid.multiply(xd, yd, out=xd) is xd  # an operand as out
    _same(xd, x * y)
    with pytest.raises(ValueError, match="out must be a writeable float64 CUDA array"):
        raid.add(yd, yd, out=np.empty(x.size))


def test_gpu_realized_noise():
    """measures with the noise-robust columns on a CuPy array: from a host copy (the host chooses their
    bandwidths), the same values as from the numpy array on the same device."""
    cp = _gpu()
    rng = np.random.default_rng(4)
    r = rng.standard_normal(200_000) * 1e-3
    off = np.array([0, 1, 2, 3, 390, 100_000, r.size], np.int64)
    m = ["rv", "rk", "rk_h", "tsrv", "tsrv_k", "prv", "minrv"]
    dev = raid.realized(cp.asarray(r), off, measures=m)
    host = raid.realized(r, off, device="cuda:0", measures=m)
    assert list(dev) == ["n", *m] == list(host.columns)
    for c in host.columns:
        _same(dev[c], host[c].to_numpy())


def test_gpu_groupby():
    cp = _gpu()
    rng = np.random.default_rng(5)
    k = rng.integers(-50, 50, 300_000)
    v = rng.standard_normal(k.size)
    aggs = ["count", "sum", "mean", "min", "max", "first", "last"]
    dev = raid.groupby(cp.asarray(k), cp.asarray(v), aggs)
    _no_copy("raid_groupby_compute", "cuda:0", k.nbytes + v.nbytes)
    host = raid.groupby(k, v, aggs, device="cuda:0")
    _same(dev["key"], host.index.to_numpy())
    for a in aggs:
        _same(dev[a], host[a].to_numpy())
    fk = k.astype(np.float64)
    dev = raid.groupby(cp.asarray(fk), cp.asarray(v), ["sum"])
    host = raid.groupby(fk, v, ["sum"], device="cuda:0")
    _same(dev["key"], host.index.to_numpy())
    _same(dev["sum"], host["sum"].to_numpy())


def test_gpu_garch():
    cp = _gpu()
    r = np.random.default_rng(11).standard_normal(2000) * 0.01
    a = raid.garch(cp.asarray(r))
    b = raid.garch(r, device="cuda:0")
    for c in ("omega", "alpha", "beta", "loglik"):
        np.testing.assert_array_equal(_bits(a[c].to_numpy()), _bits(b[c].to_numpy()))


def test_gpu_stream_order():
    """An array written on a CuPy stream that has not finished when the call starts: the interface's stream is
    synchronised first, so the library reads the final values."""
    cp = _gpu()
    x = _data(4_000_000)
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        xd = cp.asarray(x)
        y = xd
        for _ in range(20):  # queue work so that y is not ready when raid.sort starts
            y = y * 1.0
        out = raid.sort(y)
    _same(out, raid.sort(x, "cuda:0"))


def test_gpu_refusals():
    cp = _gpu()
    x = cp.arange(10, dtype=cp.float64)
    with pytest.raises(ValueError, match="not C-contiguous"):
        raid.sort(x[::2])
    with pytest.raises(TypeError, match="float64"):
        raid.sort(x.astype(cp.float32))
    with pytest.raises(ValueError, match="which device='cpu' cannot read"):
        raid.sort(x, device="cpu")
    if cp.cuda.runtime.getDeviceCount() > 1:
        with cp.cuda.Device(1):
            x1 = cp.arange(10, dtype=cp.float64)
        with pytest.raises(ValueError, match="names another device"):
            raid.sort(x1, device="cuda:0")


def test_gpu_dlpack():
    cp = _gpu()
    x = _data(1000)

    class Producer:  # a DLPack producer that is not CuPy (JAX's arrays look like this)
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, **kw):
            return self.a.__dlpack__(**kw)

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()
    _same(raid.sort(Producer(cp.asarray(x))), raid.sort(x, "cuda:0"))


if __name__ == "__main__":  # where pytest is absent: python3 tests/python/test_cuda_arrays.py
    failed = 0
    for name, fn in sorted(globals().items()):
        if name.startswith("test_gpu_"):
            try:
                fn()
                print("PASS", name)
            except pytest.skip.Exception as e:
                print("SKIP", name, e)
            except Exception as e:  # noqa: BLE001
                failed += 1
                print("FAIL", name, repr(e))
    sys.exit(1 if failed else 0)
