#!/usr/bin/env bash
# CSV to daily measures, side by side: `raid realized` on a tick file beside the
# polars and pandas pipelines of the same measures (bench/peers_realized_csv.py), tick and 5-minute
# sampling; wall time, MB/s of CSV and peak memory (/usr/bin/time), best of REPS runs each.
#
#   bench/bench_csv.sh [BUILD] [FILE]
#
# BUILD: the build folder (default build; needs BUILD/raid and BUILD/gen_ticks). FILE: the tick file
# (default /tmp/raid_ticks_1e7.csv), made by BUILD/gen_ticks with TICKS ticks (default 1e7) when missing.
# Environment: REPS (default 3), PEER_REPS (runs of each peer, default REPS), PY (the Python of the peers; default .venv/bin/python, else python3),
# PEERS (default "polars pandas"; a peer whose package does not import is skipped, so that the plain RAID
# timing runs on a machine without pip), THREADS (OMP_NUM_THREADS of raid; default all cores),
# THREADS_LIST (e.g. "1 2 4 8 16": raid alone at each thread count first, the scaling), BLOCKS_LIST (e.g.
# "262144 1048576 4194304": raid alone at each block size of the table reader, RAID_CSV_BLOCK bytes),
# VARIANTS (e.g. "RAID_REALIZED_PART=0 RAID_CSV_AHEAD=8,RAID_REALIZED_PART=0": raid alone under each
# variant, a comma-separated list of VAR=VALUE, both samplings, with a profiled tick run when PROFILE=1;
# RAID_REALIZED_PART: returns per part of a batch computed at once (default 2^19 on the reader's threads),
# 0 the whole batch; RAID_REALIZED_POOL=0: the measures on OpenMP's threads, not the reader's (with
# RAID_REALIZED_PART=0, the path before d9dc796); RAID_CSV_AHEAD: blocks cut beyond
# one per parsing thread; OMP_WAIT_POLICY=passive shows what the OpenMP threads' spinning costs),
# PROFILE (default 1: one more raid run of each sampling with RAID_CSV_PROFILE=1, whose lines, `# profile:`,
# give the cpu time of the serial phases: the calling thread's cutting, waiting, merging and segmenting,
# against the parsing threads' summed time), RAID_DEVICE
# (default cpu). cpu_s is the process's user + system time (on a machine shared with other work the wall
# time is disturbed, the cpu time much less). The file is read once first (`cat`, timed) so that every tool reads it from
# the page cache.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
FILE=${2:-/tmp/raid_ticks_1e7.csv}
REPS=${REPS:-3}
PEER_REPS=${PEER_REPS:-$REPS}
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

# One timed run: prints "seconds peak_kib cpu_seconds"; exits non-zero if the command fails.
timed() {
  /usr/bin/time -f "%e %M %U %S" -o "$tmp/time" "$@" > "$tmp/out" 2> "$tmp/err" || { cat "$tmp/err" >&2; return 1; }
  awk '{ print $1, $2, $3 + $4 }' "$tmp/time"
}

# Best wall time of N runs (and the peak memory and cpu time of that run): best N command...
best() {
  local n=$1 b="" m="" c="" s k u
  shift
  for _ in $(seq "$n"); do
    read -r s k u < <(timed "$@") || return 1
    if [ -z "$b" ] || awk -v s="$s" -v b="$b" 'BEGIN { exit !(s < b) }'; then b=$s; m=$k; c=$u; fi
  done
  echo "$b $m $c"
}

# A table row: tool sample wall peak cpu ratio
row() {
  awk -v n="$1" -v p="$2" -v s="$3" -v k="$4" -v c="$5" -v r="$6" -v m="$mb" \
    'BEGIN { printf "%-12s %-6s %10.3f %10.0f %12.1f %10.3f %9s\n", n, p, s, m / s, k / 1024, c, r }'
}

printf "%-12s %-6s %10s %10s %12s %10s %9s\n" tool sample wall_s MB/s peak_MiB cpu_s vs_raid
# raid alone, both samplings, with the environment VAR=VALUE ...: alone LABEL VAR=VALUE ...
alone() {
  local label=$1 sample rs rk rc
  shift
  for sample in tick 5min; do
    read -r rs rk rc < <(best "$REPS" env "$@" "$BUILD/raid" realized "$FILE" --device "$DEVICE" --sample "$sample" \
                          -o "$tmp/raid.csv")
    row "$label" "$sample" "$rs" "$rk" "$rc" "-"
  done
}
for th in ${THREADS_LIST:-}; do alone "raid($th)" OMP_NUM_THREADS=$th; done
for bl in ${BLOCKS_LIST:-}; do alone "raid/$((bl / 1024))K" RAID_CSV_BLOCK=$bl; done
for va in ${VARIANTS:-}; do
  IFS=, read -r -a vars <<< "$va"
  alone "$va" "${vars[@]}"
  if [ "${PROFILE:-1}" = 1 ]; then
    env "${vars[@]}" RAID_CSV_PROFILE=1 "$BUILD/raid" realized "$FILE" --device "$DEVICE" --sample tick -o "$tmp/raid.csv" \
      2>&1 > /dev/null | sed "s/^/# $va tick /"
  fi
done
if [ "${PROFILE:-1}" = 1 ]; then
  for sample in tick 5min; do
    RAID_CSV_PROFILE=1 "$BUILD/raid" realized "$FILE" --device "$DEVICE" --sample "$sample" -o "$tmp/raid.csv" 2>&1 \
      > /dev/null | sed "s/^/# $sample /"
  done
fi
for sample in tick 5min; do
  read -r rs rk rc < <(best "$REPS" "$BUILD/raid" realized "$FILE" --device "$DEVICE" --sample "$sample" -o "$tmp/raid.csv")
  row raid "$sample" "$rs" "$rk" "$rc" "1.00"
  for peer in $PEERS; do
    if ! "$PY" -c "import $peer" 2> /dev/null; then
      echo "# $peer: not importable by $PY, skipped"
      continue
    fi
    if read -r ps pk pc < <(best "$PEER_REPS" "$PY" bench/peers_realized_csv.py "$peer" "$FILE" "$sample" \
                              -o "$tmp/$peer.csv"); then
      row "$peer" "$sample" "$ps" "$pk" "$pc" "$(awk -v s="$ps" -v r="$rs" 'BEGIN { printf "%.1fx", s / r }')"
    fi
  done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# vs_raid: the peer's wall time over raid's (how many times faster raid is)"
