#!/usr/bin/env bash
# Create the Python virtual environment of the Python tests (tests/python) in .venv at the repository
# root, from PyPI: numpy, pandas, statsmodels and pytest (the cross-checks); cffi and scikit-build-core
# (building the package raid: python/, pyproject.toml); dask[dataframe] and distributed (the Dask test);
# arch (the GARCH likelihood against Python arch, tests/python/test_garch_lik_arch.py); pyarrow (Arrow
# arrays through the C data interface, tests/python/test_arrow.py; optional for the package itself).
# Idempotent: nothing is done when the venv exists and its packages import. Needs `python3 -m venv`
# (Debian python3-venv, scripts/setup.sh).
# PYTHON may name another interpreter (default python3).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv="$root/.venv"
py=${PYTHON:-python3}

pkgs=(numpy pandas statsmodels pytest cffi scikit-build-core "dask[dataframe]" distributed arch pyarrow)
imports='import numpy, pandas, statsmodels, pytest, cffi, scikit_build_core, dask.dataframe, distributed, arch, pyarrow'

if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "$imports" 2>/dev/null; then
  exit 0
fi

if [ ! -x "$venv/bin/python" ]; then
  echo "raid setup: creating $venv" >&2
  "$py" -m venv "$venv"
fi
echo "raid setup: installing ${pkgs[*]} into $venv" >&2
"$venv/bin/python" -m pip install -q --disable-pip-version-check "${pkgs[@]}"
"$venv/bin/python" -c "$imports"
