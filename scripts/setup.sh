#!/usr/bin/env bash
# Install the Debian packages RAID needs (Debian 12). As root the missing ones are installed with
# apt-get; otherwise the exact command is printed and the script fails, so that nothing half-works.
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config     # compiler, CMake >= 3.25, pkg-config
  ocl-icd-opencl-dev opencl-headers    # OpenCL ICD loader and headers
  pocl-opencl-icd                      # OpenCL on the CPU (tests and CI; a GPU driver is used when present)
  libcsv-dev                           # CSV parser (rows with quotes; table.c)
  libfast-float-dev                    # decimal to float64 at strtod's rounding (header-only C++)
  libcmocka-dev                        # unit tests
  libmpfr-dev                          # MPFR: the correctly rounded oracle of the binary64 functions (test_f64_mpfr)
  liblapacke-dev                       # LAPACKE (Cholesky and condition estimate of the regressions)
  clang libclang-rt-dev libomp-dev     # ThreadSanitizer build (make tsan): clang, its TSan runtime, LLVM's
                                       #   OpenMP with Archer (the OpenMP tool that TSan understands); the
                                       #   fuzz harnesses (make fuzz-check): libFuzzer, ASan and UBSan runtimes
  python3-venv                         # .venv of the statsmodels cross-checks (scripts/setup_python.sh)
  gnuplot-nox                          # precision figure
  tzdata                               # IANA time zones (--tz)
  r-base-core r-cran-ttr               # R TTR: the moving averages' oracle (tests/python/test_ma_ttr.py)
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "raid setup: missing Debian packages. Install them with:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi

echo "raid setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
