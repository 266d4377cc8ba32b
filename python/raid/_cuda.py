"""CUDA arrays in, CuPy arrays out (docs/python.md "CUDA arrays"): the recognition of device memory
(__cuda_array_interface__ of CuPy, PyTorch, Numba; DLPack's __dlpack__ / __dlpack_device__ of JAX and
others), what such an input must be (float64, or int64 where a function takes keys; one-dimensional,
C-contiguous, no mask), the stream ordering, the CUDA context of its device, the outputs allocated with
CuPy on that device, and the functions of the library that read and write device memory in place.

The stream contract (docs/device.md "The caller's device memory"): the library runs its own work on its
own stream and finishes it before a call returns, so the caller's results are complete when it returns;
the caller's pending work on its array must be complete before the call: here, the stream that the
array's interface names is synchronised (__cuda_array_interface__'s "stream", version 3; DLPack through
cupy.from_dlpack, which orders the producer's stream before CuPy's current stream, synchronised then).
"""
import numpy as np

from ._core import context, ffi, lib

# DLPack device types (dlpack.h): kDLCUDA and kDLCUDAManaged are device memory; kDLCUDAHost (3) is
# page-locked host memory, which the host reads as it is.
_DLPACK_CUDA = (2, 13)

# The C functions whose contract takes device memory (include/raid/*.h, "Device memory" in each one's
# comment) for their large arrays. A device array given to a function not listed is copied to the host
# explicitly (after its stream is synchronised) and its result copied back into a CuPy array: the same bits.
IN_PLACE = frozenset({"raid_sort_f64_seg", "raid_argsort_f64_seg_i64", "raid_argsort_f64_seg_u32", "raid_select_kth",
                      "raid_select_median", "raid_select_quantile", "raid_realized_compute", "raid_groupby_compute",
                      "raid_groupby_compute_f64", "raid_f64_map", "raid_f64_compare", "raid_f64_eval"})


def _cupy():
    try:
        import cupy
    except ImportError:
        raise ImportError("CUDA arrays in and out of raid need CuPy (pip install cupy-cuda12x): the results of a "
                          "device input are CuPy arrays") from None
    return cupy


class CudaArray:
    """A one-dimensional CUDA array: ptr (int, the address), size, dtype, device (the CUDA ordinal, as
    "cuda:N" names it), readonly, owner (the object that keeps the memory alive)."""

    __slots__ = ("ptr", "size", "dtype", "device", "readonly", "owner", "name")

    def __init__(self, ptr, size, dtype, device, readonly, owner, name):
        self.ptr, self.size, self.dtype, self.device = ptr, size, dtype, device
        self.readonly, self.owner, self.name = readonly, owner, name

    def cdata(self, ctype):
        """The address as a cffi pointer of ctype ("double *", "int64_t *")."""
        return ffi.cast(ctype, self.ptr)

    def host(self):
        """A numpy copy of the array (the explicit host copy of a function not in IN_PLACE)."""
        if self.size == 0:
            return np.zeros(0, self.dtype)
        cp = _cupy()
        with cp.cuda.Device(self.device):
            return cp.asnumpy(cp.ndarray(self.size, self.dtype, _memory(cp, self)))


def _memory(cp, a):
    """a's memory as a CuPy memory pointer that keeps a.owner alive (no copy)."""
    mem = cp.cuda.UnownedMemory(a.ptr, a.size * a.dtype.itemsize, a.owner, device_id=a.device)
    return cp.cuda.MemoryPointer(mem, 0)


def device_of(ptr):
    """The CUDA ordinal of device memory at ptr (raid_memory_of), or None when CUDA does not know it as
    device memory."""
    d = ffi.new("int *")
    return d[0] if lib.raid_memory_of(ffi.cast("void *", ptr), d) == lib.RAID_MEMORY_CUDA else None


def _synchronize(stream, device):
    """Wait for the work queued on the producer's stream (CAI v3: 1 the legacy default stream, 2 the
    per-thread default stream, else a cudaStream_t)."""
    cp = _cupy()
    with cp.cuda.Device(device):
        cp.cuda.ExternalStream(stream).synchronize()


def is_device(x):
    """True when x exposes CUDA memory: __cuda_array_interface__, or DLPack of a CUDA device."""
    if hasattr(type(x), "__cuda_array_interface__") or hasattr(x, "__cuda_array_interface__"):
        return True
    if hasattr(x, "__dlpack_device__") and not isinstance(x, np.ndarray):
        try:
            return int(x.__dlpack_device__()[0]) in _DLPACK_CUDA
        except Exception:
            return False
    return False


def _from_interface(x, name, dtypes):
    cai = x.__cuda_array_interface__
    if cai.get("mask") is not None:
        raise ValueError(f"{name} is a masked CUDA array (__cuda_array_interface__ with a mask): a device input "
                         f"has no null values here; give the valid values (x[~mask]) or fill the masked ones")
    dt = np.dtype(cai["typestr"])
    if dt not in dtypes:
        want = " or ".join(str(d) for d in dtypes)
        raise TypeError(f"{name} is a CUDA array of {dt}: a device input must be {want}, read in place (convert it "
                        f"on the device first, x.astype(cupy.{dtypes[0]}))")
    shape = tuple(int(s) for s in cai["shape"])
    if len(shape) != 1:
        raise ValueError(f"{name} must be one-dimensional, not a CUDA array of shape {shape}")
    n = shape[0]
    strides = cai.get("strides")
    if strides is not None and n > 1 and int(strides[0]) != dt.itemsize:
        raise ValueError(f"{name} is a CUDA array that is not C-contiguous (stride {int(strides[0])} bytes, "
                         f"elements of {dt.itemsize}): give a contiguous copy (cupy.ascontiguousarray(x))")
    stream = cai.get("stream")
    if stream is not None and int(stream) == 0:
        raise ValueError(f"{name}: __cuda_array_interface__ gives stream 0, which the protocol (version 3) forbids "
                         f"as ambiguous")
    ptr, readonly = cai["data"]
    ptr = int(ptr)
    device = None
    if n > 0:
        device = device_of(ptr)
        if device is None:
            raise ValueError(f"{name}: its __cuda_array_interface__ gives address {ptr:#x}, which CUDA does not "
                             f"know as device memory")
    else:
        dev = getattr(x, "device", None)
        device = int(getattr(dev, "id", getattr(dev, "index", 0)) or 0)
    if stream is not None:
        _synchronize(int(stream), device)
    return CudaArray(ptr, n, dt, device, bool(readonly), x, name)


def cuda_array(x, name, dtypes=(np.dtype(np.float64),)):
    """x as a CudaArray when it exposes CUDA memory, else None (a host input: numpy and the rest).
    Refused: a dtype not in dtypes (TypeError), not one-dimensional, not C-contiguous, masked, a stream 0
    (ValueError)."""
    if hasattr(x, "__cuda_array_interface__"):
        return _from_interface(x, name, dtypes)
    if hasattr(x, "__dlpack_device__") and not isinstance(x, np.ndarray):
        kind, dev = (int(v) for v in x.__dlpack_device__())
        if kind not in _DLPACK_CUDA:
            return None
        cp = _cupy()
        with cp.cuda.Device(dev):
            a = cp.from_dlpack(x)  # no copy; the producer's stream ordered before CuPy's current one
        c = _from_interface(a, name, dtypes)
        c.owner = (a, x)
        return c
    return None


def small(x, name):
    """A small argument (offsets, keys of a quantile list) given as a CUDA array: a host copy of it (numpy),
    for the package's integer rules; anything else as it is. Small arguments stay host memory in the C API."""
    if not is_device(x):
        return x
    a = cuda_array(x, name, tuple(np.dtype(t) for t in (np.int64, np.int32, np.uint32, np.uint64, np.float64)))
    return a.host() if a.size else np.zeros(0, a.dtype)


def spec(arrays, device):
    """The device string of a context for the device arrays (CudaArray; None entries are host inputs):
    all on one CUDA device, device None or "auto" that device's "cuda:N"; "cuda" or "cuda:N" must name
    it. Host and device inputs together, or a cpu or OpenCL device, are refused (ValueError)."""
    dev = [a for a in arrays if a is not None]
    if not dev:
        return device, None
    host = [a for a in arrays if a is None]
    if host:
        raise ValueError(f"{dev[0].name} is CUDA device memory and another input is host memory: give every array "
                         f"on one side (cupy.asarray or cupy.asnumpy)")
    d = dev[0].device
    for a in dev[1:]:
        if a.device != d:
            raise ValueError(f"{dev[0].name} is on cuda:{d} and {a.name} on cuda:{a.device}: give them on one device")
    if device is None or device == "auto":
        return f"cuda:{d}", d
    if not isinstance(device, str):
        raise TypeError(f"device must be a string, not {type(device).__name__}")
    if device in ("cuda", f"cuda:{d}") and (device != "cuda" or d == 0):
        return device, d
    if device.startswith("cuda"):
        raise ValueError(f"{dev[0].name} is memory of cuda:{d}, and device={device!r} names another device: pass "
                         f"device='cuda:{d}' (or None), or copy the array to that device")
    raise ValueError(f"{dev[0].name} is CUDA device memory (cuda:{d}), which device={device!r} cannot read: pass "
                     f"device='cuda:{d}' (or None), or copy the array to the host (cupy.asnumpy)")


def empty(shape, dtype, device, fill=None):
    """A CuPy array of shape and dtype on CUDA device `device`, for the library to write (an output): filled
    with `fill` unless None, and CuPy's current stream synchronised, so that neither the fill nor earlier
    work on memory that CuPy's pool gives again can run after the library's writes on its own stream."""
    cp = _cupy()
    with cp.cuda.Device(device):
        a = cp.empty(shape, dtype=dtype)
        if fill is not None:
            a.fill(fill)
        cp.cuda.get_current_stream().synchronize()
    return a


def to_device(a, device):
    """A host result (numpy array or scalar) as a CuPy array on `device` (0-d for a scalar, as CuPy's own
    reductions return)."""
    cp = _cupy()
    with cp.cuda.Device(device):
        return cp.asarray(np.asarray(a))


def pointer(a, ctype):
    """The cffi pointer of a CuPy array's memory (an output of IN_PLACE functions)."""
    return ffi.cast(ctype, a.data.ptr)


def cuda_context(arrays, device, precision="df"):
    """(ctx, ordinal) for the device arrays (spec), or (context(device), None) for host inputs."""
    s, d = spec(arrays, device)
    return context(s, precision), d


def bytes_wrapped(ctx):
    """raid_timing.bytes_wrapped of the last call on ctx: the bytes of the caller's device memory used in
    place (the tests' proof that no host copy was made)."""
    t = ffi.new("raid_timing *")
    lib.raid_ctx_last_timing(ctx, t)
    return int(t.bytes_wrapped)
