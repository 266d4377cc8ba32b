#!/usr/bin/env bash
# The fuzz check of `make test` (docs/testing.md "Fuzzing"): every target replays its committed corpus
# (tests/fuzz/corpus/TARGET: seeds and the inputs of defects found), then fuzzes for SECONDS from it with a
# fixed seed. Any crash, leak, timeout (an input over 10 s), out-of-memory (2 GiB) or sanitizer report fails
# it; the input is kept in OUT/TARGET/ and shown. New inputs found go to OUT/TARGET/new, never into the
# repository (tests/fuzz/campaign.sh merges them on purpose).
#
# Usage: tests/fuzz/check.sh BUILD_DIR [SECONDS=20] [OUT=BUILD_DIR/fuzz-check] [TARGETS...]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$(cd "${1:?usage: check.sh BUILD_DIR [SECONDS] [OUT] [TARGETS...]}" && pwd)"
secs="${2:-20}"
out="${3:-$build/fuzz-check}"
shift $(( $# < 3 ? $# : 3 ))
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(ls "$here/corpus")
fi

dict_of() {
  case "$1" in
    time) echo "$here/dict/time.dict" ;;
    tzif) echo "$here/dict/tzif.dict" ;;
    f64) echo "$here/dict/f64.dict" ;;
    *) echo "$here/dict/csv.dict" ;;
  esac
}

# ASan's leak check at exit and fatal UBSan reports are on by default in the fuzz build (-fno-sanitize-recover).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

rm -rf "$out"
mkdir -p "$out"
fail=0
printf '%-10s %8s %10s %9s %7s %s\n' target replay execs exec/s cov result > "$out/summary.txt"
for t in "${targets[@]}"; do
  bin="$build/tests/fuzz/fuzz_$t"
  d="$out/$t"
  mkdir -p "$d/new"
  common=(-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 -artifact_prefix="$d/" -print_final_stats=1)
  t0=$(date +%s.%N)
  if ! "$bin" "${common[@]}" -runs=0 "$here/corpus/$t" > "$d/replay.log" 2>&1; then
    echo "fuzz-check: $t: the committed corpus fails (log: $d/replay.log)" >&2
    tail -n 40 "$d/replay.log" >&2
    fail=1
    printf '%-10s %8s %10s %9s %7s %s\n' "$t" FAIL - - - "replay failed" >> "$out/summary.txt"
    continue
  fi
  t1=$(date +%s.%N)
  res=ok
  if ! "$bin" "${common[@]}" -seed=1 -max_total_time="$secs" -dict="$(dict_of "$t")" "$d/new" "$here/corpus/$t" \
      > "$d/fuzz.log" 2>&1; then
    res="FAILED"
    fail=1
    echo "fuzz-check: $t: fuzzing found a failure (log: $d/fuzz.log)" >&2
    grep -E "ERROR|runtime error|invariant|differ|SUMMARY" "$d/fuzz.log" | head -n 20 >&2 || true
    for a in "$d"/crash-* "$d"/leak-* "$d"/timeout-* "$d"/oom-* "$d"/slow-unit-*; do
      [ -e "$a" ] || continue
      echo "fuzz-check: $t: input $a (base64: $(base64 -w0 "$a" | head -c 2000))" >&2
    done
  fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$d/fuzz.log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$d/fuzz.log" | tail -n 1)
  cov=$(grep -oE 'cov: [0-9]+' "$d/fuzz.log" | tail -n 1 | cut -d' ' -f2)
  printf '%-10s %7.1fs %10s %9s %7s %s\n' "$t" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "${execs:--}" "${rate:--}" "${cov:--}" "$res" \
    >> "$out/summary.txt"
done
cat "$out/summary.txt"
exit "$fail"
