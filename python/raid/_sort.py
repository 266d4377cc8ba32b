"""Sorting float64 columns through the library (include/raid/sort.h; docs/column.md "Sorting"): raid.sort,
raid.argsort and raid.sort_pairs on numpy arrays, bit for bit numpy's np.sort / np.argsort(kind='stable')
(-0.0 and NaN payloads kept, NaN last), on the cpu path or a device."""
import numpy as np

from . import _arrow, _cuda
from ._convert import as_c, flag, floats, integers, is_arrow, nullable_kind, validity, with_nulls
from ._core import check, context, ffi, lib

_INDEX = {np.dtype(np.int64): ("int64_t", "raid_argsort_f64_seg_i64"),
          np.dtype(np.uint32): ("uint32_t", "raid_argsort_f64_seg_u32")}


def _flags(descending):
    return lib.RAID_SORT_DESC if descending else 0


def _values(x, valid):
    """x as float64 (the values rule) and its validity: valid= (validity()) and the input's own nulls (masked
    entries, pandas NA, pyarrow nulls) together, None when every value is valid."""
    a, nulls = floats(x, "x", nulls="mask")
    v = None if valid is None else validity(valid, a.size)
    if nulls is not None:
        v = ~nulls if v is None else v & ~nulls
    return a, v


def _valid(v):
    """The validity bitmap (Arrow's: bit i set when x[i] is valid) of a bool array, or NULL."""
    if v is None:
        return None, ffi.NULL
    bits = np.packbits(v, bitorder="little")
    return bits, ffi.from_buffer("uint8_t[]", bits) if bits.size else ffi.NULL


def _sorted_nulls(v, off, n):
    """Where the nulls are after a sort by segments: the last (number of nulls) entries of each segment."""
    c = np.concatenate([[0], np.cumsum(~v)])
    k = c[off[1:]] - c[off[:-1]]
    mark = np.zeros(n + 1, np.int64)
    np.add.at(mark, off[1:] - k, 1)
    np.add.at(mark, off[1:], -1)
    return np.cumsum(mark)[:n] > 0


def _offsets(offsets, n):
    if offsets is None:
        offsets = [0, n]
    off, poff = as_c(integers(offsets, "offsets"), np.int64, "offsets")
    if off.size < 1:
        raise ValueError("offsets must have at least one entry")
    if off[0] < 0 or off[-1] > n:
        raise ValueError(f"offsets must lie in [0, {n}]")
    return off, poff


def sort(x, device=None, *, descending=False, valid=None, offsets=None):
    """The values of x in sorted order: np.sort(x, kind='stable') bit for bit (-inf < numbers < +inf <
    NaN, -0.0 == +0.0 kept in input order, NaN payloads kept).

    descending: pandas' sort_values(ascending=False, kind='stable'): larger first, ties in input order,
    NaN still last. valid: None or a boolean array (True: valid); invalid entries (nulls) sort after NaN,
    in input order. offsets: None, or nseg + 1 non-decreasing int64: each x[offsets[s]:offsets[s+1]] is
    sorted on its own into the same slice of the result (entries outside the offsets' range are NaN).
    x: one-dimensional (a 0-d array or scalar raises ValueError, as np.sort), by the package's values rule
    (docs/python.md "Inputs"): float64, float32 and float16 widened exactly, integers when each is exactly
    a float64 (else ValueError naming the row: past 2**53 not every integer is, and np.sort of int64 would
    not be that of its float64 cast); bool, object, str raise TypeError.
    offsets must be integers (ValueError for floats such as 0.5, or values past int64).
    device: as raid.context (None: $RAID_DEVICE or auto; "cpu"; "opencl"...). Errors: ValueError
    (arguments), RaidError (the library's).

    x may be a pyarrow Array or ChunkedArray (float64 read in place through the Arrow C data interface;
    several chunks are combined first, a copy; other numbers converted by the values rule): the result is
    a pyarrow float64 array, its nulls last (null entries; valid and offsets are for numpy input). The
    nulls of a numpy masked array or a pandas nullable Series (NA) are nulls too, sorted last (with those
    of valid=), and the result is then of the input's kind: a masked array (as np.ma.sort's), a pandas
    Float64 array (or double[pyarrow]), the nulls masked."""
    descending = flag(descending, "descending")
    if is_arrow(x):
        return _arrow.sort(x, device, descending, valid=valid, offsets=offsets)
    if _cuda.is_device(x):
        return _sort_device(x, device, descending, valid, offsets, None)
    a, v = _values(x, valid)
    a, px = as_c(a, np.float64, "x")
    off, poff = _offsets(offsets, a.size)
    bits, pvalid = _valid(v)
    out = np.empty(a.size) if offsets is None else np.full(a.size, np.nan)  # no offsets: all written
    ctx = context(device)
    check(lib.raid_sort_f64_seg(ctx, px, poff, off.size - 1, pvalid, _flags(descending),
                                ffi.from_buffer("double[]", out)), ctx)
    kind = nullable_kind(x)
    if kind is None:
        return out
    return with_nulls(out, _sorted_nulls(v, off, a.size) if v is not None else np.zeros(a.size, bool), kind)


def argsort(x, device=None, *, index_dtype=np.int64, descending=False, valid=None, offsets=None):
    """The stable argsort of x: np.argsort(x, kind='stable') exactly (NaN last, never -1), as index_dtype
    (np.int64 or np.uint32). descending, valid and offsets as in raid.sort (with offsets: the indices are
    into x, each segment's slice a permutation of its own range; entries outside the range are 0).
    x's dtype as in raid.sort.
    x may be a pyarrow Array or ChunkedArray (as in raid.sort): the result is a pyarrow array of
    index_dtype, the nulls' indices last, as pyarrow.compute.sort_indices. The nulls of a masked array or a
    pandas nullable Series are nulls (their indices last), as in raid.sort; the result is a numpy array."""
    descending = flag(descending, "descending")
    if is_arrow(x):
        return _arrow.argsort(x, device, index_dtype, descending, valid=valid, offsets=offsets)
    dt = np.dtype(index_dtype)
    if dt not in _INDEX:
        raise ValueError(f"index_dtype must be int64 or uint32, not {dt}")
    if _cuda.is_device(x):
        return _sort_device(x, device, descending, valid, offsets, dt)
    a, v = _values(x, valid)
    a, px = as_c(a, np.float64, "x")
    off, poff = _offsets(offsets, a.size)
    bits, pvalid = _valid(v)
    out = np.zeros(a.size, dtype=dt)
    ctype, fn = _INDEX[dt]
    ctx = context(device)
    check(getattr(lib, fn)(ctx, px, poff, off.size - 1, pvalid, _flags(descending),
                           ffi.from_buffer(ctype + "[]", out)), ctx)
    return out


def _sort_device(x, device, descending, valid, offsets, index_dtype):
    """raid.sort (index_dtype None) or raid.argsort of a CUDA array x (docs/python.md "CUDA arrays"): a CuPy
    array on x's device. valid and offsets stay host arrays (numpy)."""
    ca = _cuda.cuda_array(x, "x")
    ctx, d = _cuda.cuda_context([ca], device)
    s = f"cuda:{d}"
    fn = "raid_sort_f64_seg" if index_dtype is None else _INDEX[index_dtype][1]
    if fn not in _cuda.IN_PLACE:  # an explicit host copy, then the host path on x's device
        h = ca.host()
        res = sort(h, s, descending=descending, valid=valid, offsets=offsets) if index_dtype is None else \
            argsort(h, s, index_dtype=index_dtype, descending=descending, valid=valid, offsets=offsets)
        return _cuda.to_device(res, d)
    off, poff = _offsets(offsets, ca.size)
    v = None if valid is None else validity(valid, ca.size)
    bits, pvalid = _valid(v)
    if index_dtype is None:
        out = _cuda.empty(ca.size, np.float64, d, None if offsets is None else np.nan)
        check(lib.raid_sort_f64_seg(ctx, ca.cdata("double *"), poff, off.size - 1, pvalid, _flags(descending),
                                    _cuda.pointer(out, "double *")), ctx)
    else:
        out = _cuda.empty(ca.size, index_dtype, d, 0)
        ctype, _ = _INDEX[index_dtype]
        check(getattr(lib, fn)(ctx, ca.cdata("double *"), poff, off.size - 1, pvalid, _flags(descending),
                               _cuda.pointer(out, ctype + " *")), ctx)
    return out


def sort_pairs(keys, values, device=None, *, descending=False):
    """(keys, values) sorted by the int64 keys, stably (equal keys keep their input order; the float64
    values are carried bit for bit): keys[p], values[p] for p = np.argsort(keys, kind='stable').
    keys: any integer dtype in int64's range, else ValueError (float keys such as 3.5 are not truncated);
    values: by the values rule, as x in raid.sort, without nulls (ValueError naming the row)."""
    descending = flag(descending, "descending")
    k, pk = as_c(integers(keys, "keys"), np.int64, "keys")
    v, pv = as_c(floats(values, "values", how="give the pairs without them (values.compressed() and "
                                              "keys[~np.ma.getmaskarray(values)])"), np.float64, "values")
    if k.size != v.size:
        raise ValueError(f"keys and values differ in length ({k.size} and {v.size})")
    ko = np.zeros(k.size, dtype=np.int64)
    vo = np.zeros(k.size, dtype=np.float64)
    ctx = context(device)
    check(lib.raid_sort_i64_f64(ctx, pk, pv, k.size, _flags(descending), ffi.from_buffer("int64_t[]", ko),
                                ffi.from_buffer("double[]", vo)), ctx)
    return ko, vo
