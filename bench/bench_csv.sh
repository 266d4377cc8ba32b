#!/usr/bin/env bash
# CSV to daily measures, side by side (issue 12, section 1): `raid realized` on a tick file beside the
# polars and pandas pipelines of the same measures (bench/peers_realized_csv.py), tick and 5-minute
# sampling; wall time, MB/s of CSV and peak memory (/usr/bin/time), best of REPS runs each.
#
#   bench/bench_csv.sh [BUILD] [FILE]
#
# BUILD: the build folder (default build; needs BUILD/raid and BUILD/gen_ticks). FILE: the tick file
# (default /tmp/raid_ticks_1e7.csv), made by BUILD/gen_ticks with TICKS ticks (default 1e7) when missing.
# Environment: REPS (default 3), PY (the Python of the peers; default .venv/bin/python, else python3),
# PEERS (default "polars pandas"; a peer whose package does not import is skipped, so that the plain RAID
# timing runs on a machine without pip), THREADS (OMP_NUM_THREADS of raid; default all cores),
# RAID_DEVICE (default cpu). The file is read once first (`cat`, timed) so that every tool reads it from
# the page cache.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
FILE=${2:-/tmp/raid_ticks_1e7.csv}
REPS=${REPS:-3}
TICKS=${TICKS:-1e7}
DEVICE=${RAID_DEVICE:-cpu}
if [ -z "${PY:-}" ]; then
  if [ -x .venv/bin/python ]; then PY=.venv/bin/python; else PY=python3; fi
fi
PEERS=${PEERS:-polars pandas}
[ -n "${THREADS:-}" ] && export OMP_NUM_THREADS=$THREADS

[ -f "$FILE" ] || "$BUILD/gen_ticks" "$FILE" --ticks "$TICKS"
bytes=$(stat -c %s "$FILE")
mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "# bench_csv: $FILE ($mb MB, $(($(wc -l < "$FILE") - 1)) rows), $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)," \
     "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
t0=$(date +%s.%N); cat "$FILE" > /dev/null; t1=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v m="$mb" 'BEGIN { printf "# cat (page cache): %.3f s, %.0f MB/s\n", b - a, m / (b - a) }'

# One timed run: prints "seconds peak_kib"; exits non-zero if the command fails.
timed() {
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" > "$tmp/out" 2> "$tmp/err" || { cat "$tmp/err" >&2; return 1; }
  cat "$tmp/time"
}

# Best wall time of REPS runs (and the peak memory of that run).
best() {
  local b="" m="" s k
  for _ in $(seq "$REPS"); do
    read -r s k < <(timed "$@") || return 1
    if [ -z "$b" ] || awk -v s="$s" -v b="$b" 'BEGIN { exit !(s < b) }'; then b=$s; m=$k; fi
  done
  echo "$b $m"
}

printf "%-8s %-6s %10s %10s %12s %10s\n" tool sample wall_s MB/s peak_MiB vs_raid
for sample in tick 5min; do
  read -r rs rk < <(best "$BUILD/raid" realized "$FILE" --device "$DEVICE" --sample "$sample" -o "$tmp/raid.csv")
  awk -v s="$rs" -v k="$rk" -v m="$mb" -v p="$sample" \
    'BEGIN { printf "%-8s %-6s %10.3f %10.0f %12.1f %10s\n", "raid", p, s, m / s, k / 1024, "1.00" }'
  for peer in $PEERS; do
    if ! "$PY" -c "import $peer" 2> /dev/null; then
      echo "# $peer: not importable by $PY, skipped"
      continue
    fi
    if read -r ps pk < <(best "$PY" bench/peers_realized_csv.py "$peer" "$FILE" "$sample" -o "$tmp/$peer.csv"); then
      awk -v s="$ps" -v k="$pk" -v m="$mb" -v p="$sample" -v n="$peer" -v r="$rs" \
        'BEGIN { printf "%-8s %-6s %10.3f %10.0f %12.1f %9.1fx\n", n, p, s, m / s, k / 1024, s / r }'
    fi
  done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# vs_raid: the peer's wall time over raid's (how many times faster raid is)"
