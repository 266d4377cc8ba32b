#!/usr/bin/env bash
# The layering of docs/architecture.md, checked on every quoted #include of the clients (cli/, bench/,
# examples/, python/), of src/ and of kernels/: the folder of the including file must allow the folder of
# the included header in the rule table below (a file may always include a header of its own folder).
# A client target of CMakeLists.txt is given no private include path either.
# The include check cannot see a call through the public API (raid.h, which every layer may include): with
# OBJDIR, the object directory of the raid_obj target (CMakeFiles/raid_obj.dir of the build tree), the same
# rule table is checked on the symbols: every internal name (raidX, RaidX) and every public function (raid_x)
# that an object of src/A/ leaves undefined must be defined by an object of A or of a layer A may use
# (models calling raid_simulate_returns, defined in sim, is a job's call).
# And no comparison of a backend (`backend ==`, `backend !=`) outside core/internal.h (raidBackendOf,
# RAID_BACKEND: the one choice of path, through each capability's table of backends) and src/context/.
# Usage: test_layering.sh SRCDIR [OBJDIR]
set -euo pipefail
cd "$1"
objdir=${2:-}

# The rule table (docs/architecture.md "Layers"): a folder, then what its files may include. An entry is
# a layer (any header of it) or one header of a layer (io/symtab.h: that header only). `include` is the
# public API (include/raid.h, include/raid/*.h), `kernels` the device sources. The capabilities use only
# io's value types (symbol tables, the time order of dates, UTF-8 names, time zones), never its readers:
# reading a file is a job's. context has no header (its functions are include/raid/core.h's): in the rule
# of models it lets window.c create the float64 cpu context of each thread (raid_ctx_create "cpu"), which
# raid_reg_stats_range needs.
RULES='
cli       include
bench     include
examples  include
python    include
jobs      include core context io realized regress models ta column sim f64 cov
context   include core device
realized  include core device io/symtab.h io/order.h io/utf8.h io/tz.h
cov       include core device io/symtab.h io/order.h io/utf8.h io/tz.h realized
regress   include core device
models    include core device io/symtab.h io/order.h io/utf8.h io/tz.h realized regress context
ta        include core device io/symtab.h io/order.h io/utf8.h io/tz.h
column    include core device io/symtab.h io/order.h io/utf8.h io/tz.h kernels
sim       include core
f64       include core device kernels io/fastfloat.h
io        include core
device    include core kernels
core      include kernels
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

# The symbols (OBJDIR). An object is OBJDIR/src/X/FILE.c.o (or .cpp.o) of the source src/X/FILE.c; one whose
# source is gone (a file moved since the last build) is left out. kernels_embedded.c.o (generated from
# kernels/) is the layer kernels. Where the rule names one header of a layer (io/tz.h), the names that header
# declares are allowed, wherever they are defined (raidIoParseDate of io/tz.h is io/timeparse.c's).
nobj=0
nsym=0
if [ -n "$objdir" ]; then
  if [ ! -d "$objdir/src" ]; then
    echo "layering: no objects in $objdir/src (build the raid_obj target first)" >&2
    exit 1
  fi
  declare -A objsrc deflayer deffile declared
  # the names each single-header entry declares (its comments left out)
  for h in $(tr ' ' '\n' <<<"${allow[*]}" | grep / | sort -u); do
    [ -f "src/$h" ] || { echo "layering: the rule table names src/$h, which does not exist" >&2; exit 1; }
    for name in $(perl -0pe 's{/\*.*?\*/}{}gs; s{//[^\n]*}{}g' "src/$h" |
                    grep -oE '\b(raid_[a-z0-9_]+|raid[A-Z0-9][A-Za-z0-9_]*)\b' | sort -u); do
      declared[$h]+=" $name"
    done
    declared[$h]+=" "
  done
  objs=()
  while IFS= read -r o; do
    src=${o#"$objdir"/}
    src=${src%.o}
    case $src in
      src/*) [ -f "$src" ] || continue ;;
      *) src="kernels/$src" ;; # generated from kernels/ (kernels_embedded.c)
    esac
    objsrc[$o]=$src
    objs+=("$o")
  done < <(find "$objdir" -name '*.o' | sort)
  nobj=${#objs[@]}
  # defined external names (nm -A: "OBJECT:ADDRESS TYPE NAME")
  while read -r o name; do
    src=${objsrc[$o]}
    if [ -n "${deffile[$name]+x}" ] && [ "${deffile[$name]}" != "$src" ]; then
      echo "$src: defines $name, which ${deffile[$name]} defines too" >&2
      bad=$((bad + 1))
    fi
    deffile[$name]=$src
    deflayer[$name]=$(layer_of "$src")
  done < <(nm -A --defined-only -g "${objs[@]}" | awk '$3 ~ /^(raid_|raid[A-Z0-9]|Raid[A-Z])/ { sub(/:[^:]*$/, "", $1); print $1, $3 }')
  # undefined names (nm -A: "OBJECT: U NAME")
  while read -r o name; do
    src=${objsrc[$o]}
    from=$(layer_of "$src")
    nsym=$((nsym + 1))
    if [ -z "${deffile[$name]+x}" ]; then
      echo "$src: calls $name, which no object of raid_obj defines" >&2
      bad=$((bad + 1))
      continue
    fi
    to=${deflayer[$name]}
    [ "$to" = "$from" ] && continue
    case "${allow[$from]}" in
      *" $to "*) continue ;;
    esac
    ok=0
    for h in ${allow[$from]}; do
      case $h in
        "$to"/*) case "${declared[$h]}" in *" $name "*) ok=1 ;; esac ;;
      esac
    done
    [ $ok -eq 1 ] && continue
    rule=${allow[$from]# }; rule=${rule% }
    echo "$src: calls $name defined in $to (${deffile[$name]}) (rule: $from may use ${rule:-only its own folder})" >&2
    bad=$((bad + 1))
  done < <(nm -A -u "${objs[@]}" | awk '$NF ~ /^(raid_|raid[A-Z0-9]|Raid[A-Z])/ { sub(/:$/, "", $1); print $1, $NF }')
fi

# One choice of path: a backend is compared only by the dispatch helper and the context's creation.
while IFS= read -r hit; do
  case $hit in
    src/core/internal.h:*|src/context/*) continue ;;
  esac
  IFS=: read -r file line text <<<"$hit"
  text=$(sed -E 's/^[[:space:]]+//' <<<"$text")
  echo "$file:$line: compares a backend ($text) outside core/internal.h (raidBackendOf, RAID_BACKEND) and src/context/: a capability chooses its path by its table of backends" >&2
  bad=$((bad + 1))
done < <(grep -rnE 'backend *[!=]=' src || true)

echo "layering: $nfiles files checked, $nobj objects ($nsym calls of internal or public names), $bad violations"
[ $bad -eq 0 ]
