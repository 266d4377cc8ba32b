"""Order statistics of float64 arrays without sorting through the library's selection API
(include/raid/select.h; docs/column.md "Selection"): kth, median, quantile, min, max, topk. numpy's
semantics bit for bit (np.partition, np.median, np.quantile(method='linear'), np.min/np.max,
np.nanmin/np.nanmax, the ends of np.sort(kind='stable')), on the cpu path or a device.

Every function takes a one-dimensional array x of float64 (float32 and float16 are upcast exactly; a
pandas Series's values too; a big-endian array is converted to native byte order, a copy; a 0-d array or
scalar raises ValueError, as for raid.sort) and returns a numpy float64 scalar; any other dtype of x (int, uint, bool,
object, str) raises TypeError: convert explicitly, e.g. x.astype(np.float64), exact for integers only up
to 2**53 in magnitude (np.median of int64 is not that of its float64 cast). With offsets (nseg + 1
non-decreasing integers, the segments x[offsets[s]:offsets[s+1]]; ValueError for floats) it returns one
result per segment (an array). device: as
raid.context ("cpu", "opencl", "opencl:P.D"; None: $RAID_DEVICE, else auto).

x may also be a pyarrow Array or ChunkedArray of float64 (read in place through the Arrow C data
interface; several chunks are combined first, a copy): its nulls are skipped (pyarrow.compute's
skip_nulls, pandas' skipna; NaNs stay values with numpy's rules), scalars come back as numpy float64,
arrays (quantile of several q, topk) as pyarrow arrays; offsets are for numpy input."""
import numpy as np

from . import _arrow
from ._core import _nullable, as_c, c_int, check, context, ffi, integers, lib, real_floats


def _prepare(x, offsets):
    x = real_floats(x.to_numpy() if hasattr(x, "to_numpy") and not _nullable(x) else x, "x")
    if x.ndim != 1:
        raise ValueError(f"x must be one-dimensional, not of shape {x.shape}")
    single = offsets is None
    off = np.array([0, x.size], dtype=np.int64) if single else integers(offsets, "offsets")
    if off.ndim != 1 or off.size < 1:
        raise ValueError("offsets must be a one-dimensional array of at least one entry")
    if off.size > 1 and (off[0] < 0 or off[-1] > x.size):
        raise ValueError(f"offsets must lie in [0, {x.size}]")
    x, px = as_c(x, np.float64, "x")
    off, poff = as_c(off, np.int64, "offsets")
    return x, px, off, poff, off.size - 1, single


def _out(n):
    out = np.empty(n if n > 0 else 1, dtype=np.float64)  # (this module's max is raid.max)
    return out, ffi.from_buffer("double[]", out)


def kth(x, k, *, offsets=None, device=None):
    """The k-th smallest value (0-based; negative k counts from the end): np.partition(x, k)[k]. NaNs rank
    last. Equal values (-0.0 and 0.0, NaN payloads): the first in x comes back. RaidError when k is out of
    bounds (numpy raises too)."""
    if _arrow.is_arrow(x):
        return _arrow.kth(x, k, device, offsets=offsets)
    x, px, off, poff, nseg, single = _prepare(x, offsets)
    out, pout = _out(nseg)
    ctx = context(device)
    check(lib.raid_select_kth(ctx, px, poff, nseg, c_int(k, "k", "int64_t"), pout), ctx)
    return out[0] if single else out[:nseg]


def median(x, *, offsets=None, device=None):
    """np.median(x): the middle value, or the mean of the two middle ones as numpy computes it; NaN when x
    holds a NaN or is empty."""
    if _arrow.is_arrow(x):
        return _arrow.median(x, device, offsets=offsets)
    x, px, off, poff, nseg, single = _prepare(x, offsets)
    out, pout = _out(nseg)
    ctx = context(device)
    check(lib.raid_select_median(ctx, px, poff, nseg, pout), ctx)
    return out[0] if single else out[:nseg]


def quantile(x, q, *, offsets=None, device=None):
    """np.quantile(x, q) with method='linear' and float64 q (a scalar or a one-dimensional array of values
    in [0, 1]; a string q raises TypeError; an integer q, 0 or 1, is numpy's element without interpolation:
    the stable sort's first or last element, so np.quantile([inf], 0) is inf and of [-0.0, -0.0] at 1 -0.0); NaN when x holds a NaN. Returns a scalar for a scalar q, else an array of q's length; with
    offsets an array (nseg,) or (nseg, len(q))."""
    qa = np.asarray(q)
    if qa.dtype.kind not in "fiu":  # np.asarray("0.5", float) would parse the text; numpy refuses it too
        raise TypeError(f"q must be a number or an array of numbers, not {type(q).__name__} of dtype {qa.dtype}")
    integer_q = qa.dtype.kind in "iu"
    qa = qa.astype(np.float64)
    if qa.ndim > 1:
        raise ValueError(f"q must be a scalar or one-dimensional, not of shape {qa.shape}")
    qv, pq = as_c(qa.reshape(-1), np.float64, "q")
    arrow = _arrow.is_arrow(x)
    if arrow:  # the valid values (nulls skipped) of one segment
        res, off, nseg, single = _arrow.quantile(x, qv, device, offsets)[None, :], None, 1, True
    else:
        x, px, off, poff, nseg, single = _prepare(x, offsets)
        out, pout = _out(nseg * qv.size)
        ctx = context(device)
        check(lib.raid_select_quantile(ctx, px, poff, nseg, pq, qv.size, pout), ctx)
        res = out[:nseg * qv.size].reshape(nseg, qv.size)
    if integer_q and nseg:  # numpy takes the element for an integer q (0 or 1), no _lerp: the stable sort's end
        both = [np.asarray(topk(x, 1, largest=big, offsets=off, device=device)).reshape(nseg) for big in (False, True)]
        lo = np.where(np.isnan(both[1]), both[1], both[0])  # a NaN anywhere: NaN (numpy's last element)
        res = np.where(qv == 0, lo[:, None], both[1][:, None])
    if qa.ndim == 0:
        res = res[:, 0]
    res = res[0] if single else res
    return _arrow.f64_array(np.ascontiguousarray(res)) if arrow and qa.ndim else res


def _minmax(x, which, skipna, offsets, device):
    if _arrow.is_arrow(x):
        return _arrow.minmax(x, which, skipna, device, offsets=offsets)
    x, px, off, poff, nseg, single = _prepare(x, offsets)
    out, pout = _out(nseg)
    ptrs = [ffi.NULL] * 4
    ptrs[which + (2 if skipna else 0)] = pout
    ctx = context(device)
    check(lib.raid_select_minmax(ctx, px, poff, nseg, *ptrs), ctx)
    return out[0] if single else out[:nseg]


def min(x, *, skipna=False, offsets=None, device=None):  # noqa: A001 (raid.min, as numpy's np.min)
    """np.min(x) (any NaN gives NaN), or with skipna np.nanmin(x) (NaN only when every value is NaN).
    -0.0 and 0.0 are equal: the first in x comes back. RaidError for an empty x (numpy raises too)."""
    return _minmax(x, 0, skipna, offsets, device)


def max(x, *, skipna=False, offsets=None, device=None):  # noqa: A001
    """np.max(x), or with skipna np.nanmax(x); as raid.min."""
    return _minmax(x, 1, skipna, offsets, device)


def topk(x, k, *, largest=True, return_index=False, offsets=None, device=None):
    """The k largest values in decreasing order, np.sort(x, kind='stable')[-k:][::-1] (largest), or the k
    smallest in increasing order, np.sort(x, kind='stable')[:k], bit for bit; with return_index also their
    indices, np.argsort(x, kind='stable')[-k:][::-1] / [:k] (relative to each segment's start). NaNs are
    the largest values. With offsets: arrays (nseg, k). RaidError when k exceeds a segment's length,
    ValueError when k < 0."""
    k = c_int(k, "k", "int64_t")
    if k < 0:
        raise ValueError(f"k must be >= 0, not {k}")
    if _arrow.is_arrow(x):
        return _arrow.topk(x, k, largest, return_index, device, offsets=offsets)
    x, px, off, poff, nseg, single = _prepare(x, offsets)
    vals = np.empty((nseg, k), dtype=np.float64)
    idx = np.empty((nseg, k), dtype=np.int64)
    pv = ffi.from_buffer("double[]", vals) if vals.size else ffi.NULL
    pi = ffi.from_buffer("int64_t[]", idx) if idx.size else ffi.NULL
    ctx = context(device)
    check(lib.raid_select_topk(ctx, px, poff, nseg, k, 1 if largest else 0, pv, pi), ctx)
    if single:
        vals, idx = vals[0] if nseg else vals.reshape(-1), idx[0] if nseg else idx.reshape(-1)
    return (vals, idx) if return_index else vals
