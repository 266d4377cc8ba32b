#!/usr/bin/env bash
# Build and benchmark on the lent GPU machine (see bench/README.md). Needs .debs/ with libcsv and cmocka
# packages (apt-get download libcsv3 libcsv-dev libcmocka0 libcmocka-dev) when they are not installed.
set -u
OUT=${OUT:-/tmp/raid-out}
mkdir -p "$OUT"
if [ -e /usr/local/nvidia/lib64/libnvidia-opencl.so.1 ]; then
  mkdir -p /etc/OpenCL/vendors
  echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
fi
for f in .debs/*.deb; do [ -e "$f" ] && dpkg -x "$f" /; done
ldconfig
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee "$OUT/gpu.txt"
cmake -S . -B build-dev -DCMAKE_BUILD_TYPE=Release >"$OUT/cmake.log" 2>&1 && cmake --build build-dev -j16 >>"$OUT/cmake.log" 2>&1 || { tail -40 "$OUT/cmake.log"; exit 1; }
./build-dev/raid devices | tee "$OUT/devices.txt"
