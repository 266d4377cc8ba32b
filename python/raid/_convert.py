"""The one conversion of the package's inputs (docs/python.md "Inputs"): every entry point turns its
arguments into the arrays the library takes here, so that each takes and refuses the same kinds with the
same messages. Nothing is converted inexactly: a value the library cannot take exactly is refused with a
message saying how to convert it explicitly.

Input kinds: numpy arrays (any layout or byte order: converted to native C-contiguous copies where
needed), numpy masked arrays, lists and tuples, pandas Series and Index of numpy and extension dtypes
(nullable Float64 / Int64 / boolean, ArrowDtype, str, category), pyarrow Arrays and ChunkedArrays (and
any producer of the Arrow PyCapsule interface, through pyarrow); frames: pandas DataFrames, pyarrow Tables
and RecordBatches.

Kinds of argument, each with one rule:
- values (returns, prices, closes, rv, x, group-by values): float64; float32 and float16 widened
  exactly; integers of any dtype when every value is exactly a float64 (else a DtypeError naming the
  first row that is not: past 2**53 not every integer is one); anything else (bool, complex, text,
  object, datetime, longdouble) a DtypeError naming the dtype. A DtypeError is a TypeError and a
  ValueError (the package raised either for these before).
- nulls of the input (a masked array's masked entries, pandas NA, pyarrow nulls) are the call's null values
  where it has them (sorts: last; selections: skipped; group-by values: null rows; nulls="mask"); NaN where
  NaN is the column's missing value, as the CSV reader reads an empty field (ma, har, garch, sweep, bars,
  realized_from_prices; nulls="nan"); else refused naming the row (nulls="refuse"). A masked array is
  never read as NaN: numpy's masked entries are values to leave out, not missing values; where the call
  has no null values it is refused, with how to give the values instead.
- integers (offsets, keys): any integer dtype with values in int64 (no wrapping), a list of Python ints;
  floats are never truncated (DtypeError), nulls refused.
- validity masks (valid=): booleans, or integers 0 and 1, one per value, without nulls.
- timestamps: datetime64 of any unit (naive: local wall-clock times; tz-aware: instants) or Arrow
  timestamps; NaT refused naming the row; ISO 8601 text only where the library parses text.
- symbols: text, or values of one type named by str(); missing ones, mixed types, NUL bytes refused.
- date labels: text as given, datetime64 as dates; missing ones refused naming the row.
- matrices (raid.simulate's corr): each column by the values rule, nulls refused naming the row and column.
- scalar integers (c_int), real numbers (real) and flags (flag): an int or numpy integer in the C type's range;
  an int, float or numpy scalar; True or False. Text is never parsed, a bool is no number and a number no
  flag: each a ValueError naming the argument and what was given.
Rows are 0-based positions in the input (a DataFrame's positions, not its index).
"""
import datetime

import numpy as np
import pandas as pd

from ._core import ffi, show


class DtypeError(TypeError, ValueError):
    """An input of a dtype an argument does not take (raid.sort of text, say), or of an integer dtype whose
    values float64 cannot all hold (int64 past 2**53): a TypeError, as the array functions raised for
    every integer dtype before; also a ValueError, as raid.realized, the integer arguments and the column
    functions (bars, ma, sweep: integers not exact in float64) raised it before."""


def _pa():
    import pyarrow as pa
    return pa


def _chunked(x):
    return type(x).__name__ == "ChunkedArray" and hasattr(x, "combine_chunks")


def is_arrow(x):
    """True for an Arrow array (anything with __arrow_c_array__ but a RecordBatch) or a pyarrow ChunkedArray."""
    return _chunked(x) or hasattr(x, "__arrow_c_array__") and type(x).__name__ != "RecordBatch"


def is_frame(x):
    """True for a table: a pandas DataFrame, a pyarrow Table or RecordBatch, or another producer of an
    Arrow stream (__arrow_c_stream__) that is no array or Series."""
    if isinstance(x, (pd.Series, pd.Index, np.ndarray)) or _chunked(x):
        return False
    return isinstance(x, pd.DataFrame) or type(x).__name__ in ("Table", "RecordBatch") or \
        hasattr(x, "__arrow_c_stream__")


def _masked_dtype(dt):
    """pandas' nullable (masked) dtypes: Float64, Int64, UInt8, boolean, ... (a numpy dtype and a mask)."""
    return isinstance(dt, pd.api.extensions.ExtensionDtype) and not isinstance(dt, pd.ArrowDtype) and \
        dt.kind in "iufb" and hasattr(dt, "numpy_dtype")


class _Source:
    """A one-dimensional input as numpy values and its nulls: values (a numpy array; nulls hold 0 or NaN),
    nulls (a bool array, True null, or None), word ("masked", "NA", "null"), origin (for messages), dtype
    (how a refused dtype is named)."""

    def __init__(self, values, nulls=None, word=None, origin=None, dtype=None):
        self.values, self.word, self.origin = values, word, origin
        self.nulls = nulls if nulls is not None and nulls.any() else None
        self.dtype = dtype if dtype is not None else str(values.dtype)


def _arrow_array(x):
    """A pyarrow Array of any Arrow array or ChunkedArray (chunks combined: a copy)."""
    pa = _pa()
    if _chunked(x):
        if x.num_chunks == 1:
            return x.chunk(0)
        return x.combine_chunks() if x.num_chunks else pa.array([], type=x.type)
    return x if isinstance(x, pa.Array) else pa.array(x)


def _from_arrow(x):
    pa = _pa()
    x = _arrow_array(x)
    t = x.type
    nulls = x.is_null().to_numpy(zero_copy_only=False) if x.null_count else None
    name = f"pyarrow {t}"
    if pa.types.is_floating(t) or pa.types.is_integer(t):
        values = (x.fill_null(0) if x.null_count else x).to_numpy(zero_copy_only=False)
    elif pa.types.is_boolean(t):
        values = (x.fill_null(False) if x.null_count else x).to_numpy(zero_copy_only=False)
    else:
        values = np.zeros(len(x), dtype=object)  # refused by dtype (named by its Arrow type)
    return _Source(values, nulls, "null", name, name)


def _source(x, name):
    """x (any one-dimensional input kind) as a _Source; ValueError for a frame."""
    if isinstance(x, np.ma.MaskedArray):
        return _Source(np.asarray(np.ma.getdata(x)), np.ma.getmaskarray(x), "masked", "a numpy masked array")
    if is_arrow(x):
        return _from_arrow(x)
    if isinstance(x, (pd.Series, pd.Index, pd.api.extensions.ExtensionArray)):
        dt = x.dtype
        if isinstance(dt, pd.ArrowDtype):
            return _from_arrow(x.array.__arrow_array__() if hasattr(x, "array") else x.__arrow_array__())
        if _masked_dtype(dt):
            na = np.asarray(pd.isna(x), dtype=bool)
            fill = {"f": np.nan, "b": False}.get(dt.kind, 0)
            return _Source(x.to_numpy(dtype=dt.numpy_dtype, na_value=fill), na, "NA", f"pandas {dt}", str(dt))
        if isinstance(dt, np.dtype):
            return _Source(np.asarray(x.to_numpy() if hasattr(x, "to_numpy") else x))
        return _Source(np.asarray(x, dtype=object), dtype=str(dt))  # str, category, ...: refused by dtype
    if is_frame(x) or isinstance(x, dict):
        raise ValueError(f"{name} must be one-dimensional (an array, a list, a Series or an Arrow array), not a "
                         f"{type(x).__name__}: give one column")
    if isinstance(x, (list, tuple)):
        return _Source(_sequence(x, name))
    return _Source(np.asarray(x))


def _sequence(x, name):
    """A list or tuple as numpy: Python ints exactly (numpy would make float64 of [1, 2**63] and of
    [2**53 + 1, 0.5], rounding), the rest as np.asarray makes it."""
    if not all(np.ndim(v) == 0 for v in x):  # nested: two-dimensional, refused by shape
        return np.asarray(x)
    if any(isinstance(v, (bool, np.bool_)) for v in x) and not all(isinstance(v, (bool, np.bool_)) for v in x):
        return np.array(x, dtype=object)  # np.asarray([1, True]) would make True the integer 1
    ints = [isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in x]
    if any(ints) and all(i or isinstance(v, (float, np.floating)) and not isinstance(v, np.longdouble)
                         for i, v in zip(ints, x)):
        if all(ints) and all(-2 ** 63 <= v < 2 ** 63 for v in x):
            return np.array(x, dtype=np.int64)
        if all(ints) and all(0 <= v < 2 ** 64 for v in x):
            return np.array(x, dtype=np.uint64)
        for r, v in enumerate(x):  # ints beyond int64, or ints among floats: each exactly a float64?
            if ints[r] and float(v) != v:
                raise DtypeError(f"row {r}: {name} {v} is not exactly representable as float64 (integers are exact "
                                 "only up to 2**53 in magnitude; dtype int): convert it explicitly if rounding is meant")
        return np.array([float(v) for v in x], dtype=np.float64)
    return np.asarray(x)


def _one_dim(src, name):
    if src.values.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, not of shape {src.values.shape}")


def _native(a):
    return a.astype(a.dtype.newbyteorder("=")) if not a.dtype.isnative else a


def _refuse_nulls(src, name, how):
    r = int(np.flatnonzero(src.nulls)[0])
    if src.word == "masked":
        raise ValueError(f"row {r}: {name} is masked ({src.origin}): masked arrays are refused where the call has no "
                         f"null values; {how}")
    raise ValueError(f"row {r}: {name} is {src.word} ({src.origin}): {how}")


def _is_float(dt):
    """float64, float32, float16 in either byte order (not longdouble, which float64 cannot hold)."""
    return dt.kind == "f" and dt.itemsize <= 8


def _exact(a, nulls, name):
    """An integer array as float64 when every (non-null) value converts exactly, else ValueError naming the
    first row that does not."""
    f = a.astype(np.float64)
    top = 2.0 ** (8 * a.dtype.itemsize - (a.dtype.kind == "i"))  # the first value past the dtype's range
    bad = f >= top  # rounded up past the range (2**63 - 1 to 2**63)
    bad[~bad] = f[~bad].astype(a.dtype) != a[~bad]
    if nulls is not None:
        bad &= ~nulls
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        raise DtypeError(f"row {r}: {name} {a[r]} is not exactly representable as float64 (integers are exact only up "
                         f"to 2**53 in magnitude; dtype {_native(a).dtype}): convert it explicitly if rounding is meant")
    return f


def _first_other(a, src):
    """For an object array (a column of mixed types), the first value that is not a number, as " (row R:
    'a')"; else ""."""
    if src.dtype != "object":
        return ""
    for r, v in enumerate(a.tolist()):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
            return f" (row {r}: {v!r})"
    return ""


def floats(x, name, nulls="refuse", how=None):
    """x as a one-dimensional C-contiguous float64 numpy array, by the values rule (module docstring).
    nulls: "refuse" (ValueError naming the first null row, then how), "nan" (pandas NA and pyarrow nulls
    become NaN; a masked array with masked entries is refused, with how), "mask" (returns the pair
    (values, nulls) with nulls a bool array, True null, or None). how: what to do instead of nulls."""
    src = _source(x, name)
    _one_dim(src, name)
    a = src.values
    if _is_float(a.dtype):
        f = _native(a).astype(np.float64, copy=False)
    elif a.dtype.kind in "iu":  # (every kind refused by dtype comes as an object array)
        f = _exact(_native(a), src.nulls, name)
    else:
        raise DtypeError(f"{name} must be real floating (float64; float32, float16 and integers exact in float64 are "
                         f"converted), not dtype {src.dtype}{_first_other(a, src)}: convert it explicitly, e.g. "
                         f"{name}.astype(np.float64) (exact for integers only up to 2**53 in magnitude)")
    f = np.ascontiguousarray(f)
    if nulls == "mask":
        return f, src.nulls
    if src.nulls is not None:
        if nulls == "nan" and src.word != "masked":
            f = f.copy()
            f[src.nulls] = np.nan
        else:
            _refuse_nulls(src, name, how or "give the values without them")
    return f


def nullable_kind(x):
    """The kind of container an input that can hold nulls asks its result to be: "masked" (a numpy masked
    array), "pandas" (a pandas nullable Series or array: Float64, Int64, ...), "arrow" (a pandas Series of
    pd.ArrowDtype); None for any other input."""
    if isinstance(x, np.ma.MaskedArray):
        return "masked"
    if isinstance(x, (pd.Series, pd.Index, pd.api.extensions.ExtensionArray)):
        if isinstance(x.dtype, pd.ArrowDtype):
            return "arrow"
        if _masked_dtype(x.dtype):
            return "pandas"
    return None


def with_nulls(values, nulls, kind):
    """float64 values with their nulls (a bool array, True null) as a container of kind (nullable_kind)."""
    if kind == "masked":
        return np.ma.masked_array(values, mask=nulls)
    if kind == "pandas":
        return pd.arrays.FloatingArray(values, nulls)
    return pd.arrays.ArrowExtensionArray(_pa().array(values, mask=nulls))


def python_ints(a):
    """a as a one-dimensional object array when it is a list or tuple of Python (or numpy) integers, not
    bool; else None. numpy would make float64 of [1, 2**63], object of 2**64."""
    if not isinstance(a, (list, tuple)):
        return None
    ok = len(a) and all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in a)
    return np.array(a, dtype=object) if ok else None


def integers(x, name, how=None, floats_ok=False):
    """x as a one-dimensional C-contiguous int64 numpy array: any integer dtype with values in int64's range,
    or a list of Python ints; DtypeError for any other dtype (floats, which would be truncated, bool,
    text); ValueError for nulls (naming the row) and values past int64. floats_ok: a float input is
    returned as float64 instead (group-by's float keys), by the values rule."""
    obj = python_ints(x)
    if obj is not None:
        big = [v for v in obj if not -2 ** 63 <= v < 2 ** 63]
        if big:
            raise ValueError(f"{name}: {big[0]} is out of range for int64")
        return np.array([int(v) for v in obj], dtype=np.int64)
    src = _source(x, name)
    _one_dim(src, name)
    if src.nulls is not None:
        _refuse_nulls(src, name, how or "give the values without them")
    a = src.values
    if a.size == 0 and a.dtype.kind == "f":  # [] is float64 to numpy
        return np.zeros(0, np.int64)
    if floats_ok and _is_float(a.dtype):
        return np.ascontiguousarray(_native(a).astype(np.float64, copy=False))
    if a.dtype.kind not in "iu":
        raise DtypeError(f"{name} must be {'integers or floats' if floats_ok else 'integers'}, not dtype {src.dtype}")
    if a.dtype.kind == "u" and a.size and a.max() > np.iinfo(np.int64).max:
        raise ValueError(f"{name}: {a.max()} is out of range for int64")
    return np.ascontiguousarray(a.astype(np.int64))


def validity(v, n, name="valid"):
    """A validity mask (True: valid) of n entries: booleans, or integers 0 and 1; DtypeError for another
    dtype, ValueError for another length, another integer or a null (naming the row)."""
    src = _source(v, name)
    _one_dim(src, name)
    if src.nulls is not None:
        _refuse_nulls(src, name, "give True or False for every row")
    a = src.values
    if a.dtype.kind == "b":
        out = a.astype(bool)
    elif a.dtype.kind in "iu":
        bad = (a != 0) & (a != 1)
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            raise ValueError(f"row {r}: {name} is {a[r]}, not 0 or 1")
        out = a != 0
    else:
        raise DtypeError(f"{name} must be booleans (True: valid) or integers 0 and 1, not dtype {src.dtype}")
    if out.size != n:
        raise ValueError(f"{name} must have {n} entries (one per value), not {out.size}")
    return np.ascontiguousarray(out)


def as_c(a, dtype, name):
    """A one-dimensional C-contiguous numpy array of dtype (float64: floats(a, name); int64:
    integers(a, name)) and a cffi pointer to its data (keep the array alive while the pointer is used)."""
    dtype = np.dtype(dtype)
    a = floats(a, name) if dtype == np.float64 else integers(a, name)
    return a, ffi.from_buffer(("double" if dtype == np.float64 else "int64_t") + "[]", a)


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


def real(v, name):
    """v as a Python float for a real argument (alpha, a simulator option): an int, a float or a numpy integer or
    floating scalar, else ValueError naming the argument and what was given. Text is not parsed ("0.01"),
    and bool, None, pandas NA, numpy's masked constant and arrays (even of one value) are refused."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a real number, not {show(repr(v))} ({type(v).__name__})")
    return float(v)


def flag(v, name):
    """v as a Python bool for a flag argument: True or False (Python's or numpy's), else ValueError naming the
    argument and what was given: "no", 2, 1.0 and None are no flags (their truth value would be taken)."""
    if not isinstance(v, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, not {show(repr(v))} ({type(v).__name__})")
    return bool(v)


def matrix(x, name, how=None, expected="a matrix"):
    """x as a two-dimensional C-contiguous float64 numpy array, each column by the values rule with nulls
    refused (floats(), how: what to do instead): a two-dimensional numpy array or masked array (column j
    named NAME[:, j] in messages, so "row 0: corr[:, 1] is masked" is the entry (0, 1)), a list or tuple of
    rows of one length (the same), a pandas DataFrame or pyarrow Table (its columns, NAME['b']). ValueError for
    another shape, naming expected."""
    if is_frame(x):
        df = frame(x, name, "of the matrix")
        cols = [floats(df[c], f"{name}[{show(repr(c))}]", how=how) for c in df.columns]
        return np.ascontiguousarray(np.column_stack(cols)) if cols else np.zeros((len(df), 0))
    if isinstance(x, (list, tuple)):
        lens = [len(r) if isinstance(r, (list, tuple)) or np.ndim(r) == 1 else None for r in x]
        if x and all(n is None for n in lens):
            raise ValueError(f"{name} must be {expected}, not of shape ({len(x)},)")
        if any(n != lens[0] for n in lens[1:]) or lens and lens[0] is None:
            raise ValueError(f"{name} must be {expected} (rows of one length), not rows of lengths "
                             f"{', '.join('(a number)' if n is None else str(n) for n in lens)}")
        cols = [floats([r[j] for r in x], f"{name}[:, {j}]", how=how) for j in range(lens[0] if lens else 0)]
        return np.ascontiguousarray(np.column_stack(cols)) if cols else np.zeros((len(x), 0))
    if not isinstance(x, np.ndarray) or x.ndim != 2:
        raise ValueError(f"{name} must be {expected}, not {type(x).__name__}"
                         f"{f' of shape {x.shape}' if isinstance(x, np.ndarray) else ''}")
    cols = [floats(x[:, j], f"{name}[:, {j}]", how=how) for j in range(x.shape[1])]
    return np.ascontiguousarray(np.column_stack(cols)) if cols else np.zeros((x.shape[0], 0))


# ---------------------------------------------------------------------------------------------------
# Frames and their columns
# ---------------------------------------------------------------------------------------------------

def _arrow_types(t):
    """pandas dtypes for the columns of a pyarrow Table: Arrow's own (pd.ArrowDtype: nulls kept, integers
    exact, timestamps in their unit), dictionaries as categoricals."""
    return None if _pa().types.is_dictionary(t) else pd.ArrowDtype(t)


def frame(df, name, columns):
    """A DataFrame input as a pandas DataFrame: a pandas DataFrame as it is; a pyarrow Table, RecordBatch
    or any producer of an Arrow stream (__arrow_c_stream__) with its columns as pd.ArrowDtype. TypeError
    for anything else, naming the columns wanted (columns: text such as "timestamp, price")."""
    if isinstance(df, pd.DataFrame):
        return df
    if is_frame(df):
        pa = _pa()
        t = df if isinstance(df, pa.Table) else pa.table(df)
        return t.to_pandas(types_mapper=_arrow_types)
    hint = ": give series.to_frame() or a DataFrame of the columns" if isinstance(df, pd.Series) else ""
    raise TypeError(f"{name} must be a pandas DataFrame or a pyarrow Table with the columns {columns}, not "
                    f"{type(df).__name__}{hint}")


def column(df, name, default, required=True):
    """The column of df named name (default when None), matched case-insensitively as the CSV reader
    matches the header; None when absent and not required. KeyError when missing, ValueError when two
    columns match."""
    want = (name if name is not None else default).lower()
    hits = [c for c in df.columns if isinstance(c, str) and c.lower() == want]
    if len(hits) > 1:
        raise ValueError(f"duplicate column '{show(want)}': {hits}")
    if not hits:
        if required or name is not None:
            raise KeyError(f"missing column '{show(name if name is not None else default)}'")
        return None
    return hits[0]


def _objects(col):
    """A column's values as a numpy object array (None for a missing value of an Arrow column)."""
    if isinstance(col.dtype, pd.ArrowDtype):
        return np.array(col.array.__arrow_array__().to_pylist(), dtype=object)
    return col.to_numpy(dtype=object)


def symbols(col, what="symbol"):
    """Codes (int64, per row) and names (UTF-8 bytes, in order of first appearance) of a symbol column.
    Refused with ValueError naming the row (the DataFrame's 0-based position): a missing symbol (NaN,
    None, a categorical's missing value), symbols of mixed types (1 and "1" would merge as text), a NUL
    byte (C strings end there) or text that is not encodable as UTF-8 (a lone surrogate). Symbols that
    are not strings, all of one type (integers, say), are named by str()."""
    if isinstance(col.dtype, pd.ArrowDtype):
        col = pd.Series(_objects(col))
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


def symbol_runs(col, command, what="symbol"):
    """symbols(col) and the offsets (int64, nruns + 1) of its runs of rows; ValueError naming the row where a
    symbol comes back after others (a symbol's rows must be contiguous, as in `command`'s input)."""
    codes, names = symbols(col, what)
    n = codes.size
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]]) if n else np.zeros(0, np.int64)
    seen = codes[starts]
    if np.unique(seen).size != seen.size:
        _, first = np.unique(seen, return_index=True)
        r = int(starts[np.setdiff1d(np.arange(seen.size), first).min()])
        raise ValueError(f"row {r}: {what} {names[codes[r]].decode()!r} again, after other {what}s: the rows of a "
                         f"{what} must be contiguous (as in `{command}`'s input)")
    return codes, names, np.r_[starts, n].astype(np.int64)


# Years 0001 to 9999 in microseconds since 1970-01-01T00:00:00 (raid_ticks_push's range).
_T_MIN = -62135596800000000
_T_MAX = 253402300799999999


def is_timestamps(col):
    """Whether a column holds timestamps (datetime64, naive or tz-aware, or Arrow timestamps)."""
    if isinstance(col.dtype, pd.ArrowDtype):
        return _pa().types.is_timestamp(col.dtype.pyarrow_dtype)
    return pd.api.types.is_datetime64_any_dtype(col.dtype)


def is_text(col):
    """Whether a column holds text (str, object, string, Arrow string) rather than numbers or dates."""
    if isinstance(col.dtype, pd.ArrowDtype):
        pa = _pa()
        t = col.dtype.pyarrow_dtype
        return pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t)
    return col.dtype == object or isinstance(col.dtype, pd.StringDtype)


def timestamps_us(col, name, accepted):
    """A timestamp column as int64 microseconds since 1970-01-01T00:00:00 and whether they are UTC instants:
    naive datetime64 are local wall-clock times, tz-aware ones (and Arrow timestamps with a zone) UTC
    instants; from the column's own unit (s, ms, us, ns: no detour through ns, which wraps outside
    1677-2262), fractions below a microsecond truncated as the CSV reader truncates them. DtypeError for a
    column of another kind (accepted: what the call takes, for the message); ValueError naming the row for
    a missing time or a time outside the years 0001 to 9999."""
    if not is_timestamps(col):
        raise DtypeError(f"column {name!r} must be {accepted}, not {col.dtype}: parse it first "
                         f"(pd.read_csv(..., parse_dates=[{name!r}]) or pd.to_datetime)")
    if isinstance(col.dtype, pd.ArrowDtype):
        pa = _pa()
        a = _arrow_array(col.array.__arrow_array__())
        t = a.type
        utc = t.tz is not None
        if a.null_count:
            raise ValueError(f"row {int(np.flatnonzero(a.is_null().to_numpy(zero_copy_only=False))[0])}: missing "
                             "timestamp (null)")
        v = a.cast(pa.int64()).to_numpy().view(f"datetime64[{t.unit}]")
    else:
        utc = isinstance(col.dtype, pd.DatetimeTZDtype)
        v = (col.dt.tz_convert(None) if utc else col).to_numpy()
    unit, count = np.datetime_data(v.dtype)
    i = v.view(np.int64)
    nat = np.isnat(v)
    if nat.any():
        raise ValueError(f"row {int(np.flatnonzero(nat)[0])}: missing timestamp (NaT)")
    per = np.timedelta64(count, unit) / np.timedelta64(1, "us")  # microseconds per tick of the unit
    if per >= 1:
        f = int(per)
        out = (i < -(-_T_MIN // f)) | (i > _T_MAX // f)
        if out.any():
            r = int(np.flatnonzero(out)[0])
            raise ValueError(f"row {r}: timestamp {v[r]} outside the years 0001 to 9999")
        return np.ascontiguousarray(i * f), utc
    return np.ascontiguousarray(i // int(round(1 / per))), utc


def texts(col, what):
    """A column of text as Python str per row, for the library's parsers: datetime objects in an object
    column (pandas makes those for mixed offsets) by isoformat(). ValueError naming the row for a missing
    value, a value that is neither text nor a datetime, a NUL byte or text not encodable as UTF-8."""
    out = []
    for r, v in enumerate(_objects(col)):
        if isinstance(v, str):
            pass
        elif isinstance(v, datetime.datetime) and not pd.isna(v):
            v = v.isoformat()
        elif v is None or (isinstance(v, float) and v != v) or v is pd.NaT or v is pd.NA:
            raise ValueError(f"row {r}: missing {what}")
        else:
            raise ValueError(f"row {r}: {what} {v!r} of type {type(v).__name__} (expected ISO 8601 text or a "
                             "datetime64 column)")
        if "\0" in v:
            raise ValueError(f"row {r}: {what} {v!r} holds a NUL byte")
        out.append(v)
    return out


def c_strings(values, what, rows=None):
    """NUL-terminated UTF-8 copies of strings for the library (keep the result alive) and a char ** to them.
    ValueError naming the row for text not encodable as UTF-8 (rows: the row numbers of values)."""
    joined = "\0".join(values) + "\0"
    try:
        buf = joined.encode("utf-8")
    except UnicodeEncodeError:
        for k, t in enumerate(values):
            try:
                t.encode("utf-8")
            except UnicodeEncodeError as e:
                r = k if rows is None else rows[k]
                raise ValueError(f"row {r}: {what} {t!r} is not valid Unicode text ({e.reason})") from None
        raise
    ends = np.flatnonzero(np.frombuffer(buf, dtype=np.uint8) == 0)
    cbuf = ffi.from_buffer("char[]", buf)
    starts = np.concatenate([[0], ends[:-1] + 1]).astype(np.uint64)
    ptrs = starts + np.uint64(int(ffi.cast("uintptr_t", cbuf)))
    return (buf, cbuf, ptrs), ffi.cast("char **", ffi.from_buffer(ptrs))


def datetimes(col):
    """A column of datetime64 (naive or tz-aware), Arrow timestamps or Arrow dates as pandas datetimes (a
    Series of datetime64); None for a column of anything else."""
    if isinstance(col.dtype, pd.ArrowDtype):
        pa = _pa()
        t = col.dtype.pyarrow_dtype
        if not (pa.types.is_timestamp(t) or pa.types.is_date(t)):
            return None
        a = _arrow_array(col.array.__arrow_array__())
        return pd.Series(pd.DatetimeIndex(a.to_pandas() if pa.types.is_timestamp(t) else a.to_numpy(zero_copy_only=False)))
    if isinstance(col.dtype, pd.PeriodDtype):
        return col.dt.to_timestamp()
    return col if pd.api.types.is_datetime64_any_dtype(col.dtype) else None


def date_labels(col, what="date"):
    """Dates as text labels: datetimes (datetimes()) as "YYYY-MM-DD" when every one is a midnight, else ISO
    8601 with the time; text as given; other values by str(). ValueError naming the row for a missing date
    or a NUL byte."""
    col = col if isinstance(col, pd.Series) else pd.Series(col)
    dt = datetimes(col)
    if dt is not None:
        idx = pd.DatetimeIndex(dt)
        if idx.isna().any():
            raise ValueError(f"row {int(np.flatnonzero(idx.isna())[0])}: missing {what}")
        if (idx == idx.normalize()).all():
            return list(idx.strftime("%Y-%m-%d"))
        return [t.isoformat() for t in idx]
    out = []
    for r, v in enumerate(_objects(col)):
        if v is None or v is pd.NaT or v is pd.NA or isinstance(v, float) and v != v:
            raise ValueError(f"row {r}: missing {what}")
        s = v if isinstance(v, str) else str(v)
        if "\0" in s:
            raise ValueError(f"row {r}: {what} {s!r} holds a NUL byte")
        out.append(s)
    return out


def index_labels(idx):
    """The labels of a Series's index when it holds dates or text (date_labels), else None (a RangeIndex)."""
    s = pd.Series(idx.to_timestamp() if isinstance(idx, pd.PeriodIndex) else idx)
    if datetimes(s) is not None or len(s) and all(isinstance(v, str) for v in _objects(s)):
        return date_labels(s)
    return None
