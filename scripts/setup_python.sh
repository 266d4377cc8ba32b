#!/usr/bin/env bash
# Create the Python virtual environment of the Python tests (tests/python) in .venv at the repository
# root, from PyPI, with exactly the versions of requirements/dev.txt (every package pinned, transitive
# ones included, each checked against its hashes: pip --require-hashes). What is in it and why:
# requirements/dev.in. An upgrade is a commit that changes both files and runs `make test`.
# Idempotent: nothing is done when the venv was made from the same requirements/dev.txt (its SHA-256
# is kept in .venv/raid-requirements.sha256) and its packages import; a changed lock file reinstalls.
# Needs `python3 -m venv` (Debian python3-venv, scripts/setup.sh).
# PYTHON may name another interpreter (default python3).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv="$root/.venv"
lock="$root/requirements/dev.txt"
stamp="$venv/raid-requirements.sha256"
py=${PYTHON:-python3}

imports='import numpy, pandas, statsmodels, pytest, cffi, scikit_build_core, dask.dataframe, distributed, arch, pyarrow'
want=$(sha256sum "$lock" | cut -d' ' -f1)

if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] \
   && "$venv/bin/python" -c "$imports" 2>/dev/null; then
  exit 0
fi

if [ ! -x "$venv/bin/python" ]; then
  echo "raid setup: creating $venv" >&2
  "$py" -m venv "$venv"
fi
rm -f "$stamp"
echo "raid setup: installing requirements/dev.txt (pinned, with hashes) into $venv" >&2
# --no-deps: the lock already lists every dependency; pip would otherwise be free to add one unpinned.
"$venv/bin/python" -m pip install -q --disable-pip-version-check --require-hashes --no-deps -r "$lock"
"$venv/bin/python" -m pip check >&2
"$venv/bin/python" -c "$imports"
echo "$want" > "$stamp"
