#!/usr/bin/env bash
# Build and benchmark on the GPU machine (see bench/README.md). Needs .debs/ with the Debian packages
# the build links (see bench/README.md for the apt-get download line) when they are not installed.
set -u
OUT=${OUT:-/tmp/raid-out}
mkdir -p "$OUT"
if [ -e /usr/local/nvidia/lib64/libnvidia-opencl.so.1 ]; then
  mkdir -p /etc/OpenCL/vendors
  echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
fi
# Unpack only packages the machine lacks (an unpacked older copy must not replace an installed library).
for f in .debs/*.deb; do
  [ -e "$f" ] || continue
  pkg=$(dpkg-deb -f "$f" Package)
  dpkg -s "$pkg" >/dev/null 2>&1 || dpkg -x "$f" /
done
# dpkg -x does not run the maintainer scripts, so Debian's alternatives for BLAS and LAPACK are missing.
multi=/usr/lib/x86_64-linux-gnu
for lib in blas lapack; do
  for so in lib$lib.so.3 lib$lib.so; do
    [ -e "$multi/$so" ] || { [ -e "$multi/$lib/$so" ] && ln -s "$multi/$lib/$so" "$multi/$so"; }
  done
done
ldconfig
# The reference LAPACK and BLAS that `make setup` installs (Debian's liblapack3, libblas3), unpacked
# beside whatever the image provides: the H200 image's default is OpenBLAS (pthreads), whose calls
# from the library's OpenMP threads contend (bench/RESULTS.md, 2026-12-01). bench/device_session.sh puts
# this first on LD_LIBRARY_PATH. LAPACKE comes along: the image's liblapacke is newer (3.12) and
# calls routines (cgedmd_) that the 3.11 reference LAPACK lacks.
for p in liblapack3 libblas3 liblapacke libtmglib3; do
  f=$(ls .debs/${p}_*.deb 2>/dev/null | head -1)
  [ -n "$f" ] && dpkg -x "$f" /opt/raid-netlib
done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee "$OUT/gpu.txt"
cmake -S . -B build-dev -DCMAKE_BUILD_TYPE=Release -DRAID_REQUIRE_MPFR=OFF >"$OUT/cmake.log" 2>&1 && cmake --build build-dev -j16 >>"$OUT/cmake.log" 2>&1 || { tail -40 "$OUT/cmake.log"; exit 1; }
./build-dev/raid devices | tee "$OUT/devices.txt"
