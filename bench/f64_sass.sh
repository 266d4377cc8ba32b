#!/usr/bin/env bash
# The binary64 element-wise kernel's SASS for sm_90, offline, one function at a time (not a test; no GPU
# needed): kernels/f64.cl's f64_eval with the body BODY (e.g. 'raidF64Log(x0)'), compiled by nvcc as CUDA
# (the dialect's CUDA branch, -DRAID_CUDA, with the prelude and f64.cl's own headers of kernels/prelude.txt,
# as the CUDA backend builds it; -fmad=false for FP_CONTRACT OFF), then f64_eval's static instruction count,
# its branches (a loop runs its body again: the count is a floor of what a value costs) and the registers. NVRTC and NVIDIA's OpenCL compiler are other front ends: an estimate of what the GPU runs.
# usage: bench/f64_sass.sh BODY...   (one argument a function; a body of two inputs names x0 and x1; OUT=dir
# keeps the cubins and listings). Needs nvcc and nvdisasm/cuobjdump (PyPI: nvidia-cuda-nvdisasm,
# nvidia-cuda-cuobjdump), e.g. bench/f64_sass.sh 'raidF64Log(x0)' 'raidF64Div(x0,x1)'
set -eu
cd "$(dirname "$0")/.."
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
inc=()
for h in $(grep -v '^#' kernels/prelude.txt | grep -v ':'); do inc+=(-include "kernels/$h"); done
for h in $(sed -n 's/^f64\.cl: *//p' kernels/prelude.txt); do inc+=(-include "kernels/$h"); done
k=0
for body in "$@"; do
  k=$((k + 1))
  nin=1
  case $body in *x1*) nin=2 ;; esac
  case $body in *x2*) nin=3 ;; esac
  # nvcc splits -D values at commas: the body goes in through a header of its own
  printf '#define F64_BODY %s\n' "$body" >"$out/body$k.h"
  nvcc -arch=sm_90 -cubin -O3 -fmad=false -diag-suppress 161,174,20012,177,550 -DRAID_CUDA -DF64_NIN=$nin \
    "${inc[@]}" -include "$out/body$k.h" -x cu kernels/f64.cl -o "$out/f64_$k.cubin"
  nvdisasm -c "$out/f64_$k.cubin" >"$out/f64_$k.sass"
  # f64_eval's own section (the file's other kernels, f64_compare and f64_log_returns, are in the module too)
  n=$(awk '/^\.text\.[A-Za-z0-9_]+:/ { on = $1 == ".text.f64_eval:" } on && /\/\*[0-9a-f]+\*\/ / { c++ } END { print c + 0 }' "$out/f64_$k.sass")
  loops=$(awk '/^\.text\.[A-Za-z0-9_]+:/ { on = $1 == ".text.f64_eval:" } on && /BRA/ { c++ } END { print c + 0 }' "$out/f64_$k.sass")
  regs=$(cuobjdump -res-usage "$out/f64_$k.cubin" | grep -o 'REG:[0-9]*' | head -1)
  echo "body=$body f64_eval_sm_90_instructions=$n branches=$loops ${regs/REG:/registers=}"
done
