#!/usr/bin/env bash
# The symbols libraid.so exports are the public API and nothing else: every defined dynamic symbol is a
# name declared RAID_API in include/raid.h or include/raid/*.h, and every such name is exported. An
# internal function that leaked (raidParseF64 and raidF64Digits of the C++ files, fast_float's
# templates, before the C++ visibility preset and cmake/libraid.map) fails it, and so does a public
# declaration without a definition.
# The static library's objects are checked too: its external names are those of a program that links it,
# so every one is public (raid_, and then declared) or carries the internal prefix (raidX for functions
# and variables, RaidX for types; SQLite's sqlite3_x and sqlite3X), so that no internal name can collide
# with a user's (gb_compute and har_design could).
# Usage: test_exports.sh LIBRAID_SO SRCDIR [LIBRAID_A]
set -euo pipefail
lib="$1"
archive="${3:-}"
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
if [ -n "$archive" ]; then
  # defined external symbols of the archive's objects, less the names reserved to the implementation
  # (_ and a capital or a second _: C++ mangled names such as fast_float's templates, weak and hidden in
  # libraid.so; the sanitizers' __odr_asan.NAME indicators) and OpenMP's named critical sections
  # (.gomp_critical_user_NAME), none of which a user's program may define
  while IFS= read -r s; do
    [ -n "$s" ] || continue
    echo "exports: $archive defines the external name '$s', neither public (raid_) nor internal (raidX)" >&2
    bad=$((bad + 1))
  done < <(nm --defined-only -g "$archive" | awk 'NF == 3 && $2 ~ /[TDBRCGS]/ { print $3 }' | sort -u |
             grep -v -E '^(raid_|raid[A-Z0-9]|_[A-Z_]|\.gomp_critical_user_)' || true)
fi
echo "exports: $(echo "$exported" | wc -l) symbols exported, $(echo "$declared" | wc -l) declared, $bad mismatches"
[ $bad -eq 0 ]
