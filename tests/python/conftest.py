"""Fixtures of the Python tests: the package raid (from the build tree: ctest sets PYTHONPATH to
BUILD/python; else build/python of this checkout), the built CLI (RAID_CLI) and the data folder."""
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

try:
    import raid  # noqa: F401
except ImportError:
    build_pkg = ROOT / "build" / "python"
    if not (build_pkg / "raid" / "_raid_ffi.py").exists():
        raise
    sys.path.insert(0, str(build_pkg))
    # Dask's worker processes import raid too
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(build_pkg), os.environ.get("PYTHONPATH")]))


@pytest.fixture(scope="session")
def data_dir():
    d = pathlib.Path(os.environ.get("RAID_DATA_DIR", ROOT / "data"))
    if not (d / "spy_realized_measures.csv").exists():
        pytest.fail(f"no spy_realized_measures.csv in {d} (set RAID_DATA_DIR)")
    return d


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("RAID_CLI")
    if not path:
        default = ROOT / "build" / "raid"
        if not default.exists():
            pytest.fail("set RAID_CLI to the built raid executable")
        path = str(default)
    return path


@pytest.fixture(scope="session")
def have_opencl(cli):
    r = subprocess.run([cli, "devices"], capture_output=True, text=True)
    return r.returncode == 0 and "opencl:" in r.stdout
