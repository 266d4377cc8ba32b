"""pyarrow arrays through the Arrow C data interface (include/raid/arrow.h; docs/column.md "Arrow arrays").

An array that exports itself (`__arrow_c_array__`, the Arrow PyCapsule interface: pyarrow 14 and later,
and other producers) is moved into structs owned here (the capsules' copies get release = NULL, as the
specification allows), handed to the library's raid_arrow_* functions, which read the values in place
(no copy; the offset and the validity bitmap honoured), and released (its release callback called) when
the call returns. A pyarrow ChunkedArray of one chunk is that chunk (no copy); of several chunks, one
array made by combine_chunks (a copy); of none, an empty array. Results for Arrow input are pyarrow
arrays (pyarrow is imported only then: the package works without it).
"""
import ctypes

import numpy as np

from ._convert import _chunked, c_int, floats, integers, is_arrow
from ._core import check, context, ffi, lib

_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _pyarrow_type(x):
    t = getattr(x, "type", None)
    return t if type(t).__module__.startswith("pyarrow") else None


def as_f64(x, name):
    """An Arrow array of float64 ("g"), as the raid_arrow_* functions take it: x itself when it is one (or
    not a pyarrow array: the library checks its format); else x's values by the package's values rule
    (docs/python.md "Inputs": float32, float16 and exact integers converted, a copy) with x's nulls."""
    t = _pyarrow_type(x)
    if t is None or str(t) == "double":
        return x
    values, nulls = floats(x, name, nulls="mask")
    return _pa().array(values, mask=nulls)


def as_i64(x, name):
    """An Arrow array of int64 keys ("l") without nulls: x itself when it is one; else by integers() (its
    rules and messages: nulls refused naming the row, floats refused)."""
    t = _pyarrow_type(x)
    if t is None or str(t) == "int64" and not x.null_count:
        return x
    return _pa().array(integers(x, name))


class Exported:
    """An array exported through the C data interface, moved into cffi-owned structs: schema, array (the
    pointers for raid_arrow_*), n (its length), nulls (its null count, raid_arrow_check's). Use as a
    context manager: the release callbacks are called at exit."""

    def __init__(self, x, formats, name):
        if _chunked(x):
            if x.num_chunks == 1:
                x = x.chunk(0)
            elif x.num_chunks == 0:
                import pyarrow as pa
                x = pa.array([], type=x.type)
            else:
                x = x.combine_chunks()
        self.schema = ffi.new("struct ArrowSchema *")
        self.array = ffi.new("struct ArrowArray *")
        sc, ac = x.__arrow_c_array__()
        for cap, cname, dst, ctype in ((sc, b"arrow_schema", self.schema, "struct ArrowSchema *"),
                                       (ac, b"arrow_array", self.array, "struct ArrowArray *")):
            src = ffi.cast(ctype, _capsule_pointer(cap, cname))
            dst[0] = src[0]  # move: the capsule's destructor then releases nothing
            src.release = ffi.NULL
        n, nulls = ffi.new("size_t *"), ffi.new("size_t *")
        st = lib.raid_arrow_check(self.schema, self.array, formats.encode(), n, nulls)
        if st != lib.RAID_OK:
            self.close()
            check(st, what=f"{name}: " + ffi.string(lib.raid_errmsg()).decode())
        self.n, self.nulls = n[0], nulls[0]

    def close(self):
        for p in (self.array, self.schema):
            if p.release != ffi.NULL:
                p.release(p)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _pa():
    import pyarrow as pa
    return pa


def f64_array(values, nvalid=None):
    """A pyarrow float64 array over a numpy array (no copy); with nvalid, the entries from nvalid on null."""
    pa = _pa()
    n = values.size
    if nvalid is None or nvalid == n:
        return pa.array(values, type=pa.float64())
    bits = np.packbits(np.arange(n) < nvalid, bitorder="little")
    return pa.Array.from_buffers(pa.float64(), n, [pa.py_buffer(bits), pa.py_buffer(values)], null_count=n - nvalid)


def _flags(descending):
    return lib.RAID_SORT_DESC if descending else 0


def _no(what, **kw):
    for k, v in kw.items():
        if v is not None:
            raise ValueError(f"{what}: {k} is for numpy input (an Arrow array carries its own validity; "
                             f"segments: slice the array)")


def sort(x, device, descending, **kw):
    _no("raid.sort", **kw)
    with Exported(as_f64(x, "x"), "g", "raid.sort") as e:
        out = np.empty(e.n)
        ctx = context(device)
        check(lib.raid_arrow_sort(ctx, e.schema, e.array, _flags(descending), ffi.from_buffer("double[]", out)), ctx)
        return f64_array(out, e.n - e.nulls)


def argsort(x, device, index_dtype, descending, **kw):
    _no("raid.argsort", **kw)
    dt = np.dtype(index_dtype)
    if dt not in (np.dtype(np.int64), np.dtype(np.uint32)):
        raise ValueError(f"index_dtype must be int64 or uint32, not {dt}")
    with Exported(as_f64(x, "x"), "g", "raid.argsort") as e:
        idx = np.empty(e.n, dtype=np.int64)
        ctx = context(device)
        check(lib.raid_arrow_argsort(ctx, e.schema, e.array, _flags(descending), ffi.from_buffer("int64_t[]", idx)), ctx)
    return _pa().array(idx.astype(dt, copy=False))


def _one(fn, x, device, name, offsets, *args):
    _no(name, offsets=offsets)
    with Exported(as_f64(x, "x"), "g", name) as e:
        out = np.empty(1)
        ctx = context(device)
        check(fn(ctx, e.schema, e.array, *args, ffi.from_buffer("double[]", out)), ctx)
    return out[0]


def kth(x, k, device, offsets):
    return _one(lib.raid_arrow_kth, x, device, "raid.kth", offsets, c_int(k, "k", "int64_t"))


def median(x, device, offsets):
    return _one(lib.raid_arrow_median, x, device, "raid.median", offsets)


def quantile(x, qv, device, offsets):
    """raid_arrow_quantile of x at the float64 values qv (raid.quantile checked q): a numpy array (qv.size,)."""
    _no("raid.quantile", offsets=offsets)
    out = np.empty(max(qv.size, 1))
    with Exported(as_f64(x, "x"), "g", "raid.quantile") as e:
        ctx = context(device)
        check(lib.raid_arrow_quantile(ctx, e.schema, e.array, ffi.from_buffer("double[]", qv), qv.size,
                                      ffi.from_buffer("double[]", out)), ctx)
    return out[:qv.size]


def minmax(x, which, skipna, device, offsets):
    _no("raid.max" if which else "raid.min", offsets=offsets)
    out = np.empty(1)
    ptrs = [ffi.NULL] * 4
    ptrs[which + (2 if skipna else 0)] = ffi.from_buffer("double[]", out)
    with Exported(as_f64(x, "x"), "g", "raid.max" if which else "raid.min") as e:
        ctx = context(device)
        check(lib.raid_arrow_minmax(ctx, e.schema, e.array, *ptrs), ctx)
    return out[0]


def topk(x, k, largest, return_index, device, offsets):
    _no("raid.topk", offsets=offsets)
    k = c_int(k, "k", "int64_t")
    vals = np.empty(max(k, 1))
    idx = np.empty(max(k, 1), dtype=np.int64)
    with Exported(as_f64(x, "x"), "g", "raid.topk") as e:
        ctx = context(device)
        check(lib.raid_arrow_topk(ctx, e.schema, e.array, k, 1 if largest else 0, ffi.from_buffer("double[]", vals),
                                  ffi.from_buffer("int64_t[]", idx)), ctx)
    v = f64_array(vals[:k])
    return (v, _pa().array(idx[:k])) if return_index else v


def groupby(keys, values, aggs, valid, skipna, device):
    """raid.groupby on Arrow arrays: int64 keys without nulls, float64 values (their nulls are null rows);
    a pyarrow Table: the column "key" (ascending) and one column per aggregation (count int64)."""
    from ._groupby import AGGS
    if valid is not None:
        raise ValueError("raid.groupby: valid is for numpy input (an Arrow array carries its own validity)")
    if isinstance(aggs, str):
        aggs = [aggs]
    aggs = list(aggs)
    if not aggs or any(a not in AGGS for a in aggs):
        raise ValueError(f"aggs must name aggregations among {', '.join(AGGS)}, not {aggs!r}")
    if values is None and any(a != "count" for a in aggs):
        raise ValueError("values are needed by an aggregation other than count")
    pa = _pa()
    keys = as_i64(keys, "keys") if is_arrow(keys) else pa.array(integers(keys, "keys"))
    if values is not None:
        if is_arrow(values):
            values = as_f64(values, "values")
        else:
            f, nulls = floats(values, "values", nulls="mask")
            values = pa.array(f, mask=nulls)
    out = ffi.new("raid_groupby **")
    with Exported(keys, "l", "raid.groupby: keys") as k:
        v = Exported(values, "g", "raid.groupby: values") if values is not None else None
        try:
            ctx = context(device)
            check(lib.raid_arrow_groupby(ctx, k.schema, k.array, v.schema if v else ffi.NULL, v.array if v else ffi.NULL,
                                         ffi.new("raid_agg[]", [AGGS.index(a) for a in aggs]), len(aggs),
                                         lib.RAID_GROUPBY_SKIPNA if skipna else 0, out), ctx)
        finally:
            if v:
                v.close()
    g = ffi.gc(out[0], lib.raid_groupby_destroy)
    G = lib.raid_groupby_ngroups(g)

    def arr(ptr, dtype):
        dtype = np.dtype(dtype)
        return np.frombuffer(ffi.buffer(ptr, G * dtype.itemsize), dtype=dtype).copy() if G else np.zeros(0, dtype)

    cols, names = [pa.array(arr(lib.raid_groupby_keys(g), np.int64))], ["key"]
    for j, a in enumerate(aggs):  # distinct names (raid.groupby checked them)
        names.append(a)
        cols.append(pa.array(arr(lib.raid_groupby_counts(g), np.int64) if a == "count"
                             else arr(lib.raid_groupby_column(g, j), np.float64)))
    return pa.table(cols, names=names)
