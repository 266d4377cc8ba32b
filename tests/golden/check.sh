#!/usr/bin/env bash
# Byte-for-byte regression test of the CLI's outputs (a change of the code changes no number unless meant to):
# runs run.sh with the current `raid` and compares every file with expected/, recorded by run.sh with
# the `raid` of commit 16cece3. The cpu backend's outputs are compared everywhere. The OpenCL outputs
# were recorded with PoCL on the CPU and are compared when the first OpenCL device is PoCL's; on
# another device (a GPU) they are not (its kernels may round a builtin differently), and the test says so.
# Usage: check.sh RAID SRCDIR
set -euo pipefail
raid=$1 src=$2
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$raid" devices > "$out/devices.txt"
compare_dev=0
if grep -q '^opencl:0.0 .*(Portable Computing Language)' "$out/devices.txt"; then compare_dev=1; fi
bash "$here/run.sh" "$raid" "$src" "$out"
(cd "$out" && sha256sum -c --quiet "$here/expected/sim_prices.csv.sha256")
fail=0 n=0 skipped=0
for f in "$here"/expected/*; do
  name=$(basename "$f")
  case $name in *.sha256) continue ;; esac
  case $name in *_f32.csv|*_df.csv|*_dev.*)
    if [ $compare_dev = 0 ]; then skipped=$((skipped + 1)); continue; fi ;;
  esac
  n=$((n + 1))
  if ! cmp -s "$f" "$out/$name"; then
    echo "golden: $name differs from the recorded output:" >&2
    diff "$f" "$out/$name" | head -n 6 >&2 || true
    fail=$((fail + 1))
  fi
done
if [ $skipped -gt 0 ]; then
  echo "golden: $skipped device outputs not compared (device under test is not PoCL: $(sed -n 3p "$out/devices.txt"))"
fi
echo "golden: $n outputs compared, $fail differ"
[ $fail -eq 0 ]
