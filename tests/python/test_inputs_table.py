"""One table of input kinds against every entry point of the package (docs/python.md "Inputs").

Every entry point converts its arguments through python/raid/_convert.py, so every one takes and refuses
the same kinds with the same messages. The table gives each value input (returns, prices, closes, rv, x,
group-by values) in every kind: numpy dtypes and layouts, lists, pandas Series of numpy and extension
dtypes, numpy masked arrays, pyarrow Arrays, ChunkedArrays and Tables; an accepted kind must give the
answer of the plain float64 numpy input bit for bit, a refused one the same message everywhere. Nulls
(masked entries, pandas NA, pyarrow nulls) are the call's null values where it has them (sort, argsort:
last; selections: skipped; group-by: null rows), NaN where NaN is the column's missing value (ma, har,
garch, sweep, bars, realized_from_prices: the CSV's empty field), else refused naming the row; a masked
array is never read as NaN. Smaller tables do the same for integer arguments (offsets, keys), validity
masks, timestamps, symbols and frames."""
import re

import numpy as np
import pandas as pd
import pytest

import raid

pa = pytest.importorskip("pyarrow")

N = 40
X = 100.0 + np.cumsum(np.where(np.arange(N) % 3 == 0, -2.0, 1.0) + (np.arange(N) % 5 == 0))  # integers < 2048
ROW = 3  # the row made null, or not representable, in the kinds that need one
BIG = 2 ** 53 + 1
TIMES = pd.date_range("2020-01-02 09:30", periods=N, freq="5min").to_numpy()
DATES = [str(d.date()) for d in pd.date_range("2020-01-02", periods=N, freq="D")]


def big(dtype):
    a = X.astype(dtype)
    a[ROW] = BIG
    return a


def with_nan():
    a = X.copy()
    a[ROW] = np.nan
    return a


def masked(nulls):
    m = np.zeros(N, bool)
    if nulls:
        m[ROW] = True
    return np.ma.masked_array(X.copy(), mask=m)


def na_list():
    v = X.tolist()
    v[ROW] = None
    return v


# kind -> (the input made from X, what it is): "same" (X's answer), "null" (X with row ROW null),
# "inexact" (row ROW not a float64), "dtype" (the dtype refused, the message naming it), "shape"
# (not one-dimensional), "masked-null" (a masked array with row ROW masked)
KINDS = {
    "float64": (lambda: X.copy(), "same"),
    "float32": (lambda: X.astype(np.float32), "same"),
    "float16": (lambda: X.astype(np.float16), "same"),
    "int64": (lambda: X.astype(np.int64), "same"),
    "int32": (lambda: X.astype(np.int32), "same"),
    "uint8": (lambda: X.astype(np.uint8), "same"),
    "uint64": (lambda: X.astype(np.uint64), "same"),
    "big-endian float64": (lambda: X.astype(">f8"), "same"),
    "big-endian int64": (lambda: X.astype(">i8"), "same"),
    "non-contiguous": (lambda: np.repeat(X, 2)[::2], "same"),
    "read-only": (lambda: np.frombuffer(X.tobytes()), "same"),
    "list of floats": (lambda: X.tolist(), "same"),
    "list of ints": (lambda: [int(v) for v in X], "same"),
    "tuple": (lambda: tuple(X.tolist()), "same"),
    "Series float64": (lambda: pd.Series(X, index=np.arange(N) * 2), "same"),
    "Series int64": (lambda: pd.Series(X.astype(np.int64)), "same"),
    "Series Float64": (lambda: pd.Series(X, dtype="Float64"), "same"),
    "Series Int64": (lambda: pd.Series(X.astype(np.int64), dtype="Int64"), "same"),
    "Series UInt16": (lambda: pd.Series(X.astype(np.uint16), dtype="UInt16"), "same"),
    "Series double[pyarrow]": (lambda: pd.Series(X, dtype="double[pyarrow]"), "same"),
    "Series int64[pyarrow]": (lambda: pd.Series(X.astype(np.int64), dtype="int64[pyarrow]"), "same"),
    "masked, none masked": (lambda: masked(False), "same"),
    "pyarrow double": (lambda: pa.array(X), "same"),
    "pyarrow float": (lambda: pa.array(X.astype(np.float32)), "same"),
    "pyarrow int64": (lambda: pa.array(X.astype(np.int64)), "same"),
    "pyarrow uint32": (lambda: pa.array(X.astype(np.uint32)), "same"),
    "pyarrow ChunkedArray": (lambda: pa.chunked_array([X[:7], X[7:]]), "same"),
    "pyarrow ChunkedArray int64": (lambda: pa.chunked_array([X[:7].astype(np.int64), X[7:].astype(np.int64)]), "same"),
    # nulls
    "Series Float64 with NA": (lambda: pd.Series(na_list(), dtype="Float64"), "null"),
    "Series Int64 with NA": (lambda: pd.Series(na_list(), dtype="Int64"), "null"),
    "Series double[pyarrow] with NA": (lambda: pd.Series(na_list(), dtype="double[pyarrow]"), "null"),
    "pyarrow double with null": (lambda: pa.array(na_list(), pa.float64()), "null"),
    "pyarrow int64 with null": (lambda: pa.array(na_list(), pa.int64()), "null"),
    "masked": (lambda: masked(True), "masked-null"),
    # not exactly float64
    "int64 past 2**53": (lambda: big(np.int64), "inexact"),
    "uint64 past 2**53": (lambda: big(np.uint64), "inexact"),
    "list of ints past 2**53": (lambda: [BIG if i == ROW else int(v) for i, v in enumerate(X)], "inexact"),
    "Series Int64 past 2**53": (lambda: pd.Series(big(np.int64), dtype="Int64"), "inexact"),
    "pyarrow int64 past 2**53": (lambda: pa.array(big(np.int64)), "inexact"),
    # not numbers
    "bool": (lambda: X > 110, "dtype"),
    "object": (lambda: X.astype(object), "dtype"),
    "str": (lambda: X.astype(str), "dtype"),
    "Series str": (lambda: pd.Series(X.astype(str)), "dtype"),
    "Series boolean": (lambda: pd.Series(X > 110, dtype="boolean"), "dtype"),
    "complex": (lambda: X.astype(complex), "dtype"),
    "longdouble": (lambda: X.astype(np.longdouble), "dtype"),
    "datetime64": (lambda: TIMES.copy(), "dtype"),
    "pyarrow string": (lambda: pa.array(X.astype(str)), "dtype"),
    "pyarrow bool": (lambda: pa.array(X > 110), "dtype"),
    # not one-dimensional
    "0-d": (lambda: np.float64(X[0]), "shape"),
    "2-d": (lambda: X.reshape(20, 2), "shape"),
}
SHAPE = {"0-d": "()", "2-d": "(20, 2)"}


def arrow(x):
    return isinstance(x, (pa.Array, pa.ChunkedArray))


def dtype_name(x, column):
    """How a refused dtype is named: a pyarrow array's type, else the dtype of the Series (or, for an
    entry point that reads a column, of the DataFrame column) or array."""
    if arrow(x):
        return f"pyarrow {x.type}"
    if column or isinstance(x, pd.Series):
        return str(pd.DataFrame({"c": x})["c"].dtype)
    return str(np.asarray(x).dtype)


def frame(x, **cols):
    """A pandas DataFrame of cols and the column x, or a pyarrow Table when x is a pyarrow array."""
    if arrow(x):
        return pa.table({k: pa.array(v) for k, v in cols.items()} | {"__x": x})
    return pd.DataFrame(cols | {"__x": x})


def named(t, name):
    if isinstance(t, pa.Table):
        return t.rename_columns([name if c == "__x" else c for c in t.column_names])
    return t.rename(columns={"__x": name})


KEYS = np.arange(N) % 4
ONES = np.ones(N, bool)

# entry point -> (the call on a value input x, the name messages give x, what a null is for it:
# "valid" its null values, "nan" NaN, "refuse" refused; whether x may be an array that is no column)
ENTRIES = {
    "realized": (lambda x: raid.realized(x, [0, 10, N], device="cpu"), "returns", "refuse", True),
    "realized_from_prices": (lambda x: raid.realized_from_prices(
        named(frame(x, symbol=["A"] * N, timestamp=TIMES), "price"), sample="tick", device="cpu"), "price", "nan", False),
    "returns": (lambda x: raid.returns(
        named(frame(x, symbol=["A"] * N, timestamp=TIMES), "price"), sample="tick", device="cpu"), "price", "nan", False),
    "jumps": (lambda x: raid.jumps(
        named(frame(x, symbol=["A"] * N, timestamp=TIMES), "price"), sample="tick", window=3, all=True, device="cpu"),
        "price", "nan", False),
    "cov": (lambda x: raid.cov(
        named(frame(x, symbol=["A"] * N, timestamp=TIMES), "price"), estimator="rcov", sample="tick", device="cpu"),
        "price", "nan", False),
    "har": (lambda x: raid.har(named(frame(x, symbol=["A"] * N, date=DATES), "rv"), lags=[1, 2], device="cpu"),
            "rv", "nan", False),
    "garch": (lambda x: raid.garch(x, device="cpu", max_iter=50), "returns", "nan", True),
    "garch frame": (lambda x: raid.garch(named(frame(x, symbol=["A"] * N, date=DATES), "ret"), device="cpu",
                                         max_iter=50), "ret", "nan", False),
    "ma": (lambda x: raid.ma(x, "mean", 3, device="cpu"), "x", "nan", True),
    "ma frame": (lambda x: raid.ma(named(frame(x, date=DATES), "close"), "wma", 3, device="cpu"), "close", "nan", False),
    "sweep": (lambda x: raid.sweep(x, fast=(2, 3), slow=(4, 5), device="cpu"), "x", "nan", True),
    "sweep frame": (lambda x: raid.sweep(named(frame(x, symbol=["A"] * N), "close"), fast=(2, 3), slow=(4, 5),
                                         device="cpu"), "close", "nan", False),
    "bars": (lambda x: raid.bars(named(frame(x, timestamp=TIMES), "price"), "15min", device="cpu"), "price", "nan",
             False),
    "sort": (lambda x: raid.sort(x, device="cpu"), "x", "valid", True),
    "argsort": (lambda x: raid.argsort(x, device="cpu"), "x", "valid", True),
    "sort offsets": (lambda x: raid.sort(x, offsets=[0, 10, N], device="cpu"), "x", "valid", True),
    "median": (lambda x: raid.median(x, device="cpu"), "x", "valid", True),
    "quantile": (lambda x: raid.quantile(x, [0.1, 0.5], device="cpu"), "x", "valid", True),
    "quantile offsets": (lambda x: raid.quantile(x, [0, 0.3, 1], offsets=[0, 10, N], device="cpu"), "x", "valid", True),
    "kth": (lambda x: raid.kth(x, 5, device="cpu"), "x", "valid", True),
    "min": (lambda x: raid.min(x, device="cpu"), "x", "valid", True),
    "max": (lambda x: raid.max(x, offsets=[0, 10, N], device="cpu"), "x", "valid", True),
    "topk": (lambda x: raid.topk(x, 4, largest=False, return_index=True, device="cpu"), "x", "valid", True),
    "groupby": (lambda x: raid.groupby(KEYS, x, aggs=["count", "sum", "min", "first"], device="cpu"), "values",
                "valid", True),
    "sort_pairs": (lambda x: raid.sort_pairs(KEYS, x, device="cpu"), "values", "refuse", True),
    "add": (lambda x: raid.add(x, 1.5, device="cpu"), "x", "valid", True),
    "subtract": (lambda x: raid.subtract(x, 2.0, device="cpu"), "x", "valid", True),
    "multiply": (lambda x: raid.multiply(x, x, device="cpu"), "x", "valid", True),
    "divide": (lambda x: raid.divide(x, 3.0, device="cpu"), "x", "valid", True),
    "minimum": (lambda x: raid.minimum(x, 0.5, device="cpu"), "x", "valid", True),
    "maximum": (lambda x: raid.maximum(x, 0.5, device="cpu"), "x", "valid", True),
    "copysign": (lambda x: raid.copysign(x, -1.0, device="cpu"), "x", "valid", True),
    "sqrt": (lambda x: raid.sqrt(x, device="cpu"), "x", "valid", True),
    "negative": (lambda x: raid.negative(x, device="cpu"), "x", "valid", True),
    "absolute": (lambda x: raid.absolute(x, device="cpu"), "x", "valid", True),
    "trunc": (lambda x: raid.trunc(x, device="cpu"), "x", "valid", True),
    "floor": (lambda x: raid.floor(x, device="cpu"), "x", "valid", True),
    "ceil": (lambda x: raid.ceil(x, device="cpu"), "x", "valid", True),
    "rint": (lambda x: raid.rint(x, device="cpu"), "x", "valid", True),
    "eval": (lambda x: raid.eval("a * 2 - 1", device="cpu", a=x), "a", "valid", True),
    "equal": (lambda x: raid.equal(x, 1.0, device="cpu"), "x", "valid", True),
    "not_equal": (lambda x: raid.not_equal(x, 1.0, device="cpu"), "x", "valid", True),
    "less": (lambda x: raid.less(x, 1.0, device="cpu"), "x", "valid", True),
    "less_equal": (lambda x: raid.less_equal(x, 1.0, device="cpu"), "x", "valid", True),
    "greater": (lambda x: raid.greater(x, 1.0, device="cpu"), "x", "valid", True),
    "greater_equal": (lambda x: raid.greater_equal(x, 1.0, device="cpu"), "x", "valid", True),
    "isnan": (lambda x: raid.isnan(x, device="cpu"), "x", "valid", True),
    "isinf": (lambda x: raid.isinf(x, device="cpu"), "x", "valid", True),
    "isfinite": (lambda x: raid.isfinite(x, device="cpu"), "x", "valid", True),
    "arctan2": (lambda x: raid.arctan2(x, 0.5, device="cpu"), "y", "valid", True),
}
# the elementary functions of one operand: the same input rules as raid.sqrt
MATH1 = ("log", "log2", "log10", "log1p", "exp", "exp2", "exp10", "expm1", "sinh", "cosh", "tanh", "sin", "cos",
         "tan", "arcsin", "arccos", "arctan")
for _name in MATH1:
    ENTRIES[_name] = (lambda x, f=getattr(raid, _name): f(x, device="cpu"), "x", "valid", True)


ELEMENTWISE = ("add", "subtract", "multiply", "divide", "minimum", "maximum", "copysign", "sqrt", "negative",
               "absolute", "trunc", "floor", "ceil", "rint", "eval", "equal", "not_equal", "less", "less_equal",
               "greater", "greater_equal", "isnan", "isinf", "isfinite", "arctan2") + MATH1


def null_baseline(entry):
    """The answer of the plain numpy input for X with row ROW null, for an entry point with null values."""
    valid = ONES.copy()
    valid[ROW] = False
    keep = np.flatnonzero(valid)
    if entry == "argsort":
        return raid.argsort(X, valid=valid, device="cpu")
    if entry in ("sort", "sort offsets"):  # the null sorted last (of its segment), masked in the result
        off = [0, 10, N] if entry == "sort offsets" else None
        last = np.zeros(N, bool)
        last[9 if off else N - 1] = True
        return np.ma.masked_array(raid.sort(X, valid=valid, offsets=off, device="cpu"), mask=last)
    if entry == "groupby":
        return raid.groupby(KEYS, X, aggs=["count", "sum", "min", "first"], valid=valid, device="cpu")
    if entry == "topk":
        v, i = raid.topk(X[keep], 4, largest=False, return_index=True, device="cpu")
        return v, keep[i]
    if entry in ELEMENTWISE:  # the plain answer, null at the null row
        return np.ma.masked_array(ENTRIES[entry][0](X.copy()), mask=~valid)
    off = [0, 9, N - 1]  # the segments without the null row
    return {"median": lambda: raid.median(X[keep], device="cpu"),
            "quantile": lambda: raid.quantile(X[keep], [0.1, 0.5], device="cpu"),
            "quantile offsets": lambda: raid.quantile(X[keep], [0, 0.3, 1], offsets=off, device="cpu"),
            "kth": lambda: raid.kth(X[keep], 5, device="cpu"), "min": lambda: raid.min(X[keep], device="cpu"),
            "max": lambda: raid.max(X[keep], offsets=off, device="cpu")}[entry]()


def canon(r):
    """A result in one comparable form: DataFrames by their CSV (the index too when it is named), arrays of
    any kind (numpy, masked, pandas, pyarrow) as (dtype, the values' bytes with nulls zeroed, the nulls)."""
    if isinstance(r, tuple):
        return tuple(canon(v) for v in r)
    if isinstance(r, raid.HarFit):
        return tuple(canon(getattr(r, k)) for k in ("coefs", "forecasts", "losses", "symbols")) + (r.messages,)
    if isinstance(r, pa.Table):
        r = r.to_pandas()
    if isinstance(r, pd.DataFrame):
        return r.reset_index(drop=not r.index.name).to_csv(index=False, float_format="%.17g")
    if isinstance(r, (pa.Array, pa.ChunkedArray)):
        kind = np.int64 if pa.types.is_integer(r.type) else np.bool_ if pa.types.is_boolean(r.type) else np.float64
        return canon(np.ma.masked_array(r.fill_null(kind(0)).to_numpy(zero_copy_only=False).astype(kind),
                                        mask=r.is_null().to_numpy(zero_copy_only=False)))
    if isinstance(r, pd.Series):
        return canon(r.to_numpy())
    if isinstance(r, pd.api.extensions.ExtensionArray):
        kind = np.bool_ if r.dtype == "boolean" else np.float64
        return canon(np.ma.masked_array(r.to_numpy(dtype=kind, na_value=kind(0)), mask=np.asarray(r.isna())))
    m = np.ma.getmaskarray(r)
    d = np.asarray(np.ma.getdata(r))
    return d.dtype.str, np.where(m, np.zeros((), d.dtype), d).tobytes(), m.tobytes()


def outcome(f, x):
    try:
        return "ok", f(x)
    except Exception as e:  # noqa: BLE001 (the table compares the failures too)
        return "error", e


def same_error(a, b):
    return type(a) is type(b) and str(a) == str(b)


CASES = [(e, k) for e in ENTRIES for k in KINDS
         if ENTRIES[e][3] or KINDS[k][1] not in ("shape", "masked-null") and k not in ("0-d", "2-d", "masked, none masked",
                                                                                     "non-contiguous", "read-only")]


@pytest.mark.parametrize("entry,kind", CASES)
def test_value_kinds(entry, kind):
    f, name, nulls, _ = ENTRIES[entry]
    make, what = KINDS[kind]
    x = make()
    st, got = outcome(f, x)
    if arrow(x) and "offsets" in entry or (arrow(x) and entry == "max"):
        # an Arrow array carries its segments: slice it (the Arrow path takes no offsets)
        assert st == "error" and type(got) is ValueError and "offsets is for numpy input" in str(got), got
        return
    if what == "same":
        assert st == "ok", f"{entry} refused {kind}: {got!r}"
        assert canon(got) == canon(f(X.copy()))
    elif what in ("null", "masked-null"):
        word = "null" if "pyarrow" in kind else "NA"
        if nulls == "valid":
            assert st == "ok", f"{entry} refused {kind}: {got!r}"
            assert canon(got) == canon(null_baseline(entry))
        elif nulls == "nan" and what == "null":  # NaN where NaN is the missing value: its answer or error
            st2, want = outcome(f, with_nan())
            assert st == st2, (got, want)
            assert canon(got) == canon(want) if st == "ok" else same_error(got, want)
        elif what == "masked-null":
            assert st == "error" and type(got) is ValueError, got
            assert str(got).startswith(f"row {ROW}: {name} is masked (a numpy masked array): masked arrays are "
                                       "refused where the call has no null values; "), str(got)
        else:
            assert st == "error" and type(got) is ValueError, got
            assert str(got).startswith(f"row {ROW}: {name} is {word} ("), str(got)
    elif what == "inexact":
        assert st == "error" and isinstance(got, ValueError) and isinstance(got, TypeError), got
        assert re.match(rf"row {ROW}: {name} {BIG} is not exactly representable as float64 \(integers are exact only "
                        r"up to 2\*\*53 in magnitude; dtype u?int64\): convert it explicitly if rounding is meant", str(got)), \
            str(got)
    elif what == "dtype":
        assert st == "error" and isinstance(got, TypeError), got
        assert str(got) == (f"{name} must be real floating (float64; float32, float16 and integers exact in float64 are "
                            f"converted), not dtype {dtype_name(x, not ENTRIES[entry][3])}: convert it explicitly, e.g. "
                            f"{name}.astype(np.float64) (exact for integers only up to 2**53 in magnitude)"), str(got)
    elif what == "shape":
        assert st == "error" and type(got) is ValueError, got
        assert str(got) == f"{name} must be one-dimensional, not of shape {SHAPE[kind]}", str(got)


def test_every_entry_point_in_the_table():
    """Every function of the package that takes data is in ENTRIES (a new one must join the table)."""
    takes_data = {"realized", "realized_from_prices", "returns", "jumps", "cov", "har", "garch", "ma", "sweep", "bars", "sort", "argsort",
                  "sort_pairs", "median", "quantile", "kth", "min", "max", "topk", "groupby", "add", "subtract",
                  "multiply", "divide", "minimum", "maximum", "copysign", "sqrt", "negative", "absolute", "trunc",
                  "floor", "ceil", "rint", "eval", "equal", "not_equal", "less", "less_equal", "greater",
                  "greater_equal", "isnan", "isinf", "isfinite", "arctan2"} | set(MATH1)
    assert takes_data <= {e.split()[0] for e in ENTRIES}
    assert takes_data | {"HarFit", "CovResult", "cov_estimators", "RaidError", "RaidNotice", "ffi", "lib", "backend_absent", "devices", "device_name", "measure_names",
                         "sim_options", "simulate", "status_name", "to_csv", "version"} == set(raid.__all__)


def test_empty():
    """An empty input of any kind is the empty float64 array: the same answer, or the same refusal."""
    for entry in ("realized", "garch", "ma", "sweep", "sort", "argsort", "median", "min", "topk", "groupby",
                  "sort_pairs"):
        f = {"realized": lambda x: raid.realized(x, [0, 0], device="cpu"),
             "topk": lambda x: raid.topk(x, 0, device="cpu"),
             "groupby": lambda x: raid.groupby(np.zeros(0, np.int64), x, device="cpu"),
             "sort_pairs": lambda x: raid.sort_pairs(np.zeros(0, np.int64), x, device="cpu")}.get(entry, ENTRIES[entry][0])
        st, want = outcome(f, np.zeros(0))
        for x in ([], np.zeros(0, np.float32), np.zeros(0, np.int64), pd.Series([], dtype="Float64"),
                  pa.array([], pa.float64()), np.ma.masked_array(np.zeros(0))):
            st2, got = outcome(f, x)
            assert st == st2, (entry, x, got, want)
            assert canon(got) == canon(want) if st == "ok" else same_error(got, want), (entry, x, got, want)


# --- integer arguments: offsets and keys -------------------------------------------------------------

OFF = [0, 10, N]
INT_KINDS = {
    "list": (lambda v: list(v), "same"), "int64": (lambda v: np.array(v, np.int64), "same"),
    "int32": (lambda v: np.array(v, np.int32), "same"), "uint8": (lambda v: np.array(v, np.uint8), "same"),
    "uint64": (lambda v: np.array(v, np.uint64), "same"), "big-endian": (lambda v: np.array(v, ">i8"), "same"),
    "Series": (lambda v: pd.Series(v), "same"), "Series Int64": (lambda v: pd.Series(v, dtype="Int64"), "same"),
    "Series int64[pyarrow]": (lambda v: pd.Series(v, dtype="int64[pyarrow]"), "same"),
    "pyarrow int64": (lambda v: pa.array(v, pa.int64()), "same"),
    "pyarrow int8": (lambda v: pa.array(v, pa.int8()), "same"),
    "masked, none masked": (lambda v: np.ma.masked_array(v), "same"),
    "float64": (lambda v: np.array(v, np.float64), "dtype float64"),
    "list of floats": (lambda v: [float(a) for a in v], "dtype float64"),
    "float with a fraction": (lambda v: np.array(v) + 0.5, "dtype float64"),
    "bool": (lambda v: np.array(v) > 0, "dtype bool"), "str": (lambda v: np.array(v).astype(str), "dtype <U21"),
    "object": (lambda v: np.array(v, dtype=object), "dtype object"),
    "pyarrow double": (lambda v: pa.array(v, pa.float64()), "dtype pyarrow double"),
    "Series Int64 with NA": (lambda v: pd.Series([v[0], None, *v[2:]], dtype="Int64"), "row 1: {name} is NA (pandas Int64)"),
    "pyarrow with null": (lambda v: pa.array([v[0], None, *v[2:]], pa.int64()), "row 1: {name} is null (pyarrow int64)"),
    "masked": (lambda v: np.ma.masked_array(v, [0, 1] + [0] * (len(v) - 2)),
               "row 1: {name} is masked (a numpy masked array)"),
    "uint64 past int64": (lambda v: np.array([*v[:-1], 2 ** 63], np.uint64), "{name}: 9223372036854775808 is out of range for int64"),
    "list past int64": (lambda v: [*v[:-1], 2 ** 64], "{name}: 18446744073709551616 is out of range for int64"),
    "2-d": (lambda v: np.array([v, v]), "{name} must be one-dimensional, not of shape (2, {n})"),
    "0-d": (lambda v: np.int64(v[0]), "{name} must be one-dimensional, not of shape ()"),
}
INT_ENTRIES = {
    "realized offsets": (lambda o: raid.realized(X / 1000, o, device="cpu"), "offsets", OFF),
    "ma offsets": (lambda o: raid.ma(X, "sum", 2, offsets=o, device="cpu"), "offsets", OFF),
    "sweep offsets": (lambda o: raid.sweep(X, fast=2, slow=4, offsets=o, device="cpu"), "offsets", OFF),
    "sort offsets": (lambda o: raid.sort(X, offsets=o, device="cpu"), "offsets", OFF),
    "argsort offsets": (lambda o: raid.argsort(X, offsets=o, device="cpu"), "offsets", OFF),
    "median offsets": (lambda o: raid.median(X, offsets=o, device="cpu"), "offsets", OFF),
    "topk offsets": (lambda o: raid.topk(X, 2, offsets=o, device="cpu"), "offsets", OFF),
    "groupby keys": (lambda k: raid.groupby(k, X[:len(OFF)], device="cpu"), "keys", [7, -3, 7]),
    "sort_pairs keys": (lambda k: raid.sort_pairs(k, X[:len(OFF)], device="cpu"), "keys", [7, -3, 7]),
}


@pytest.mark.parametrize("kind", INT_KINDS)
@pytest.mark.parametrize("entry", INT_ENTRIES)
def test_integer_kinds(entry, kind):
    f, name, base = INT_ENTRIES[entry]
    make, what = INT_KINDS[kind]
    if entry.startswith(("groupby", "sort_pairs")) and kind in ("uint8", "uint64", "uint64 past int64"):
        base = [7, 3, 7]  # no negative key in an unsigned dtype
    st, got = outcome(f, make(base))
    if what == "same":
        assert st == "ok", got
        assert canon(got) == canon(f(base))
        return
    if entry == "groupby keys" and kind in ("float64", "list of floats", "float with a fraction", "pyarrow double"):
        return  # float keys are group-by's float64 keys (raid_groupby_compute_f64; test_groupby_f64.py)
    assert st == "error" and isinstance(got, ValueError), got
    if what.startswith("dtype"):
        kinds = "integers or floats" if entry == "groupby keys" else "integers"
        assert isinstance(got, TypeError) and str(got) == f"{name} must be {kinds}, not {what}", str(got)
    else:
        assert str(got).startswith(what.format(name=name, n=len(base))), str(got)


# --- validity masks ----------------------------------------------------------------------------------

V = np.arange(N) % 7 != 3
VALID_KINDS = {"bool": (lambda: V.copy(), True), "list": (lambda: V.tolist(), True),
               "uint8 0/1": (lambda: V.astype(np.uint8), True), "int64 0/1": (lambda: V.astype(np.int64), True),
               "Series bool": (lambda: pd.Series(V), True), "Series boolean": (lambda: pd.Series(V, dtype="boolean"), True),
               "pyarrow bool": (lambda: pa.array(V), True),
               "float": (lambda: V.astype(np.float64), "valid must be booleans (True: valid) or integers 0 and 1, "
                                                           "not dtype float64"),
               "int 2": (lambda: V.astype(np.int64) * 2, "row 0: valid is 2, not 0 or 1"),
               "short": (lambda: V[1:], f"valid must have {N} entries (one per value), not {N - 1}"),
               "with NA": (lambda: pd.Series([None, *V[1:]], dtype="boolean"), "row 0: valid is NA (pandas boolean)"),
               "str": (lambda: V.astype(str), "valid must be booleans (True: valid) or integers 0 and 1, not dtype <U5")}
VALID_ENTRIES = {"sort": lambda v: raid.sort(X, valid=v, device="cpu"),
                 "argsort": lambda v: raid.argsort(X, valid=v, device="cpu"),
                 "groupby": lambda v: raid.groupby(KEYS, X, aggs=["count", "sum"], valid=v, device="cpu")}


@pytest.mark.parametrize("kind", VALID_KINDS)
@pytest.mark.parametrize("entry", VALID_ENTRIES)
def test_validity_kinds(entry, kind):
    make, what = VALID_KINDS[kind]
    st, got = outcome(VALID_ENTRIES[entry], make())
    if what is True:
        assert st == "ok", got
        assert canon(got) == canon(VALID_ENTRIES[entry](V))
    else:
        assert st == "error" and isinstance(got, ValueError) and str(got).startswith(what), str(got)


def test_nulls_and_valid_together():
    """Nulls of the input and valid= are both nulls (either makes a row null)."""
    v = V.copy()
    m = masked(True)
    both = V & (np.arange(N) != ROW)
    assert canon(raid.argsort(m, valid=v, device="cpu")) == canon(raid.argsort(X, valid=both, device="cpu"))
    assert canon(raid.groupby(KEYS, m, valid=v, device="cpu")) == canon(raid.groupby(KEYS, X, valid=both, device="cpu"))


def test_sorted_nulls_keep_the_input_kind():
    """raid.sort of an input with nulls gives its kind back: a masked array (np.ma.sort's), a pandas nullable
    array, a pyarrow array, the nulls last."""
    s = raid.sort(masked(True), device="cpu")
    assert isinstance(s, np.ma.MaskedArray) and np.ma.getmaskarray(s).tolist() == [False] * (N - 1) + [True]
    assert np.array_equal(s.compressed(), np.sort(np.delete(X, ROW)))
    s = raid.sort(pd.Series(na_list(), dtype="Float64"), device="cpu")
    assert isinstance(s, pd.arrays.FloatingArray) and s.isna().tolist() == [False] * (N - 1) + [True]
    s = raid.sort(pa.array(na_list(), pa.int64()), device="cpu")
    assert isinstance(s, pa.DoubleArray) and s.null_count == 1 and s[N - 1].as_py() is None
    assert isinstance(raid.sort(X, device="cpu"), np.ndarray) and isinstance(raid.sort(X.tolist(), device="cpu"), np.ndarray)


# --- timestamps and symbols ---------------------------------------------------------------------------

def ts_frame(t, price=None):
    return pd.DataFrame({"symbol": "A", "timestamp": t, "price": X if price is None else price})


TS_KINDS = {
    "datetime64[ns]": (lambda: TIMES.copy(), True),
    "datetime64[s]": (lambda: TIMES.astype("datetime64[s]"), True),
    "datetime64[us]": (lambda: TIMES.astype("datetime64[us]"), True),
    "tz-aware": (lambda: pd.Series(TIMES).dt.tz_localize("America/New_York").dt.tz_convert("UTC"), "utc"),
    "timestamp[pyarrow]": (lambda: pd.Series(TIMES, dtype=pd.ArrowDtype(pa.timestamp("ms"))), True),
    "timestamp[pyarrow] tz": (lambda: pd.Series(TIMES).dt.tz_localize("America/New_York").astype(
        pd.ArrowDtype(pa.timestamp("us", "America/New_York"))), "zone"),
    "NaT": (lambda: np.where(np.arange(N) == ROW, np.datetime64("NaT"), TIMES), f"row {ROW}: missing timestamp"),
    "int": (lambda: TIMES.astype(np.int64), "int"),
}


@pytest.mark.parametrize("kind", TS_KINDS)
def test_timestamp_kinds(kind):
    """Timestamps: datetime64 of any unit (naive: local wall-clock times; tz-aware: instants), pandas and
    pyarrow alike, in realized_from_prices and bars; NaT refused naming the row; numbers refused."""
    make, what = TS_KINDS[kind]
    calls = {"realized_from_prices": lambda d, tz: raid.realized_from_prices(d, sample="tick", tz=tz, device="cpu"),
             "bars": lambda d, tz: raid.bars(d, "15min", tz=tz, device="cpu")}
    for entry, f in calls.items():
        tz = "America/New_York" if what in ("utc", "zone") else None
        st, got = outcome(lambda d: f(d, tz), ts_frame(make()))
        if what in (True, "utc", "zone"):
            assert st == "ok", (entry, got)
            assert canon(got) == canon(f(ts_frame(TIMES), tz)), entry
            t = pa.table({"symbol": ["A"] * N, "timestamp": pa.array(make()), "price": X})  # and in a pyarrow Table
            assert canon(f(t, tz)) == canon(got), entry
        elif what == "int":
            assert st == "error" and isinstance(got, TypeError), (entry, got)
            assert str(got).startswith("column 'timestamp' must be datetime64"), str(got)
        else:
            assert st == "error" and type(got) is ValueError and str(got).startswith(what), (entry, got)


def test_text_timestamps():
    """ISO 8601 text: parsed by the library where it reads text (realized_from_prices: the CSV reader's
    parser); raid.bars takes datetime64 only and says how to parse."""
    text = pd.Series(TIMES).dt.strftime("%Y-%m-%dT%H:%M:%S")
    want = raid.realized_from_prices(ts_frame(TIMES), sample="tick", device="cpu")
    for t in (text, text.astype(object), text.astype("string[pyarrow]"), pa.array(text)):
        d = ts_frame(t) if not arrow(t) else pa.table({"symbol": ["A"] * N, "timestamp": t, "price": X})
        assert canon(raid.realized_from_prices(d, sample="tick", device="cpu")) == canon(want)
        with pytest.raises(TypeError, match="column 'timestamp' must be datetime64 .* parse it first"):
            raid.bars(d, "15min")


SYM_KINDS = {"str": ["A", "B"], "object": np.array(["A", "B"], dtype=object), "category": pd.Categorical(["A", "B"]),
             "string[pyarrow]": pd.array(["A", "B"], dtype="string[pyarrow]"), "pyarrow string": pa.array(["A", "B"]),
             "pyarrow dictionary": pa.array(["A", "B"]).dictionary_encode()}


@pytest.mark.parametrize("kind", SYM_KINDS)
def test_symbol_kinds(kind):
    """Symbols of every text kind give the same result; a missing one is refused naming the row, in every
    entry point that reads a symbol column."""
    syms = SYM_KINDS[kind]
    half = N // 2

    def col(v):
        if isinstance(v, pa.Array):
            return pa.concat_arrays([v.take(pa.array([0] * half)), v.take(pa.array([1] * half))])
        return pd.Series(v).take([0] * half + [1] * half).reset_index(drop=True)

    calls = {"realized_from_prices": lambda s: raid.realized_from_prices(
                 pd.DataFrame({"symbol": s, "timestamp": TIMES, "price": X}), sample="tick", device="cpu"),
             "har": lambda s: raid.har(pd.DataFrame({"symbol": s, "date": DATES, "rv": X}), lags=[1, 2], device="cpu"),
             "garch": lambda s: raid.garch(pd.DataFrame({"symbol": s, "ret": X / 100}), device="cpu", max_iter=20),
             "ma": lambda s: raid.ma(pd.DataFrame({"symbol": s, "close": X}), "sum", 2, device="cpu"),
             "sweep": lambda s: raid.sweep(pd.DataFrame({"symbol": s, "close": X}), fast=2, slow=4, device="cpu"),
             "bars": lambda s: raid.bars(pd.DataFrame({"symbol": s, "timestamp": TIMES, "price": X}), "15min",
                                         device="cpu")}
    for entry, f in calls.items():
        want = f(col(SYM_KINDS["str"]))
        c = col(syms)
        got = f(c.to_pandas() if isinstance(c, pa.Array) else c)
        assert canon(got) == canon(want), entry
        if isinstance(c, pa.Array):
            missing = pa.concat_arrays([c.slice(0, 1), pa.nulls(1, c.type), c.slice(2)])
            missing = missing.to_pandas()
        else:
            missing = c.astype(object).where(np.arange(N) != 1, None)
        with pytest.raises(ValueError, match="^row 1: missing symbol"):
            f(missing)


# --- frames -------------------------------------------------------------------------------------------

FRAME_ENTRIES = {
    "realized_from_prices": (lambda d: raid.realized_from_prices(d, sample="tick", device="cpu"),
                             {"symbol": ["A"] * N, "timestamp": TIMES, "price": X}),
    "returns": (lambda d: raid.returns(d, sample="tick", device="cpu"), {"symbol": ["A"] * N, "timestamp": TIMES, "price": X}),
    "jumps": (lambda d: raid.jumps(d, sample="tick", window=3, all=True, device="cpu"),
              {"symbol": ["A"] * N, "timestamp": TIMES, "price": X}),
    "har": (lambda d: raid.har(d, lags=[1, 2], device="cpu"), {"symbol": ["A"] * N, "date": DATES, "rv": X}),
    "garch": (lambda d: raid.garch(d, device="cpu", max_iter=20), {"symbol": ["A"] * N, "date": DATES, "ret": X / 100}),
    "ma": (lambda d: raid.ma(d, "ema", 3, device="cpu"), {"symbol": ["A"] * N, "date": DATES, "close": X}),
    "sweep": (lambda d: raid.sweep(d, fast=2, slow=4, device="cpu"), {"symbol": ["A"] * N, "close": X}),
    "bars": (lambda d: raid.bars(d, "15min", device="cpu"), {"symbol": ["A"] * N, "timestamp": TIMES, "price": X}),
}


@pytest.mark.parametrize("entry", FRAME_ENTRIES)
def test_frame_kinds(entry):
    """A pandas DataFrame, one of pyarrow-backed columns, a pyarrow Table, a RecordBatch and any Arrow stream
    give the same result; anything else (a dict, a Series, an array) is a TypeError naming what is taken."""
    f, cols = FRAME_ENTRIES[entry]
    df = pd.DataFrame(cols)
    want = canon(f(df))
    table = pa.Table.from_pandas(df, preserve_index=False)

    class Stream:  # another producer of an Arrow stream (a polars DataFrame, say)
        def __arrow_c_stream__(self, requested_schema=None):
            return table.__arrow_c_stream__(requested_schema)

    for d in (df.convert_dtypes(dtype_backend="pyarrow"), table, table.to_batches()[0], Stream()):
        assert canon(f(d)) == want, type(d)
    if entry in ("realized_from_prices", "har", "bars"):  # (garch takes a dict, ma and sweep a Series)
        for bad in (cols, df.iloc[:, -1], X):
            with pytest.raises(TypeError, match="must be a pandas DataFrame or a pyarrow Table"):
                f(bad)
    with pytest.raises(KeyError, match="missing column"):
        f(table.drop_columns([table.column_names[-1]]))


# --- the reported defects -----------------------------------------------------------------------------

def garch_data():
    r = np.random.default_rng(5).standard_normal(2000) * 0.8
    m = np.ma.masked_array(r.copy(), mask=np.zeros(r.size, bool))
    m[700] = 1e6
    m[700] = np.ma.masked
    return r, m


def test_garch_masked_array_refused():
    """raid.garch fitted a masked array's masked values (a masked 1e6 outlier gave the fit of the series with
    it); now refused as every entry point without null values refuses one, saying what to do."""
    r, m = garch_data()
    with pytest.raises(ValueError, match=r"^row 700: returns is masked .*returns\.compressed\(\)"):
        raid.garch(m, device="cpu")
    with pytest.raises(ValueError, match=r"^row 700: returns is masked"):
        raid.garch({"A": m}, device="cpu")
    fit = raid.garch(m.compressed(), device="cpu")
    assert fit["loglik"][0] == raid.garch(np.delete(np.ma.getdata(m), 700), device="cpu")["loglik"][0]


def test_garch_int64_and_text_refused():
    """raid.garch took int64 past 2**53 (rounded) and text Series (parsed) where raid.realized refused them."""
    x = (X - 110).astype(np.int64)
    x[ROW] = BIG
    for f in (lambda v: raid.garch(v, device="cpu"), lambda v: raid.realized(v, [0, N], device="cpu")):
        with pytest.raises(ValueError, match=rf"^row {ROW}: returns {BIG} is not exactly representable"):
            f(x)
        with pytest.raises(TypeError, match="^returns must be real floating .* not dtype str"):
            f(pd.Series((X - 110).astype(str)))
    with pytest.raises(TypeError, match="^ret must be real floating .* not dtype str"):
        raid.garch(pd.DataFrame({"ret": (X - 110).astype(str)}), device="cpu")


def test_realized_from_prices_pyarrow_table():
    """A pyarrow Table gave KeyError "missing column 'timestamp'" (its .columns are arrays, not names)."""
    df = raid.simulate(nsymbols=2, ndays=2, obs_per_day=30, seed=2)
    want = raid.realized_from_prices(df, sample="tick", device="cpu")
    assert canon(raid.realized_from_prices(pa.Table.from_pandas(df), sample="tick", device="cpu")) == canon(want)


def test_offsets_not_truncated():
    """raid.ma and raid.sweep truncated float offsets (0.5 -> 0) through a silent int64 cast."""
    for f in (lambda o: raid.ma(X, "sum", 2, offsets=o), lambda o: raid.sweep(X, fast=2, slow=4, offsets=o)):
        with pytest.raises(TypeError, match="^offsets must be integers, not dtype float64"):
            f([0, 10.5, N])
