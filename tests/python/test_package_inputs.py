"""The package's input rules, applied alike across functions: pandas nullable integers follow their numpy
dtype's rule (never a silent float64 cast), a string q is refused, 0-d input is refused by every array
function, big-endian arrays are converted, a repeated aggregation is refused (as the CLI), raid.bars takes
a timedelta interval, and integers are taken where exact in float64 by every function (the values rule;
test_inputs_table.py has every input kind against every entry point)."""
import datetime

import numpy as np
import pandas as pd
import pytest

import raid

BIG = 2 ** 53 + 1


def test_nullable_integers():
    na = pd.Series([BIG, None, 3], dtype="Int64")
    full = pd.Series([5, 1, 3], dtype="Int64")
    for f in (raid.sort, raid.argsort, raid.median, lambda x: raid.quantile(x, 0.5)):
        with pytest.raises(TypeError, match="row 0: x 9007199254740993 .* int64"):  # not the float64 cast (2**53)
            f(na)
        # exact integers: the answer of their float64 values, as every function takes them
        assert np.array_equal(np.asarray(f(full)), np.asarray(f(pd.Series([5.0, 1.0, 3.0], dtype="Float64"))))
    with pytest.raises(TypeError):
        raid.groupby(np.array([1, 1, 2]), na)
    with pytest.raises(ValueError, match="row 1: keys is NA"):  # an NA key: not a float key rounding BIG
        raid.groupby(na, np.array([1.0, 2.0, 3.0]))
    g = raid.groupby(pd.Series([BIG, BIG - 2, BIG], dtype="Int64"), np.array([1.0, 2.0, 3.0]))
    assert g.index.tolist() == [BIG - 2, BIG] and g["sum"].tolist() == [2.0, 4.0]
    pd.testing.assert_frame_equal(raid.groupby(full, np.ones(3)), raid.groupby(np.array([5, 1, 3]), np.ones(3)))
    # the column functions take integers when exact, NA as NaN (a missing price)
    t = pd.to_datetime(["2020-01-02 09:30:01", "2020-01-02 09:31:01", "2020-01-02 09:36:00"])
    with pytest.raises(ValueError, match="row 0: price 9007199254740993 is not exactly representable"):
        raid.bars(pd.DataFrame({"timestamp": t, "price": na}), "5min")
    pd.testing.assert_frame_equal(raid.bars(pd.DataFrame({"timestamp": t, "price": full}), "5min"),
                                  raid.bars(pd.DataFrame({"timestamp": t, "price": [5.0, 1.0, 3.0]}), "5min"))
    with pytest.raises(raid.RaidError, match="row 1: price nan"):
        raid.bars(pd.DataFrame({"timestamp": t, "price": pd.Series([4, None, 3], dtype="Int64")}), "5min")
    with pytest.raises(ValueError, match="not exactly representable"):
        raid.ma(na, window=2)


def test_quantile_q_must_be_numeric():
    x = np.array([1.0, 2.0])
    for q in ("0.5", ["0.5"], b"0.5", [True]):
        with pytest.raises(TypeError, match="q must be a number"):
            raid.quantile(x, q)
    assert raid.quantile(x, 0.5) == 1.5 and raid.quantile(x, 1) == 2.0


def test_zero_dimensional_refused_alike():
    for f in (raid.sort, raid.argsort, raid.median, lambda x: raid.quantile(x, 0.5), lambda x: raid.kth(x, 0),
              raid.min, lambda x: raid.topk(x, 1)):
        for x in (np.float64(3.0), np.array(3.0), 3.0):
            with pytest.raises(ValueError, match=r"x must be one-dimensional, not of shape \(\)"):
                f(x)


def test_big_endian():
    x = np.array([3.0, -0.0, 1.0, np.nan, 0.0, 2.5])
    be = x.astype(">f8")
    assert raid.sort(be).tobytes() == np.sort(x, kind="stable").tobytes()
    assert raid.argsort(be).tolist() == np.argsort(x, kind="stable").tolist()
    assert np.isnan(raid.median(be)) and raid.median(be[:3]) == 1.0
    assert raid.quantile(x[:3].astype(">f4"), 0.5) == 1.0
    g = raid.groupby(np.array([1, 2, 1], dtype=">i8"), np.array([1.0, 2.0, 3.0], dtype=">f8"))
    assert g.index.tolist() == [1, 2] and g["sum"].tolist() == [4.0, 2.0]


def test_bars_timedelta_interval():
    t = pd.to_datetime(["2020-01-02 09:30:01", "2020-01-02 09:31:01", "2020-01-02 09:36:00", "2020-01-02 09:36:01"])
    df = pd.DataFrame({"timestamp": t, "price": [1.0, 2.0, 3.0, 4.0]})
    for td, text in ((pd.Timedelta("5min"), "5min"), (datetime.timedelta(seconds=90), "90s"),
                     (np.timedelta64(1500, "ms"), "1500ms"), (pd.Timedelta(hours=25), "25h")):
        pd.testing.assert_frame_equal(raid.bars(df, td), raid.bars(df, text))
    for bad in (pd.Timedelta("-5min"), pd.Timedelta(0), pd.Timedelta("1us"), np.timedelta64("NaT")):
        with pytest.raises(ValueError, match="bad interval"):
            raid.bars(df, bad)


def test_integer_columns_rule():
    """Every function takes integers exact in float64 (the values rule: column functions and array
    functions alike), and refuses, naming the row, an integer that is not (past 2**53)."""
    t = pd.to_datetime(["2020-01-02 09:30:01", "2020-01-02 09:31:01"])
    ok = raid.bars(pd.DataFrame({"timestamp": t, "price": np.array([2, 3])}), "5min")
    assert ok["close"].tolist() == [3.0]
    with pytest.raises(ValueError, match="row 1: price"):
        raid.bars(pd.DataFrame({"timestamp": t, "price": np.array([2, BIG])}), "5min")
    assert raid.sort(np.array([3, 2]), device="cpu").tolist() == [2.0, 3.0]
    with pytest.raises(TypeError, match="row 1: x 9007199254740993"):
        raid.sort(np.array([2, BIG]))
