"""The peers of `raid realized` on a tick CSV (bench/bench_csv.sh): polars and pandas pipelines of the same
daily measures from the same file, for one tool and one sampling per process (so that the peak memory
of /usr/bin/time is that pipeline's).

    python bench/peers_realized_csv.py polars|pandas FILE tick|5min [-o OUT.csv]

Each reads symbol,timestamp,price (ISO 8601 timestamps without offset, local time as RAID reads them),
samples per (symbol, date) segment, takes log returns within the segment and computes n, rv, bpv,
rs_neg, rs_pos, rq, tpq, medrv, jump_z, jump_p with docs/measures.md's formulas. 5-minute sampling is
previous-tick on the grid of multiples of 5 minutes after midnight within [first, last] observation of
the segment: each observation goes to the first grid point at or after it, the last one of each grid
point is its price, a grid point after the segment's last observation is dropped. Grid points with no
observation are not filled with the previous price (RAID fills them): on bench/gen_ticks.c's data every
5-minute interval of every segment has ticks, so the returns are the same. Prints the wall time of the
whole pipeline (read, parse, sample, measures, write) on stdout as `seconds S rows R segments G`.
Not a dependency of RAID: polars and pandas come from the user's environment (bench/README.md).
"""
import math
import sys
import time

MU43 = 2 ** (2 / 3) * math.gamma(7 / 6) / math.gamma(1 / 2)
MED_C = math.pi / (6 - 4 * math.sqrt(3) + math.pi)
FIVE_MIN_US = 300_000_000


def jump_columns(rv, bpv, tpq, m):
    import numpy as np
    with np.errstate(all="ignore"):
        z = np.sqrt(m) * (1 - bpv / rv) / np.sqrt((math.pi ** 2 / 4 + math.pi - 5) * np.maximum(1, tpq / bpv ** 2))
        z = np.where((m >= 3) & (rv > 0) & (bpv > 0), z, np.nan)
    p = np.array([0.5 * math.erfc(v / math.sqrt(2)) if v == v else math.nan for v in z])
    return z, p


def run_polars(path, sample, out):
    import polars as pl
    seg = ["symbol", "date"]
    q = pl.scan_csv(path, schema_overrides={"symbol": pl.Utf8, "timestamp": pl.Utf8, "price": pl.Float64})
    q = q.select("symbol", pl.col("timestamp").str.to_datetime("%Y-%m-%dT%H:%M:%S%.f", time_unit="us"), "price")
    q = q.with_columns(pl.col("timestamp").dt.date().alias("date"))
    if sample != "tick":
        us = (pl.col("timestamp") - pl.col("timestamp").dt.truncate("1d")).dt.total_microseconds()
        q = q.with_columns(((us + FIVE_MIN_US - 1) // FIVE_MIN_US).alias("g"), us.alias("us"))
        q = q.group_by(seg + ["g"], maintain_order=True).agg(pl.col("price").last(), pl.col("us").max())
        q = q.with_columns(pl.col("us").max().over(seg).alias("last_us"))
        q = q.filter(pl.col("g") * FIVE_MIN_US <= pl.col("last_us")).sort(seg + ["g"])
    r = pl.col("price").log().diff().over(seg)
    q = q.with_columns(r.alias("r")).drop_nulls("r")
    a = pl.col("r").abs()
    a1, a2 = a.shift(1).over(seg), a.shift(2).over(seg)
    med = pl.when(a2.is_not_null()).then(
        pl.max_horizontal(pl.min_horizontal(a, a1), pl.min_horizontal(pl.max_horizontal(a, a1), a2)))
    q = q.with_columns(a1.alias("a1"), (a ** (4 / 3) * a1 ** (4 / 3) * a2 ** (4 / 3)).alias("tp"), med.alias("med"))
    q = q.group_by(seg, maintain_order=True).agg(
        pl.len().alias("n"),
        (pl.col("r") ** 2).sum().alias("rv"),
        (math.pi / 2 * (pl.col("r").abs() * pl.col("a1")).sum()).alias("bpv"),
        (pl.col("r") ** 2).filter(pl.col("r") < 0).sum().alias("rs_neg"),
        (pl.col("r") ** 2).filter(pl.col("r") > 0).sum().alias("rs_pos"),
        (pl.col("r") ** 4).sum().alias("r4"),
        pl.col("tp").sum().alias("tp"),
        (pl.col("med") ** 2).sum().alias("med2"),
    )
    df = q.collect()
    m = df["n"].cast(pl.Float64)
    df = df.with_columns(
        (m / 3 * df["r4"]).alias("rq"),
        (m * (m / (m - 2)) * MU43 ** -3 * df["tp"]).alias("tpq"),
        (MED_C * (m / (m - 2)) * df["med2"]).alias("medrv"),
    )
    z, p = jump_columns(df["rv"].to_numpy(), df["bpv"].to_numpy(), df["tpq"].to_numpy(), m.to_numpy())
    df = df.with_columns(pl.Series("jump_z", z), pl.Series("jump_p", p))
    df = df.select("symbol", "date", "n", "rv", "bpv", "rs_neg", "rs_pos", "rq", "tpq", "medrv", "jump_z", "jump_p")
    if out:
        df.write_csv(out)
    return int(df["n"].sum()), df.height


def run_pandas(path, sample, out):
    import numpy as np
    import pandas as pd
    df = pd.read_csv(path, usecols=["symbol", "timestamp", "price"], dtype={"symbol": str, "price": "float64"})
    ts = pd.to_datetime(df["timestamp"], format="%Y-%m-%dT%H:%M:%S.%f")
    df = pd.DataFrame({"symbol": df["symbol"], "date": ts.dt.normalize(), "price": df["price"]})
    seg = ["symbol", "date"]
    if sample != "tick":
        us = (ts - df["date"]).to_numpy().astype("timedelta64[us]").astype(np.int64)
        df["g"] = (us + FIVE_MIN_US - 1) // FIVE_MIN_US
        df["us"] = us
        df = df.groupby(seg + ["g"], sort=False).agg(price=("price", "last"), us=("us", "max")).reset_index()
        df = df[df["g"] * FIVE_MIN_US <= df.groupby(seg)["us"].transform("max")]
        df = df.sort_values(seg + ["g"], kind="stable")
    gp = df.groupby(seg, sort=False)
    df["r"] = np.log(df["price"]) - np.log(gp["price"].shift(1))
    df = df.dropna(subset=["r"])
    gr = df.groupby(seg, sort=False)["r"]
    a = df["r"].abs()
    a1 = a.groupby([df["symbol"], df["date"]], sort=False).shift(1)
    a2 = a.groupby([df["symbol"], df["date"]], sort=False).shift(2)
    df = df.assign(r2=df["r"] ** 2, bp=a * a1, tp=(a * a1 * a2) ** (4 / 3), r4=df["r"] ** 4,
                   med2=np.maximum(np.minimum(a, a1), np.minimum(np.maximum(a, a1), a2)) ** 2)
    df["neg"] = np.where(df["r"] < 0, df["r2"], 0.0)
    df["pos"] = np.where(df["r"] > 0, df["r2"], 0.0)
    res = df.groupby(seg, sort=False).agg(n=("r", "size"), rv=("r2", "sum"), bp=("bp", "sum"), rs_neg=("neg", "sum"),
                                            rs_pos=("pos", "sum"), r4=("r4", "sum"), tp=("tp", "sum"),
                                            med2=("med2", "sum")).reset_index()
    del gr
    m = res["n"].astype(float)
    res["bpv"] = math.pi / 2 * res["bp"]
    res["rq"] = m / 3 * res["r4"]
    res["tpq"] = m * (m / (m - 2)) * MU43 ** -3 * res["tp"]
    res["medrv"] = MED_C * (m / (m - 2)) * res["med2"]
    z, p = jump_columns(res["rv"].to_numpy(), res["bpv"].to_numpy(), res["tpq"].to_numpy(), m.to_numpy())
    res["jump_z"], res["jump_p"] = z, p
    res["date"] = res["date"].dt.strftime("%Y-%m-%d")
    res = res[["symbol", "date", "n", "rv", "bpv", "rs_neg", "rs_pos", "rq", "tpq", "medrv", "jump_z", "jump_p"]]
    if out:
        res.to_csv(out, index=False)
    return int(res["n"].sum()), len(res)


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("polars", "pandas") or sys.argv[3] not in ("tick", "5min"):
        sys.exit(__doc__)
    out = sys.argv[5] if len(sys.argv) > 5 and sys.argv[4] == "-o" else None
    t0 = time.perf_counter()
    n, g = (run_polars if sys.argv[1] == "polars" else run_pandas)(sys.argv[2], sys.argv[3], out)
    print(f"seconds {time.perf_counter() - t0:.3f} returns {n} segments {g}")


if __name__ == "__main__":
    main()
