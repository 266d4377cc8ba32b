#!/usr/bin/env bash
# The layering of docs/architecture.md: the clients (cli/, bench/, examples/, python/) include only the
# public headers (include/raid.h, include/raid/*.h) and their own; no file under them includes a header
# from src/ or kernels/, and no CMake target of theirs is given src/ or kernels/ as an include path.
# Usage: test_layering.sh SRCDIR
set -euo pipefail
cd "$1"
bad=0
for f in $( (find cli bench examples python -name '*.[ch]' 2>/dev/null || true) | sort); do
  dir=$(dirname "$f")
  while IFS= read -r inc; do
    name=$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/' <<<"$inc")
    case $name in
      raid.h|raid/*.h) [ -e "include/$name" ] && continue ;;
    esac
    case $name in */*) ;; *) [ -e "$dir/$name" ] && continue ;; esac # a header of its own folder
    echo "layering: $f includes \"$name\", which is not a public header (include/) nor a file of its own folder" >&2
    bad=$((bad + 1))
  done < <(grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" || true)
done
# CMake: the client targets get no private include path.
if grep -nE 'target_include_directories\((raid_cli|example_|\$\{name\}|bench)' CMakeLists.txt | grep -E 'src|kernels'; then
  echo "layering: a client target is given src/ or kernels/ as an include path (CMakeLists.txt)" >&2
  bad=$((bad + 1))
fi
n=$( (find cli bench examples python -name '*.[ch]' 2>/dev/null || true) | wc -l)
echo "layering: $n client files checked, $bad violations"
[ $bad -eq 0 ]
