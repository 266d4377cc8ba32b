#!/usr/bin/env bash
# A fuzzing campaign (docs/testing.md "Fuzzing"): each target fuzzed for MINUTES CPU-minutes on JOBS
# processes (libFuzzer's fork mode: MINUTES / JOBS minutes of wall time; the CPU-minutes reported are
# the measured user + system time of the fuzzer and its workers), crashes, timeouts and
# out-of-memory inputs kept and counted without stopping; then the new inputs merged into the committed
# corpus (-merge=1: only those that add coverage), and a summary table per target written to
# OUT/summary.md (CPU-minutes, executions, executions per CPU-second, corpus before and after, coverage,
# findings), ready for docs/testing.md.
#
# Usage: tests/fuzz/campaign.sh TARGETS MINUTES JOBS [BUILD_DIR=build-fuzz] [OUT=BUILD_DIR/campaign]
#   TARGETS: "all" or a comma-separated list (table,time,tzif,realized,har,garch,ma,sweep,bars,sort,
#   quantile,groupby). Build first:
#     CC=clang CXX=clang++ cmake -S . -B build-fuzz -DRAID_FUZZ=ON -DRAID_BUILD_TESTS=OFF
#     cmake --build build-fuzz --target fuzzers
#   (or `make fuzz-build`), or run the binaries of tests/fuzz/bundle.sh on another machine:
#   FUZZ_BIN=DIR tests/fuzz/campaign.sh ... takes fuzz_TARGET from DIR.
# Then look at OUT/TARGET/ (crash-*, timeout-*, oom-*, leak-*), commit the merged corpus
# (git add tests/fuzz/corpus) and copy the table into docs/testing.md.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
targets="${1:?usage: campaign.sh TARGETS MINUTES JOBS [BUILD_DIR] [OUT]}"
minutes="${2:?minutes}"
jobs="${3:?jobs}"
build="${4:-$repo/build-fuzz}"
out="${5:-$build/campaign}"
bindir="${FUZZ_BIN:-$build/tests/fuzz}"
if [ "$targets" = all ]; then
  targets="$(ls "$here/corpus" | paste -sd, -)"
fi
IFS=, read -r -a list <<< "$targets"
wall=$(( minutes * 60 / jobs ))
[ "$wall" -ge 1 ] || wall=1

dict_of() {
  case "$1" in
    time) echo "$here/dict/time.dict" ;;
    tzif) echo "$here/dict/tzif.dict" ;;
    *) echo "$here/dict/csv.dict" ;;
  esac
}
# user + system CPU seconds of this shell's finished children (bash's times, run in this shell, not in a
# command substitution's subshell: the fuzzer's fork-mode workers are its children, so their CPU adds up
# into it when it exits)
children_cpu() {
  times > "$out/.times"
  sed -n 2p "$out/.times" | awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } printf "%.1f", t }'
}
corpus_size() { # files and bytes of a directory
  echo "$(find "$1" -type f | wc -l) files, $(du -sb "$1" | cut -f1) B"
}

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
mkdir -p "$out"
{
  echo "Campaign of $(date -u +%Y-%m-%d), $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?'), on $(nproc) cores ($(uname -m)), $jobs processes per target:"
  echo
  echo "| target | CPU-minutes | executions | exec per CPU-second | corpus before | corpus after | coverage (edges, features) | findings |"
  echo "|---|---|---|---|---|---|---|---|"
} > "$out/summary.md"
for t in "${list[@]}"; do
  bin="$bindir/fuzz_$t"
  d="$out/$t"
  rm -rf "$d"
  mkdir -p "$d/new"
  before="$(corpus_size "$here/corpus/$t")"
  echo "campaign: $t: $minutes CPU-minutes on $jobs processes ($wall s)" >&2
  t0=$(date +%s)
  children_cpu > "$out/.c0"
  "$bin" -fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 -max_total_time="$wall" -timeout=10 \
    -rss_limit_mb=2048 -seed=$((t0 % 100000 + 1)) -dict="$(dict_of "$t")" -artifact_prefix="$d/" \
    "$d/new" "$here/corpus/$t" > "$d/fuzz.log" 2>&1 || true
  t1=$(date +%s)
  children_cpu > "$out/.c1"
  # fork mode's progress lines: "#EXECS: cov: C ft: F corp: N exec/s R oom/timeout/crash: O/T/C time: Ss ..."
  last="$(grep -E '^#[0-9]+: cov:' "$d/fuzz.log" | tail -n 1 || true)"
  execs="$(sed -E 's/^#([0-9]+):.*/\1/' <<< "$last")"
  cov="$(sed -nE 's/.* cov: ([0-9]+) ft: ([0-9]+).*/\1, \2/p' <<< "$last")"
  otc="$(sed -nE 's/.*oom\/timeout\/crash: ([0-9]+\/[0-9]+\/[0-9]+).*/\1/p' <<< "$last")"
  # the new inputs that add coverage, into the committed corpus
  "$bin" -merge=1 -timeout=10 -rss_limit_mb=2048 "$here/corpus/$t" "$d/new" > "$d/merge.log" 2>&1 || \
    echo "campaign: $t: the merge failed (log: $d/merge.log)" >&2
  after="$(corpus_size "$here/corpus/$t")"
  arts="$(find "$d" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \
          -o -name 'slow-unit-*' \) | wc -l)"
  findings="oom/timeout/crash ${otc:-?}; $arts inputs kept in $d"
  cpu_min="$(awk -v a="$(cat "$out/.c0")" -v b="$(cat "$out/.c1")" 'BEGIN { printf "%.1f", (b - a) / 60 }')"
  # executions per CPU-second: fork mode's own exec/s figure is not a rate per process (on 16 processes
  # it read 31 per process for the table target, whose executions over its CPU time give 548)
  rate="$(awk -v e="${execs:-0}" -v m="$cpu_min" 'BEGIN { printf "%d", (m > 0 ? e / (m * 60) : 0) }')"
  echo "| $t | $cpu_min | ${execs:-?} | $rate | $before | $after | ${cov:-?} | $findings |" >> "$out/summary.md"
done
cat "$out/summary.md"
