#!/usr/bin/env bash
# The layering of docs/architecture.md, checked on every quoted #include of the clients (cli/, bench/,
# examples/, python/), of src/ and of kernels/: the folder of the including file must allow the folder of
# the included header in the rule table below (a file may always include a header of its own folder).
# A client target of CMakeLists.txt is given no private include path either.
# Usage: test_layering.sh SRCDIR
set -euo pipefail
cd "$1"

# The rule table (docs/architecture.md "Layers"): a folder, then what its files may include. An entry is
# a layer (any header of it) or one header of a layer (io/symtab.h: that header only). `include` is the
# public API (include/raid.h, include/raid/*.h), `kernels` the device sources. The capabilities use only
# io's value types (symbol tables, the time order of dates, UTF-8 names, time zones), never its readers:
# reading a file is a job's.
RULES='
cli       include
bench     include
examples  include
python    include
jobs      include core context io realized regress models ta column sim
context   include core device
realized  include core device io/symtab.h io/order.h io/utf8.h io/tz.h
regress   include core device
models    include core device io/symtab.h io/order.h io/utf8.h io/tz.h realized regress
ta        include core device io/symtab.h io/order.h io/utf8.h io/tz.h
column    include core device io/symtab.h io/order.h io/utf8.h io/tz.h kernels
sim       include core
io        include core
device    include core kernels
core      include
kernels
'

declare -A allow
while read -r from rest; do
  [ -n "$from" ] && allow[$from]=" $rest "
done <<<"$RULES"

# The layer of a path relative to SRCDIR: src/X/... is X; include/, kernels/ and the client folders are
# their own; anything else is empty.
layer_of() {
  case $1 in
    src/*/*) local p=${1#src/}; echo "${p%%/*}" ;;
    include/*) echo include ;;
    kernels/*|cli/*|bench/*|examples/*|python/*) echo "${1%%/*}" ;;
    *) echo "" ;;
  esac
}

bad=0
nfiles=0
files=$( (find cli bench examples python src kernels -type f \( -name '*.[ch]' -o -name '*.cpp' -o -name '*.cl' \) \
           2>/dev/null || true) | sort)
for f in $files; do
  nfiles=$((nfiles + 1))
  from=$(layer_of "$f")
  dir=$(dirname "$f")
  if [ -z "${allow[$from]+x}" ]; then
    echo "$f: the folder '$from' has no row in the rule table of tests/test_layering.sh" >&2
    bad=$((bad + 1))
    continue
  fi
  while IFS=: read -r line inc; do
    name=$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/' <<<"$inc")
    # Where the compiler finds it: the including file's folder, then the include paths src/, include/
    # and kernels/ (CMakeLists.txt).
    target=""
    for cand in "$dir/$name" "src/$name" "include/$name" "kernels/$name"; do
      if [ -f "$cand" ]; then target=$(realpath -m --relative-to=. "$cand"); break; fi
    done
    if [ -z "$target" ]; then
      echo "$f:$line: $from includes \"$name\", which is in none of its folder, src/, include/, kernels/" >&2
      bad=$((bad + 1))
      continue
    fi
    to=$(layer_of "$target")
    [ "$to" = "$from" ] && continue # a header of its own layer
    case "${allow[$from]}" in
      *" $to "*|*" ${target#src/} "*) continue ;;
    esac
    rule=${allow[$from]# }; rule=${rule% }
    echo "$f:$line: $from includes ${target#src/} (rule: $from may include ${rule:-only its own folder})" >&2
    bad=$((bad + 1))
  done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" || true)
done
# CMake: the client targets get no private include path.
if grep -nE 'target_include_directories\((raid_cli|example_|\$\{name\}|bench)' CMakeLists.txt | grep -E 'src|kernels'; then
  echo "layering: a client target is given src/ or kernels/ as an include path (CMakeLists.txt)" >&2
  bad=$((bad + 1))
fi
echo "layering: $nfiles files checked, $bad violations"
[ $bad -eq 0 ]
