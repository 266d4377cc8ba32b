#!/usr/bin/env bash
# The example's files equal the CLI's, byte for byte: examples/har_rolling (public API only) against
#   raid har data/spy_realized_measures.csv --date-col DT --rv-col RV5 --model har --window rolling:1000 --se nw
# Usage: check_har_rolling.sh EXAMPLE RAID SRCDIR
set -euo pipefail
example=$1 raid=$2 src=$3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
data="$src/data/spy_realized_measures.csv"
"$raid" har "$data" --device cpu --date-col DT --rv-col RV5 --model har --window rolling:1000 --se nw \
  -o "$out/cli.csv" 2>/dev/null
"$example" "$data" "$out/ex.csv" > "$out/ex.txt"
for f in "" .forecasts .losses; do
  cmp "$out/cli$f.csv" "$out/ex$f.csv"
done
echo "example_har_rolling: $(($(wc -l < "$out/ex.csv") - 1)) windows, coefficients, forecasts and losses as the CLI's"
cat "$out/ex.txt"
