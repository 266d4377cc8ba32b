#!/usr/bin/env bash
# The symbols libraid.so exports are the public API and nothing else: every defined dynamic symbol is a
# name declared RAID_API in include/raid.h or include/raid/*.h, and every such name is exported. An
# internal function that leaked (raid_parse_f64 and raid_f64_digits of the C++ files, fast_float's
# templates, before the C++ visibility preset and cmake/libraid.map) fails it, and so does a public
# declaration without a definition.
# Usage: test_exports.sh LIBRAID_SO SRCDIR
set -euo pipefail
lib="$1"
cd "$2"
exported=$(nm -D --defined-only "$lib" | awk '{ print $NF }' | sort -u)
# each RAID_API declaration up to its ; or {, the first name followed by ( or [ (the function or array)
declared=$(cat include/raid.h include/raid/*.h | tr '\n' ' ' | grep -oE 'RAID_API[^;{]*' |
  while IFS= read -r d; do grep -oE 'raid_[a-z0-9_]+ *[([]' <<<"$d" | head -n 1 | tr -d ' (['; done | sort -u)
bad=0
while IFS= read -r s; do
  [ -n "$s" ] || continue
  echo "exports: $lib exports '$s', which no public header declares RAID_API" >&2
  bad=$((bad + 1))
done < <(comm -23 <(echo "$exported") <(echo "$declared"))
while IFS= read -r s; do
  [ -n "$s" ] || continue
  echo "exports: '$s' is declared RAID_API but $lib does not export it" >&2
  bad=$((bad + 1))
done < <(comm -13 <(echo "$exported") <(echo "$declared"))
echo "exports: $(echo "$exported" | wc -l) symbols exported, $(echo "$declared" | wc -l) declared, $bad mismatches"
[ $bad -eq 0 ]
