"""Order statistics of float64 arrays without sorting through the library's selection API
(include/raid/select.h; docs/column.md "Selection"): kth, median, quantile, min, max, topk. numpy's
semantics bit for bit (np.partition, np.median, np.quantile(method='linear'), np.min/np.max,
np.nanmin/np.nanmax, the ends of np.sort(kind='stable')), on the cpu path or a device.

Every function takes a one-dimensional x by the package's values rule (docs/python.md "Inputs": float64,
float32 and float16 widened exactly, integers when each is exactly a float64, else ValueError naming the
row: np.median of int64 past 2**53 is not that of its float64 cast; bool, object, str a TypeError; a 0-d
array or scalar a ValueError, as for raid.sort) and returns a numpy float64 scalar. The nulls of the input
(masked entries of a numpy masked array, pandas NA, pyarrow nulls) are skipped, as pandas' skipna and
pyarrow.compute's skip_nulls skip them (NaN stays a value, with numpy's rules). With offsets (nseg + 1
non-decreasing integers, the segments x[offsets[s]:offsets[s+1]]; ValueError for floats) it returns one
result per segment (an array). device: as
raid.context ("cpu", "opencl", "opencl:P.D", "cuda", "cuda:N"; None: $RAID_DEVICE, else auto).

x may also be a pyarrow Array or ChunkedArray of float64 (read in place through the Arrow C data
interface; several chunks are combined first, a copy): its nulls are skipped (pyarrow.compute's
skip_nulls, pandas' skipna; NaNs stay values with numpy's rules), scalars come back as numpy float64,
arrays (quantile of several q, topk) as pyarrow arrays; offsets are for numpy input."""
import builtins

import numpy as np

from . import _arrow, _cuda
from ._convert import as_c, c_int, flag, floats, integers, is_arrow
from ._core import check, context, ffi, lib


class _Prepared:
    """x (the values rule) and its segments for raid_select_*: x, px, off, poff, nseg, single; the input's
    nulls (masked entries, pandas NA, pyarrow nulls) skipped, as the Arrow path skips them: x holds the
    valid values, off the segments in it, keep (None without nulls) the positions in the input of x's
    entries and start the input's offsets, for indices into the input."""

    def __init__(self, x, offsets):
        x, nulls = floats(x, "x", nulls="mask")
        self.single = offsets is None
        off = np.array([0, x.size], dtype=np.int64) if self.single else integers(offsets, "offsets")
        if off.size < 1:
            raise ValueError("offsets must be a one-dimensional array of at least one entry")
        if off.size > 1 and (off[0] < 0 or off[-1] > x.size):
            raise ValueError(f"offsets must lie in [0, {x.size}]")
        self.keep, self.start = None, off
        if nulls is not None:
            self.keep = np.flatnonzero(~nulls)
            below = np.concatenate([[0], np.cumsum(~nulls)])  # valid values before each position
            x, off = x[self.keep], below[np.clip(off, 0, nulls.size)]
        self.x, self.px = as_c(x, np.float64, "x")
        self.off, self.poff = as_c(off, np.int64, "offsets")
        self.nseg = self.off.size - 1

    def __iter__(self):
        return iter((self.x, self.px, self.off, self.poff, self.nseg, self.single))

    def input_index(self, idx):
        """Indices relative to each segment of x (nseg, k) as indices relative to the input's segments."""
        if self.keep is None or not idx.size:
            return idx
        return self.keep[self.off[:-1, None] + idx] - self.start[:-1, None]


def _prepare(x, offsets):
    return tuple(_Prepared(x, offsets))


def _device(x, offsets, device, cname, host, run):
    """A selection of a CUDA array x (docs/python.md "CUDA arrays"): CuPy results on x's device (a 0-d array
    for one segment's scalar, as CuPy's reductions). cname: the C function; host(xh, spec): the host path
    on a numpy copy (functions not in _cuda.IN_PLACE); run(ctx, d, ca, poff, nseg): the in-place call."""
    ca = _cuda.cuda_array(x, "x")
    ctx, d = _cuda.cuda_context([ca], device)
    if cname not in _cuda.IN_PLACE:
        return _cuda.to_device(host(ca.host(), f"cuda:{d}"), d)
    single = offsets is None
    off = np.array([0, ca.size], dtype=np.int64) if single else integers(_cuda.small(offsets, "offsets"), "offsets")
    if off.size < 1:
        raise ValueError("offsets must be a one-dimensional array of at least one entry")
    if off.size > 1 and (off[0] < 0 or off[-1] > ca.size):
        raise ValueError(f"offsets must lie in [0, {ca.size}]")
    off, poff = as_c(off, np.int64, "offsets")
    res = run(ctx, d, ca, poff, off.size - 1)
    return res[0] if single else res


def _out(n):
    out = np.empty(n if n > 0 else 1, dtype=np.float64)  # (this module's max is raid.max)
    return out, ffi.from_buffer("double[]", out)


def kth(x, k, *, offsets=None, device=None):
    """The k-th smallest value (0-based; negative k counts from the end): np.partition(x, k)[k]. NaNs rank
    last. Equal values (-0.0 and 0.0, NaN payloads): the first in x comes back. RaidError when k is out of
    bounds (numpy raises too)."""
    if is_arrow(x):
        return _arrow.kth(x, k, device, offsets=offsets)
    if _cuda.is_device(x):
        kk = c_int(k, "k", "int64_t")

        def run(ctx, d, ca, poff, nseg):
            out = _cuda.empty(builtins.max(nseg, 1), np.float64, d)
            check(lib.raid_select_kth(ctx, ca.cdata("double *"), poff, nseg, kk, _cuda.pointer(out, "double *")), ctx)
            return out[:nseg]
        return _device(x, offsets, device, "raid_select_kth",
                       lambda h, s: kth(h, k, offsets=_cuda.small(offsets, "offsets"), device=s), run)
    x, px, off, poff, nseg, single = _prepare(x, offsets)
    out, pout = _out(nseg)
    ctx = context(device)
    check(lib.raid_select_kth(ctx, px, poff, nseg, c_int(k, "k", "int64_t"), pout), ctx)
    return out[0] if single else out[:nseg]


def median(x, *, offsets=None, device=None):
    """np.median(x): the middle value, or the mean of the two middle ones as numpy computes it; NaN when x
    holds a NaN or is empty."""
    if is_arrow(x):
        return _arrow.median(x, device, offsets=offsets)
    if _cuda.is_device(x):
        def run(ctx, d, ca, poff, nseg):
            out = _cuda.empty(builtins.max(nseg, 1), np.float64, d)
            check(lib.raid_select_median(ctx, ca.cdata("double *"), poff, nseg, _cuda.pointer(out, "double *")), ctx)
            return out[:nseg]
        return _device(x, offsets, device, "raid_select_median",
                       lambda h, s: median(h, offsets=_cuda.small(offsets, "offsets"), device=s), run)
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
    qa = np.asarray(_cuda.small(q, "q"))  # q stays host memory (a CUDA q is copied: it is small)
    if qa.dtype.kind not in "fiu":  # np.asarray("0.5", float) would parse the text; numpy refuses it too
        raise TypeError(f"q must be a number or an array of numbers, not {type(q).__name__} of dtype {qa.dtype}")
    integer_q = qa.dtype.kind in "iu"
    qa = qa.astype(np.float64)
    if qa.ndim > 1:
        raise ValueError(f"q must be a scalar or one-dimensional, not of shape {qa.shape}")
    qv, pq = as_c(qa.reshape(-1), np.float64, "q")
    if _cuda.is_device(x):
        def run(ctx, d, ca, poff, nseg):
            out = _cuda.empty(builtins.max(nseg * qv.size, 1), np.float64, d)
            check(lib.raid_select_quantile(ctx, ca.cdata("double *"), poff, nseg, pq, qv.size,
                                           _cuda.pointer(out, "double *")), ctx)
            res = out[:nseg * qv.size].reshape(nseg, qv.size)
            return res[:, 0] if qa.ndim == 0 else res
        # an integer q takes numpy's element (the stable sort's end, raid.topk): the host path
        return _device(x, offsets, device, "raid_select_quantile" if not integer_q else "",
                       lambda h, s: quantile(h, q, offsets=_cuda.small(offsets, "offsets"), device=s), run)
    arrow = is_arrow(x)
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
    if is_arrow(x):
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
    return _minmax(x, 0, flag(skipna, "skipna"), offsets, device)


def max(x, *, skipna=False, offsets=None, device=None):  # noqa: A001
    """np.max(x), or with skipna np.nanmax(x); as raid.min."""
    return _minmax(x, 1, flag(skipna, "skipna"), offsets, device)


def topk(x, k, *, largest=True, return_index=False, offsets=None, device=None):
    """The k largest values in decreasing order, np.sort(x, kind='stable')[-k:][::-1] (largest), or the k
    smallest in increasing order, np.sort(x, kind='stable')[:k], bit for bit; with return_index also their
    indices, np.argsort(x, kind='stable')[-k:][::-1] / [:k] (relative to each segment's start). NaNs are
    the largest values. With offsets: arrays (nseg, k). RaidError when k exceeds a segment's length,
    ValueError when k < 0."""
    k = c_int(k, "k", "int64_t")
    if k < 0:
        raise ValueError(f"k must be >= 0, not {k}")
    largest, return_index = flag(largest, "largest"), flag(return_index, "return_index")
    if is_arrow(x):
        return _arrow.topk(x, k, largest, return_index, device, offsets=offsets)
    p = _Prepared(x, offsets)
    x, px, off, poff, nseg, single = p
    vals = np.empty((nseg, k), dtype=np.float64)
    idx = np.empty((nseg, k), dtype=np.int64)
    pv = ffi.from_buffer("double[]", vals) if vals.size else ffi.NULL
    pi = ffi.from_buffer("int64_t[]", idx) if idx.size else ffi.NULL
    ctx = context(device)
    check(lib.raid_select_topk(ctx, px, poff, nseg, k, 1 if largest else 0, pv, pi), ctx)
    idx = p.input_index(idx)
    if single:
        vals, idx = vals[0] if nseg else vals.reshape(-1), idx[0] if nseg else idx.reshape(-1)
    return (vals, idx) if return_index else vals
