"""Group-by with exact group sums through the library's API (include/raid/groupby.h, docs/groupby.md):
raid_groupby_compute on numpy arrays, the result as a pandas DataFrame indexed by the ascending keys."""
import numpy as np
import pandas as pd

from . import _arrow, _cuda
from ._convert import as_c, flag, floats, integers, is_arrow, validity
from ._core import check, context, ffi, lib

AGGS = ("count", "sum", "mean", "min", "max", "first", "last")


def groupby(keys, values=None, aggs=("sum",), *, valid=None, skipna=False, device=None):
    """Group values by int64 or float64 keys and aggregate each group (docs/groupby.md).

    keys: integers (n) in int64's range (ValueError for uint64 past 2**63 - 1: no wrapping), or float64
    (float32, float16 widened; raid_groupby_compute_f64: 0.0 and -0.0 one group keyed 0.0, every NaN one group keyed NaN,
    last: polars' group_by, pandas' groupby(dropna=False)); values: (n) by the package's values rule
    (docs/python.md "Inputs": float32, float16 and integers exact in float64 converted, else a TypeError
    or a ValueError naming the row), their nulls (masked entries, pandas NA, pyarrow nulls) null rows; or
    None when every aggregation is "count";
    aggs: names among "count", "sum", "mean", "min", "max", "first", "last" (a string for one);
    valid: None or a validity mask (n): booleans or integers 0 and 1, False/0 a null row (its key still
    forms a group), with the values' own nulls;
    skipna: NaN values are nulls (pandas' groupby) when True; when False a NaN makes its group's sum,
    mean, min and max NaN (IEEE, numpy) and may be first or last.
    Sums are exact: the exact sum of each group's values rounded once to the nearest float64 (ties to
    even), the same bits on every device; means are the exact sum divided by the count, rounded once (finite
    where the sum overflows: the mean of 1.7e308 and 1.7e308 is 1.7e308); an all-null group sums to 0.0, its
    other aggregations are NaN.
    device: as raid.context ("cpu", "opencl", ...; None: $RAID_DEVICE or auto).
    Returns a DataFrame indexed by the distinct keys in ascending order (index name "key"), one column per
    aggregation named by it (an aggregation given twice is a ValueError, as in `raid groupby --agg`);
    count is int64.
    Errors: ValueError (arguments), RaidError (the library's).
    keys and values may be pyarrow Arrays or ChunkedArrays (int64 keys without nulls, float64 values whose
    nulls are null rows; read in place through the Arrow C data interface): the result is then a pyarrow
    Table with the column "key" and the aggregations' columns."""
    skipna = flag(skipna, "skipna")
    if isinstance(aggs, str):
        aggs = [aggs]
    aggs = list(aggs)
    twice = [a for i, a in enumerate(aggs) if a in aggs[:i]]
    if twice:  # two columns of one name; the CLI's message
        raise ValueError(f"aggregation {twice[0]!r} given twice")
    float_arrow_keys = is_arrow(keys) and str(getattr(keys, "type", "")) in ("double", "float", "halffloat")
    if (is_arrow(keys) or is_arrow(values)) and not float_arrow_keys:
        return _arrow.groupby(keys, values, aggs, valid, skipna, device)
    if not aggs:
        raise ValueError("aggs must name at least one aggregation")
    codes = []
    for a in aggs:
        if a not in AGGS:
            raise ValueError(f"unknown aggregation {a!r} (expected one of {', '.join(AGGS)})")
        codes.append(AGGS.index(a))
    if _cuda.is_device(keys) or (values is not None and _cuda.is_device(values)):
        return _groupby_device(keys, values, aggs, codes, valid, skipna, device)
    k = integers(keys, "keys", floats_ok=True)
    fkeys = k.dtype == np.float64
    k, pk = as_c(k, k.dtype, "keys")
    n = k.size
    nulls = None
    if values is None:
        if any(a != "count" for a in aggs):
            raise ValueError("values are needed by an aggregation other than count")
        px = ffi.NULL
    else:
        x, nulls = floats(values, "values", nulls="mask")
        x, px = as_c(x, np.float64, "values")
        if x.size != n:
            raise ValueError(f"values has {x.size} entries, keys {n}")
    pv = ffi.NULL
    if valid is not None or nulls is not None:
        v = np.ones(n, bool) if valid is None else validity(valid, n)
        if nulls is not None:  # the values' own nulls (masked entries, NA, pyarrow nulls): null rows
            v &= ~nulls
        v = np.ascontiguousarray(v, dtype=np.uint8)
        pv = ffi.from_buffer("uint8_t[]", v)
    ca = ffi.new("raid_agg[]", codes)
    out = ffi.new("raid_groupby **")
    ctx = context(device)
    flags = lib.RAID_GROUPBY_SKIPNA if skipna else 0
    if fkeys:
        check(lib.raid_groupby_compute_f64(ctx, pk, ffi.NULL, px, pv, n, ca, len(codes), flags, out), ctx)
    else:
        check(lib.raid_groupby_compute(ctx, pk, px, pv, n, ca, len(codes), flags, out), ctx)
    g = ffi.gc(out[0], lib.raid_groupby_destroy)
    G = lib.raid_groupby_ngroups(g)

    def arr(ptr, dtype):
        if G == 0:
            return np.zeros(0, dtype=dtype)
        return np.frombuffer(ffi.buffer(ptr, G * np.dtype(dtype).itemsize), dtype=dtype).copy()

    index = pd.Index(arr(lib.raid_groupby_keys_f64(g), np.float64) if fkeys else
                     arr(lib.raid_groupby_keys(g), np.int64), name="key")
    cols = {}
    for j, a in enumerate(aggs):  # distinct names (checked above)
        cols[a] = arr(lib.raid_groupby_counts(g), np.int64) if a == "count" else \
            arr(lib.raid_groupby_column(g, j), np.float64)
    out = pd.DataFrame(cols, index=index)
    if float_arrow_keys:  # pyarrow in, pyarrow out (the Arrow path takes int64 keys only)
        import pyarrow as pa
        return pa.Table.from_pandas(out.reset_index(), preserve_index=False)
    return out


def _groupby_device(keys, values, aggs, codes, valid, skipna, device):
    """raid.groupby of CUDA arrays (docs/python.md "CUDA arrays"): keys int64 or float64, values float64 (or
    None), both on one device; valid a host array (numpy). Returns a dict of CuPy arrays on that device:
    "key" (the distinct keys, ascending) and one array per aggregation (count int64). The groups are formed
    and rounded on the host (G values each), so the result is copied to the device."""
    kc = _cuda.cuda_array(keys, "keys", (np.dtype(np.int64), np.dtype(np.float64)))
    vc = None if values is None else _cuda.cuda_array(values, "values")
    if values is None and any(a != "count" for a in aggs):
        raise ValueError("values are needed by an aggregation other than count")
    ctx, d = _cuda.cuda_context([kc] if values is None else [kc, vc], device)  # vc None: host values, refused
    n = kc.size
    if vc is not None and vc.size != n:
        raise ValueError(f"values has {vc.size} entries, keys {n}")
    fkeys = kc.dtype == np.float64
    fn = "raid_groupby_compute_f64" if fkeys else "raid_groupby_compute"
    if fn not in _cuda.IN_PLACE:  # an explicit host copy, then the host path on the arrays' device
        res = groupby(kc.host(), None if vc is None else vc.host(), aggs, valid=valid, skipna=skipna,
                      device=f"cuda:{d}")
        out = {"key": _cuda.to_device(res.index.to_numpy(), d)}
        for a in aggs:
            out[a] = _cuda.to_device(res[a].to_numpy(), d)
        return out
    pk = kc.cdata("double *" if fkeys else "int64_t *")
    px = ffi.NULL if vc is None else vc.cdata("double *")
    pv, keep = ffi.NULL, None
    if valid is not None:
        keep = np.ascontiguousarray(validity(valid, n), dtype=np.uint8)
        pv = ffi.from_buffer("uint8_t[]", keep)
    ca = ffi.new("raid_agg[]", codes)
    outp = ffi.new("raid_groupby **")
    flags = lib.RAID_GROUPBY_SKIPNA if skipna else 0
    if fkeys:
        check(lib.raid_groupby_compute_f64(ctx, pk, ffi.NULL, px, pv, n, ca, len(codes), flags, outp), ctx)
    else:
        check(lib.raid_groupby_compute(ctx, pk, px, pv, n, ca, len(codes), flags, outp), ctx)
    g = ffi.gc(outp[0], lib.raid_groupby_destroy)
    G = lib.raid_groupby_ngroups(g)

    def arr(ptr, dtype):
        h = np.zeros(0, dtype) if G == 0 else np.frombuffer(ffi.buffer(ptr, G * np.dtype(dtype).itemsize), dtype)
        return _cuda.to_device(h, d)
    out = {"key": arr(lib.raid_groupby_keys_f64(g), np.float64) if fkeys else arr(lib.raid_groupby_keys(g), np.int64)}
    for j, a in enumerate(aggs):
        out[a] = arr(lib.raid_groupby_counts(g), np.int64) if a == "count" else arr(lib.raid_groupby_column(g, j),
                                                                                     np.float64)
    return out
