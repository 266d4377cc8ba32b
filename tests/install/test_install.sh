#!/usr/bin/env bash
# Install the built project into a temporary prefix and build a consumer through the CMake package
# (shared and static targets) and through pkg-config, then run them.
# usage: test_install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
test -x "$tmp/prefix/bin/raid"
"$tmp/prefix/bin/raid" --version
cmake -S "$src/tests/install" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/consumer" >/dev/null
LD_LIBRARY_PATH="$tmp/prefix/lib:$tmp/prefix/lib64:${LD_LIBRARY_PATH:-}" "$tmp/consumer/consumer_shared"
"$tmp/consumer/consumer_static"
pcdir=$(dirname "$(find "$tmp/prefix" -name raid.pc | head -n 1)")
export PKG_CONFIG_PATH="$pcdir"
cc -o "$tmp/consumer_pc" "$src/tests/install/consumer.c" $(pkg-config --cflags raid) $(pkg-config --libs raid)
LD_LIBRARY_PATH="$tmp/prefix/lib:$tmp/prefix/lib64:${LD_LIBRARY_PATH:-}" "$tmp/consumer_pc"
cc -o "$tmp/consumer_pc_static" "$src/tests/install/consumer.c" $(pkg-config --cflags raid) \
   "$(dirname "$pcdir")/libraid.a" $(pkg-config --libs-only-other --static raid | sed 's/-lraid//') \
   $(pkg-config --libs --static OpenCL 2>/dev/null || echo -lOpenCL) -lcsv -lm -fopenmp
"$tmp/consumer_pc_static"
echo "1 passed, 0 failed"
