"""Input that the bindings would otherwise convert inexactly is refused, not rounded: integers that are not
exactly float64 (int64 past 2**53 does not survive a cast) to raid.sort/argsort/kth/median/quantile/topk/
min/max and group-by values, bar prices and sizes (a DtypeError, TypeError and ValueError, naming the row),
other non-float arrays (bool, object, str, complex: TypeError), uint64 keys past int64 and float offsets
or pair keys (ValueError: no wrapping, no truncation), text prices and a Series for a DataFrame
(TypeError), topk with k < 0. Integers exact in float64 are taken by every function alike (the values
rule of docs/python.md "Inputs"; test_inputs_table.py has every kind against every entry point)."""
import numpy as np
import pandas as pd
import pytest

import raid

BIG = np.array([2 ** 53 + 1, 2 ** 53, 2 ** 63 - 1, 2 ** 63 - 2])  # float64 would merge each pair
REFUSED = {"bool": np.array([True, False]), "object": np.array([1.5, 0.5], dtype=object),
           "str": np.array(["1.5", "0.5"]), "complex": np.array([1 + 0j])}
# integers: refused where a value is not exactly a float64 (naming the row), taken where every one is
INEXACT = {"int64": BIG, "uint64": BIG.astype(np.uint64), "int Series": pd.Series(BIG)}
TAKEN = {"int32": np.array([3, 1, 2], dtype=np.int32), "int list": [3, 1, 2]}
ONE_ARRAY = {"sort": raid.sort, "argsort": raid.argsort, "median": raid.median, "min": raid.min, "max": raid.max,
             "kth": lambda x: raid.kth(x, 0), "quantile": lambda x: raid.quantile(x, 0.5),
             "topk": lambda x: raid.topk(x, 1), "groupby values": lambda x: raid.groupby(np.zeros(len(x), np.int64), x)}


@pytest.mark.parametrize("fn", ONE_ARRAY)
@pytest.mark.parametrize("kind", REFUSED)
def test_non_float_refused(fn, kind):
    with pytest.raises(TypeError, match=r"must be real floating .*not dtype .*: convert it explicitly, e\.g\. "
                                        r"(x|values)\.astype\(np\.float64\) \(exact for integers only up to 2\*\*53"):
        ONE_ARRAY[fn](REFUSED[kind])


@pytest.mark.parametrize("fn", ONE_ARRAY)
@pytest.mark.parametrize("kind", INEXACT)
def test_inexact_integers_refused(fn, kind):
    with pytest.raises(TypeError, match=r"^row 0: (x|values) 9007199254740993 is not exactly representable as float64 "
                                        r"\(integers are exact only up to 2\*\*53 in magnitude; dtype u?int64\): "
                                        r"convert it explicitly if rounding is meant$"):
        ONE_ARRAY[fn](INEXACT[kind])


@pytest.mark.parametrize("fn", ONE_ARRAY)
@pytest.mark.parametrize("kind", TAKEN)
def test_exact_integers_taken(fn, kind):
    got, want = ONE_ARRAY[fn](TAKEN[kind]), ONE_ARRAY[fn](np.array(TAKEN[kind], dtype=np.float64))
    if isinstance(want, pd.DataFrame):
        pd.testing.assert_frame_equal(got, want)
    else:
        assert np.array_equal(got, want) and np.asarray(got).dtype == np.asarray(want).dtype


def test_wrong_answer_gone():
    """The tester's case: argsort of int64 past 2**53 gave [0, 1, 2, 3] (numpy: [1, 0, 3, 2])."""
    with pytest.raises(TypeError, match="int64"):
        raid.argsort(BIG)
    # what the message asks for: an explicit conversion, whose rounding is then the caller's
    x = BIG.astype(np.float64)
    assert np.array_equal(raid.argsort(x, device="cpu"), np.argsort(x, kind="stable"))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_exact_floats_taken(dtype):
    x = np.array([3.5, -0.0, 0.0, np.nan, 1e-3, -2.25], dtype=dtype)
    w = x.astype(np.float64)
    assert np.array_equal(raid.sort(x, device="cpu"), np.sort(w, kind="stable"), equal_nan=True)
    assert np.array_equal(raid.argsort(x, device="cpu"), np.argsort(w, kind="stable"))
    assert raid.min(x, skipna=True, device="cpu") == np.nanmin(w)
    assert raid.kth(x[[0, 1, 4, 5]], 1, device="cpu") == np.partition(w[[0, 1, 4, 5]], 1)[1]
    g = raid.groupby(np.array([1, 1, 2, 2, 2, 2]), np.nan_to_num(x), device="cpu")
    assert g["sum"].tolist() == [3.5, 1e-3 - 2.25 if dtype == np.float64 else float(w[4]) + float(w[5])]


def test_integer_offsets_and_keys():
    x = np.array([3.0, 2.0, 1.0, 0.0])
    for bad in ([0.5, 3], np.array([0.0, 4.0]), np.array([0, 2 ** 63], dtype=np.uint64), [False, True]):
        with pytest.raises(ValueError, match="offsets"):
            raid.sort(x, offsets=bad)
        with pytest.raises(ValueError, match="offsets"):
            raid.argsort(x, offsets=bad)
        with pytest.raises(ValueError, match="offsets"):
            raid.median(x, offsets=bad)
    # integer offsets of any integer dtype still work
    assert raid.sort(x, offsets=np.array([0, 2, 4], dtype=np.int32), device="cpu").tolist() == [2.0, 3.0, 0.0, 1.0]
    assert raid.median(x, offsets=np.array([0, 2, 4], dtype=np.uint8), device="cpu").tolist() == [2.5, 0.5]
    with pytest.raises(ValueError, match="keys must be integers, not dtype float64"):
        raid.sort_pairs([3.5, 1.0], [1.0, 2.0])
    k, v = raid.sort_pairs([3, 1], [1, 2], device="cpu")  # integer values exact in float64: taken
    assert k.tolist() == [1, 3] and v.tolist() == [2.0, 1.0] and v.dtype == np.float64
    with pytest.raises(TypeError, match="row 0: values 9007199254740993 is not exactly representable"):
        raid.sort_pairs([3, 1], [2 ** 53 + 1, 2])
    k, v = raid.sort_pairs(np.array([3, 1], dtype=np.int32), [1.0, 2.0], device="cpu")
    assert k.tolist() == [1, 3] and v.tolist() == [2.0, 1.0]


def test_topk_negative_k():
    x = np.arange(5.0)
    for k in (-1, -5):
        with pytest.raises(ValueError, match=f"^k must be >= 0, not {k}$"):
            raid.topk(x, k)
        with pytest.raises(ValueError, match=f"^k must be >= 0, not {k}$"):
            raid.topk(x, k, offsets=[0, 2, 5])
    assert raid.topk(x, 0, device="cpu").size == 0


def test_groupby_keys_and_values():
    with pytest.raises(ValueError, match="keys: 18446744073709551615 is out of range for int64"):
        raid.groupby(np.array([1, 2 ** 64 - 1], dtype=np.uint64), [1.0, 2.0])
    with pytest.raises(ValueError, match="out of range for int64"):
        raid.groupby([1, 2 ** 63], [1.0, 2.0])
    # uint64 keys inside int64 are taken as they are
    g = raid.groupby(np.array([2 ** 63 - 1, 5, 2 ** 63 - 1], dtype=np.uint64), [1.0, 2.0, 3.0], device="cpu")
    assert g.index.tolist() == [5, 2 ** 63 - 1] and g["sum"].tolist() == [2.0, 4.0]
    # the tester's case: 2**53 + 1 and 1 as int64 summed to 2**53 (the values were cast first)
    with pytest.raises(TypeError, match="row 0: values 9007199254740993 is not exactly representable .* int64"):
        raid.groupby([1, 1], np.array([2 ** 53 + 1, 1]))
    # count needs no values; float32 values convert exactly
    assert raid.groupby([1, 1], None, aggs="count")["count"].tolist() == [2]
    assert raid.groupby([1, 1], np.array([0.1, 0.2], np.float32), device="cpu")["sum"].tolist() == \
        [float(np.float64(np.float32(0.1)) + np.float64(np.float32(0.2)))]


def trades(price, size=None):
    df = pd.DataFrame({"timestamp": pd.to_datetime(["2024-01-02T10:00:00", "2024-01-02T10:00:30",
                                                    "2024-01-02T10:01:00"]), "price": price})
    if size is not None:
        df["size"] = size
    return df


def test_bars_exact_columns():
    want = raid.bars(trades([10.0, 11.0, 12.0], [1.0, 2.0, 3.0]), "1min", device="cpu")
    # integer columns whose every value is a float64 are taken (2**60 is one)
    got = raid.bars(trades(np.array([10, 11, 12]), np.array([1, 2, 3], dtype=np.uint32)), "1min", device="cpu")
    pd.testing.assert_frame_equal(got, want)
    big = raid.bars(trades([10.0, 11.0, 12.0], np.array([2 ** 60, 0, 2 ** 53], dtype=np.int64)), "1min", device="cpu")
    assert big["volume"].tolist() == [2.0 ** 60, 2.0 ** 53]
    for size, row, v in [(np.array([1, 2 ** 53 + 1, 3]), 1, 2 ** 53 + 1),
                         (np.array([2 ** 63 - 1, 1, 1]), 0, 2 ** 63 - 1),
                         (np.array([1, 1, 2 ** 64 - 1], dtype=np.uint64), 2, 2 ** 64 - 1)]:
        with pytest.raises(ValueError, match=f"row {row}: size {v} is not exactly representable as float64"):
            raid.bars(trades([10.0, 11.0, 12.0], size), "1min")
    with pytest.raises(ValueError, match="row 2: price 9007199254740993 is not exactly representable"):
        raid.bars(trades(np.array([1, 2, 2 ** 53 + 1])), "1min")
    for price in (["10", "11", "12"], [True, True, True], pd.array([10.0, None, 12.0], dtype=object)):
        with pytest.raises(TypeError, match="price must be real floating"):
            raid.bars(trades(price), "1min")
    with pytest.raises(TypeError, match="size must be real floating"):
        raid.bars(trades([10.0, 11.0, 12.0], ["1", "2", "3"]), "1min")
    with pytest.raises(TypeError, match="trades must be a pandas DataFrame .* not Series: give series.to_frame"):
        raid.bars(trades([10.0, 11.0, 12.0])["price"], "1min")
    with pytest.raises(TypeError, match="not dict"):
        raid.bars({"timestamp": [], "price": []}, "1min")


def test_realized_from_prices_price_column():
    df = pd.DataFrame({"symbol": "A", "timestamp": pd.to_datetime(["2024-01-02T10:00:00", "2024-01-02T10:05:00",
                                                                   "2024-01-02T10:10:00"]), "price": [100, 101, 100]})
    a = raid.realized_from_prices(df, device="cpu")
    pd.testing.assert_frame_equal(a, raid.realized_from_prices(df.assign(price=df["price"] * 1.0), device="cpu"))
    with pytest.raises(TypeError, match="price must be real floating"):
        raid.realized_from_prices(df.assign(price=df["price"].astype(str)), device="cpu")


def test_session_message_is_the_librarys():
    """One message for a bad session: raid_parse_session's, in Python as in both CLIs."""
    df = trades([10.0, 11.0, 12.0])
    want = "bad session '25:00-26:00' (expected HH:MM-HH:MM, the start to 23:59, the end to 24:00)"
    with pytest.raises(raid.RaidError) as e:
        raid.bars(df, "1min", session="25:00-26:00")
    assert e.value.message == want
    with pytest.raises(raid.RaidError) as e:
        raid.realized_from_prices(df.assign(symbol="A"), session="25:00-26:00")
    assert e.value.message == want


MA_SWEEP = {"ma": lambda x: raid.ma(x, "mean", 2, device="cpu"),
            "sweep": lambda x: raid.sweep(x, fast=(2, 2, 1), slow=(3, 3, 1), device="cpu")}


@pytest.mark.parametrize("fn", MA_SWEEP)
def test_ma_sweep_inexact_refused(fn):
    """raid.ma and raid.sweep took any column through a silent float64 cast: int64 past 2**53 was rounded,
    text parsed. Now exact integers are taken, the rest refused naming the row or the dtype."""
    with pytest.raises(ValueError, match=r"row 0: x 9007199254740993 is not exactly representable as float64"):
        MA_SWEEP[fn](BIG)
    with pytest.raises(ValueError, match=r"row 0: close 9007199254740993 is not exactly"):
        MA_SWEEP[fn](pd.DataFrame({"close": BIG}))
    for bad in (REFUSED["str"], REFUSED["bool"], REFUSED["object"], pd.Series(["1.5", "2.5"])):
        with pytest.raises(TypeError, match="must be real floating"):
            MA_SWEEP[fn](bad)


def test_ma_sweep_exact_inputs_taken():
    ints = np.array([100, 101, 103, 102, 104, 107], dtype=np.int64)
    f = ints.astype(np.float64)
    assert np.array_equal(raid.ma(ints, "mean", 2, device="cpu"), raid.ma(f, "mean", 2, device="cpu"), equal_nan=True)
    nullable = pd.Series([100.0, None, 103.0, 102.0], dtype="Float64")
    got = raid.ma(nullable, "mean", 1, device="cpu")
    assert np.isnan(got.iloc[1]) and got.iloc[2] == 103.0
    a = raid.sweep(ints, fast=(2, 2, 1), slow=(3, 3, 1), device="cpu")
    b = raid.sweep(f, fast=(2, 2, 1), slow=(3, 3, 1), device="cpu")
    pd.testing.assert_frame_equal(a if isinstance(a, pd.DataFrame) else a[0], b if isinstance(b, pd.DataFrame) else b[0])
