#!/usr/bin/env bash
# The fuzz binaries for another x86-64 Linux machine without clang or the -dev packages
# (docs/testing.md "Fuzzing"): DIR/bin/fuzz_* with the shared libraries they need besides glibc in
# DIR/bin/lib (found there first: the binaries' RUNPATH is $ORIGIN/lib), and DIR/tests/fuzz (the scripts,
# the corpora, the dictionaries). The libFuzzer, ASan and UBSan runtimes are linked in statically.
# The other machine needs glibc 2.36 or newer (Debian 12's) and, for the `time`, `realized` and `bars`
# targets, the tz database in /usr/share/zoneinfo. There:
#   FUZZ_BIN=DIR/bin DIR/tests/fuzz/campaign.sh all 20 16 DIR/bin DIR/out
# and bring DIR/out/summary.md and DIR/tests/fuzz/corpus back.
#
# Usage: tests/fuzz/bundle.sh BUILD_DIR DIR
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$(cd "${1:?usage: bundle.sh BUILD_DIR DIR}" && pwd)"
dir="${2:?usage: bundle.sh BUILD_DIR DIR}"
mkdir -p "$dir/bin/lib" "$dir/tests"
cp "$build"/tests/fuzz/fuzz_* "$dir/bin/"
# every library ldd resolves, but glibc's own (libc, libm, libpthread, libdl, librt, the loader)
for b in "$build"/tests/fuzz/fuzz_*; do
  ldd "$b" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'
done | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*) ;;
    *) cp -L "$lib" "$dir/bin/lib/" ;;
  esac
done
rm -rf "$dir/tests/fuzz"
cp -r "$here" "$dir/tests/fuzz"
echo "bundle.sh: $dir/bin: $(ls "$dir/bin" | grep -c '^fuzz_') fuzzers; $dir/bin/lib:" >&2
ls "$dir/bin/lib" >&2
