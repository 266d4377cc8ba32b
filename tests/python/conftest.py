"""Fixtures of the statsmodels cross-checks: the shared library (RAID_LIB) and the data folder."""
import os
import pathlib
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from raid_ctypes import Raid  # noqa: E402


@pytest.fixture(scope="session")
def raid():
    path = os.environ.get("RAID_LIB")
    if not path:
        default = HERE.parents[1] / "build" / "libraid.so"
        if not default.exists():
            pytest.fail("set RAID_LIB to the built shared library (e.g. build/libraid.so)")
        path = str(default)
    r = Raid(path)
    yield r
    r.close()


@pytest.fixture(scope="session")
def data_dir():
    d = pathlib.Path(os.environ.get("RAID_DATA_DIR", HERE.parents[1] / "data"))
    if not (d / "spy_realized_measures.csv").exists():
        pytest.fail(f"no spy_realized_measures.csv in {d} (set RAID_DATA_DIR)")
    return d
