#!/usr/bin/env bash
# The realized kernel's SASS for sm_90 (the H200), offline, and its instructions per return by what they do
# (not a test; no GPU needed). nvcc compiles kernels/realized.cl as CUDA (the dialect's CUDA branch: -DRAID_CUDA
# and the prelude of kernels/prelude.txt, as the CUDA backend does) with the options src/realized/realized_device.c passes for the default configuration (chunk 4096, width 256, all
# measures, 1e74 range), -fmad=false for FP_CONTRACT OFF; bench/sass_per_return.py counts. NVIDIA's OpenCL
# compiler is another front end: an estimate of what the H200 runs, not its binary.
# usage: bench/realized_sass.sh [df|f32] [extra -D options...]   (OUT=dir keeps the cubin and listings;
# RUN=32 for chunks of 8192 at width 256)
# Needs nvcc (CUDA 12.8 or later) and nvdisasm/cuobjdump (PyPI: nvidia-cuda-nvdisasm, nvidia-cuda-cuobjdump).
set -eu
cd "$(dirname "$0")/.."
prec=${1:-df}
shift || true
df=$([ "$prec" = f32 ] && echo 0 || echo 1)
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
prelude=$(grep -v '^#' kernels/prelude.txt | sed 's|^|-include kernels/|')
# shellcheck disable=SC2086
nvcc -arch=sm_90 -cubin -O3 -fmad=false -lineinfo -diag-suppress 161,174,20012 -DRAID_CUDA -DRAID_WG=256 -DRAID_RUN="${RUN:-16}" \
    -DRAID_INPUT_DF="$df" -DRAID_PART=15 -DRAID_MAXR_HI=0x4F4C4C8Bu -DRAID_MAXR_LO=0x1349B9B5u \
    -DRAID_XSTEP=$(( ${RUN:-16} % 4 ? 1 : 2 )) "$@" $prelude -x cu kernels/realized.cl -o "$out/realized_$prec.cubin"
cuobjdump -res-usage "$out/realized_$prec.cubin" | grep REG
nvdisasm -gi -c "$out/realized_$prec.cubin" >"$out/realized_$prec.sass"
python3 bench/sass_per_return.py "$out/realized_$prec.sass" "${RUN:-16}" .
