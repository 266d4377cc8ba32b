#!/usr/bin/env bash
# Create the Python virtual environment of the statsmodels cross-checks (tests/python) in .venv at the
# repository root: numpy, pandas, statsmodels and pytest from PyPI. Idempotent: nothing is done when the
# venv exists and its packages import. Needs `python3 -m venv` (Debian python3-venv, scripts/setup.sh).
# PYTHON may name another interpreter (default python3).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv="$root/.venv"
py=${PYTHON:-python3}

if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import numpy, pandas, statsmodels, pytest' 2>/dev/null; then
  exit 0
fi

if [ ! -x "$venv/bin/python" ]; then
  echo "raid setup: creating $venv" >&2
  "$py" -m venv "$venv"
fi
echo "raid setup: installing numpy pandas statsmodels pytest into $venv" >&2
"$venv/bin/python" -m pip install -q --disable-pip-version-check numpy pandas statsmodels pytest
"$venv/bin/python" -c 'import numpy, pandas, statsmodels, pytest'
