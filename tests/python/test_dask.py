"""Beyond one machine: realized measures of a dataset partitioned by symbol, computed by the package on a
dask.distributed cluster (LocalCluster, two worker processes), equal byte for byte to the single-process
result. On a real cluster the same code runs with Client("scheduler-address") instead of LocalCluster
(docs/python.md)."""
import logging

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from dask.distributed import Client, LocalCluster

import raid


def by_symbol(df, npartitions):
    """A Dask DataFrame of df's rows with each symbol whole in one partition, symbols in order of first
    appearance and the rows of a symbol in their order: the index is the symbol's first-appearance rank
    (a sorted index never splits equal values across partitions)."""
    rank, _ = pd.factorize(df["symbol"], sort=False)
    keyed = df.set_index(pd.Index(rank, name="rank")).sort_index(kind="stable")
    return dd.from_pandas(keyed, npartitions=npartitions, sort=True)


def measures(part, **kw):
    return raid.realized_from_prices(part.reset_index(drop=True), **kw)


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=logging.ERROR) as cluster, Client(cluster) as c:
        yield c
    # leaving the blocks closed the client, the workers and the scheduler
    assert cluster.status.name == "closed"


def datasets(data_dir):
    yield "onemin", pd.read_csv(data_dir / "onemin_stock_market.csv"), 2, {}
    sim = raid.simulate(seed=11, nsymbols=6, ndays=3, obs_per_day=4681, noise_sd=2e-5)
    yield "simulated", sim, 3, {"sample": "1min"}


@pytest.mark.parametrize("device,precision", [("cpu", "df"), ("opencl", "df"), ("opencl", "f32")])
def test_dask_equals_single_process(client, data_dir, have_opencl, device, precision):
    if device == "opencl" and not have_opencl:
        pytest.skip("no OpenCL device")
    assert len(client.scheduler_info()["workers"]) == 2
    for name, df, nparts, kw in datasets(data_dir):
        kw = dict(kw, device=device, precision=precision)
        single = raid.realized_from_prices(df, **kw)
        ddf = by_symbol(df, nparts)
        assert ddf.npartitions == nparts
        meta = single.iloc[:0]
        dist = ddf.map_partitions(measures, **kw, meta=meta).compute()
        assert len(dist) == len(single) > 0
        assert raid.to_csv(dist) == raid.to_csv(single), name
        # every symbol's rows went to exactly one partition
        assert dist["symbol"].drop_duplicates().tolist() == single["symbol"].drop_duplicates().tolist()


def test_partitions_ran_on_both_workers(client, data_dir):
    from dask.distributed import get_worker

    df = raid.simulate(seed=5, nsymbols=4, ndays=2, obs_per_day=391)
    ddf = by_symbol(df, 4)
    where = ddf.map_partitions(lambda p: pd.DataFrame({"worker": [get_worker().address]}),
                               meta=pd.DataFrame({"worker": pd.Series([], dtype=object)})).compute()
    assert len(where) == 4
    assert np.all(where["worker"].isin(list(client.scheduler_info()["workers"])))


def test_threads_share_nothing(have_opencl):
    """Threads (Dask's threaded workers) each get their own library context: concurrent calls give the
    single-threaded bytes."""
    from concurrent.futures import ThreadPoolExecutor

    df = raid.simulate(seed=13, nsymbols=2, ndays=2, obs_per_day=2341)
    runs = ([("cpu", "df"), ("opencl", "df"), ("opencl", "f32")] if have_opencl else [("cpu", "df")]) * 2
    want = {r: raid.to_csv(raid.realized_from_prices(df, device=r[0], precision=r[1])) for r in set(runs)}
    with ThreadPoolExecutor(max_workers=4) as ex:
        got = list(ex.map(lambda r: raid.to_csv(raid.realized_from_prices(df, device=r[0], precision=r[1])), runs))
    assert got == [want[r] for r in runs]
