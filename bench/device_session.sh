#!/usr/bin/env bash
# One batched run on the H200 machine (see bench/README.md): build, the test suite with the GPU as the
# device under test, then the benchmarks of bench/RESULTS.md. Every step has its own time limit and writes
# its output under $OUT as it goes, so a step that runs out of time loses only itself.
# Usage: bash bench/device_session.sh [STEP...]
#   steps: tests (whole suite), cuda (the whole suite on CUDA and on OpenCL), backends-realized (the realized
#   kernel on CUDA and on OpenCL, its variants, the reference kernels), backends (every other device benchmark
#   on CUDA and on OpenCL), f64 (element-wise binary64 beside CuPy's float64), f64check (the elementary
#   arithmetic and functions on the GPU against the cpu bit for bit: worst cases and 1e8 inputs each), regress-tests (test_ols, test_regress), realized,
#   realized1e9, realized1e9-f32, realized-e2e, realized-variants, regress-e2e, peers, regress, garch, sweep,
#   groupby, select, csv; default: tests realized realized1e9 peers regress
#   sort (the device sort: default and 16-round tiles, then CuPy/CUB)
#   groupby100k (the group-by tests on the GPU, then every aggregation path at 1,000 and 100,000 groups)
#   cuda (the whole ctest suite with RAID_TEST_DEVICE=cuda, then =opencl; only the failures' tails are kept)
#   cov (the covariance device path: bench_cov at N = 500 and 3,000 beside cuBLAS syrk/dgemm and numpy/BLAS;
#   hy on asynchronous ticks at N = 100 and 500)
#   zerocopy (test_cuda, the CuPy tests of tests/python/test_cuda_arrays.py, bench/peers_realized_cupy.py at 1e9)
set -u
OUT=${OUT:-/tmp/raid-out}
mkdir -p "$OUT"
steps=${*:-tests realized realized1e9 peers regress}
# The Python package needs cffi to build and to run, and the zerocopy step pytest; the image has neither:
# the pinned wheels carried in .wheels/ (bench/README.md) are unpacked and put on PYTHONPATH for the build
# and every step.
if ! python3 -c 'import cffi' 2>/dev/null; then
  for p in cffi pycparser pytest pluggy iniconfig packaging pygments; do
    for w in .wheels/$p-*.whl; do [ -f "$w" ] && python3 -m zipfile -e "$w" /tmp/raid-pylib; done
  done
  export PYTHONPATH=/tmp/raid-pylib${PYTHONPATH:+:$PYTHONPATH}
fi
# The build adds the Python package (build-dev/python, for f64check and zerocopy) only where .venv/bin/python
# exists (CMakeLists.txt): the image's python3 stands in for the project's virtual environment, which is not
# carried.
[ -e .venv/bin/python ] || { mkdir -p .venv/bin && ln -s "$(command -v python3)" .venv/bin/python; }
bash bench/run_device.sh || exit 1
netlib=/opt/raid-netlib/usr/lib/x86_64-linux-gnu
[ -d $netlib/lapack ] && export LD_LIBRARY_PATH=$netlib:$netlib/lapack:$netlib/blas${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OPENBLAS_NUM_THREADS=1 # where OpenBLAS is still the LAPACK (see run_device.sh)
ldd build-dev/bench_regress | grep -E 'lapack|blas' | tee "$OUT/lapack.txt"
# The OpenCL device of the GPU: plain "opencl" is the first OpenCL device, which on the lent machines is
# PoCL's CPU device (opencl:0.0; NVIDIA's is opencl:1.0): the steps' default backends name the GPU's.
OCL=$(./build-dev/raid devices | awk '$1 ~ /^opencl:/ && $2 == "gpu" { print $1; exit }')
OCL=${OCL:-opencl}
echo "OpenCL GPU: $OCL" | tee "$OUT/opencl.txt"
git rev-parse --short HEAD 2>/dev/null | tee "$OUT/commit.txt"
date -u +%FT%TZ | tee "$OUT/date.txt"
lscpu | grep -E 'Model name|^CPU\(s\)' | tee "$OUT/cpu.txt"
run() { # name seconds command...
  local name=$1 secs=$2; shift 2
  echo "== $name: $*" | tee -a "$OUT/$name.txt"
  timeout "$secs" "$@" 2>&1 | tee -a "$OUT/$name.txt"
  echo "== $name: exit ${PIPESTATUS[0]}" | tee -a "$OUT/$name.txt"
}
for s in $steps; do
  case $s in
  cov) # the covariance device path (df Gram tiles) beside cuBLAS float64 syrk/dgemm (CuPy) and numpy/BLAS on the
    # host (16 threads and 1), on the same simulated returns: 252 days x 78 five-minute returns, N = 500 and
    # 3,000; then the other estimators at N = 3,000 (bench_cov's header says what each line holds)
    for n in 500 3000; do
      run cov 400 ./build-dev/bench_cov --device auto --cpu-days 10 --dump /tmp/raid-cov-$n.npy $n
      run cov 200 python3 bench/peers_cov_cupy.py /tmp/raid-cov-$n.npy
      OPENBLAS_NUM_THREADS=16 OMP_NUM_THREADS=16 run cov 200 python3 bench/peers_cov_numpy.py /tmp/raid-cov-$n.npy --days 50
      OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 run cov 200 python3 bench/peers_cov_numpy.py /tmp/raid-cov-$n.npy --days 10
      rm -f /tmp/raid-cov-$n.npy
    done
    for e in rbpcov rsemicov mrc mrc_psd rkcov; do
      run cov 300 ./build-dev/bench_cov --device auto --estimator $e --cpu-days 2 3000
    done
    # hy on asynchronous Poisson ticks (bench_cov's header): 2,340 and 23,400 trades a symbol a day on average
    for a in "--ticks 2340 500" "--ticks 23400 100" "--ticks 23400 500"; do
      run cov 300 ./build-dev/bench_cov --device auto --estimator hy --days 5 --cpu-days 2 $a
    done ;;
  cuda) # both backends as the device under test (CUDA_DEVS, default "cuda" and the GPU's OpenCL device), the
    # whole suite each (CTEST_EXCLUDE, default the pip-install and pytest tests: no network and not the pinned
    # packages there; step zerocopy runs the Python package's GPU tests; CTEST_TIMEOUT seconds for the whole
    # run, default 240). The CUDA backend needs libcuda.so.1 and NVRTC (the image's toolkit; RAID_NVRTC_LIB
    # names another). The disk cache starts empty, so the first run pays the builds. Kept: each run's summary
    # and the last 60 lines of each failed test's output (its rerun), not the whole log.
    export RAID_CACHE_DIR=/tmp/raid-kcache
    rm -rf "$RAID_CACHE_DIR"
    ./build-dev/raid devices | tee "$OUT/cuda.txt"
    ./build-dev/tests/test_nvrtc 2>&1 | tail -15 | tee -a "$OUT/cuda.txt"
    for dev in ${CUDA_DEVS:-cuda $OCL}; do
      log=/tmp/raid-ctest-$dev.log
      echo "== ctest RAID_TEST_DEVICE=$dev" | tee -a "$OUT/cuda.txt"
      start=$(date +%s)
      (cd build-dev && RAID_TEST_DEVICE=$dev timeout ${CTEST_TIMEOUT:-240} ctest -j 8 -E "${CTEST_EXCLUDE:-install|pytest}" >"$log" 2>&1)
      echo "== exit $? in $(( $(date +%s) - start )) s" | tee -a "$OUT/cuda.txt"
      grep -E 'tests passed|tests failed|Total Test time' "$log" | tee -a "$OUT/cuda.txt"
      failed=$(sed -n '/The following tests FAILED/,$p' "$log" | grep -oE '[0-9]+ - [A-Za-z0-9_:.-]+' | sed 's/^[0-9]* - //')
      for t in $failed; do
        echo "== $dev: $t" | tee -a "$OUT/cuda.txt"
        (cd build-dev && RAID_TEST_DEVICE=$dev timeout 60 ctest -R "^$t\$" --output-on-failure 2>&1) | tail -60 >>"$OUT/cuda.txt"
      done
    done
    ls "$RAID_CACHE_DIR" | wc -l | sed 's/^/disk cache entries: /' | tee -a "$OUT/cuda.txt" ;;
  cudadiag) # the tests that outran ctest's limit on CUDA, one at a time (DIAG_TESTS), each line of their output
    # stamped with the seconds since its start; where one is still running after DIAG_SECS, its threads' stacks
    # (gdb where the image has it, else each thread's kernel wait channel and CPU time) before it is killed
    export RAID_CACHE_DIR=/tmp/raid-kcache RAID_TEST_DEVICE=${DIAG_DEVICE:-cuda} RAID_GARCH_PROFILE=1
    for t in ${DIAG_TESTS:-test_garch_api test_garch_batch_agree test_faults}; do
      echo "== $t on $RAID_TEST_DEVICE" | tee -a "$OUT/cudadiag.txt"
      start=$(date +%s.%N)
      (cd build-dev/tests && stdbuf -oL -eL ./$t 2>&1) | while IFS= read -r l; do
        printf '%s %s\n' "$(awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN { printf "%7.2f", a - b }')" "$l"; done >>"$OUT/cudadiag.txt" &
      for i in $(seq 1 $(( ${DIAG_SECS:-90} / 5 ))); do sleep 5; pgrep -x "$t" >/dev/null || break; done
      pid=$(pgrep -x "$t" | head -1)
      if [ -n "$pid" ]; then
        echo "== $t still running after ${DIAG_SECS:-90} s" >>"$OUT/cudadiag.txt"
        if command -v gdb >/dev/null; then
          timeout 60 gdb -batch -p "$pid" -ex 'thread apply all bt 12' 2>&1 | grep -E '^#|^Thread' | head -80 >>"$OUT/cudadiag.txt"
        else
          for task in /proc/$pid/task/*; do echo "$task $(cat $task/wchan) $(awk '{print "utime", $14, "stime", $15}' $task/stat)"; done >>"$OUT/cudadiag.txt"
        fi
        kill "$pid"
      fi
      wait
    done ;;
  backends-realized) # the realized kernel on CUDA and on OpenCL (BACKENDS, default "cuda opencl") at 1e9 returns,
    # both policies, the device path only, then its shapes and layouts side by side (kernel time only: the df
    # groups layout, f32 runs of 8 to 32; on VARIANT_BACKENDS, default both), then the independent realized
    # reference kernels beside them
    # (.refkernels/, a copy of the yardstick kernels and their driver, carried: bench/README.md)
    export RAID_CACHE_DIR=/tmp/raid-kcache
    for be in ${BACKENDS:-cuda $OCL}; do
      run backends-$be 150 ./build-dev/bench_realized --device $be --precision df --reps 3 --no-cpu --no-ablation 1e9
      run backends-$be 150 ./build-dev/bench_realized --device $be --precision f32 --reps 3 --no-cpu --no-ablation 1e9
      case " ${VARIANT_BACKENDS:-cuda $OCL} " in *" $be "*) ;; *) continue ;; esac
      run backends-$be 150 ./build-dev/bench_realized --device $be --precision df --reps 3 --no-cpu --variants \
        "default;4096/256 -DRAID_DF_GROUPS=1;8192/256 -DRAID_DF_GROUPS=1;4096/128 -DRAID_DF_GROUPS=1" 1e9
      run backends-$be 150 ./build-dev/bench_realized --device $be --precision f32 --reps 3 --no-cpu --variants \
        "default;8192/256;2048/256;4096/128;8192/128;16384/512" 1e9
    done
    if [ -f .refkernels/h200_bench.py ]; then
      (cd .refkernels && run backends-ref 200 python3 h200_bench.py 1e9 --only load_f32 naive_f32 native_f64 \
        comp2_f32_k16 exact_df_s4)
    fi ;;
  backends) # every other device benchmark on CUDA and on OpenCL in one run (BACKENDS, default "cuda opencl"),
    # each at the sizes of bench/RESULTS.md's current figures, the device path only (--no-cpu where the
    # benchmark has it), then CuPy's sort on the same machine; the realized kernel is backends-realized
    export RAID_CACHE_DIR=/tmp/raid-kcache
    for be in ${BACKENDS:-cuda $OCL}; do
      run backends-$be 120 ./build-dev/bench_sort --device $be --n 5e7 --reps 5 --check
      run backends-$be 120 ./build-dev/bench_select --device $be --n 50000000 --reps 5 --paths radix
      run backends-$be 150 ./build-dev/bench_groupby --rows 5e7 --groups 1000,100000 --device $be --reps 3
      run backends-$be 150 ./build-dev/bench_garch --device $be --no-cpu
      run backends-$be 120 ./build-dev/bench_sweep --device $be --no-cpu --no-parity
      run backends-$be 150 ./build-dev/bench_regress --device $be --symbols 1000 --days 5000 --window 1000 --step 1 --nw-lag 22
      run backends-$be 150 ./build-dev/bench_noise --device $be --segments 500 --seg-len 23400 --reps 3
      run backends-$be 150 ./build-dev/bench_noise --device $be --precision f32 --segments 500 --seg-len 23400 --reps 3 --no-cpu
    done
    run backends-ref 150 python3 bench/peers_sort.py --n 5e7 --reps 5 --no-raid --no-cpu ;;
  f64) # element-wise binary64 on integer words (bench_f64: kernel and wall times, each result checked against
    # the cpu path bit for bit) beside CuPy's native float64 kernels of the same operations, 5e7 values
    for be in ${BACKENDS:-cuda $OCL}; do
      run f64 ${F64_BENCH_SECS:-240} ./build-dev/bench_f64 --device $be --n 5e7 --reps 5 --check
    done
    run f64 200 python3 bench/peers_f64_cupy.py --n 5e7 --reps 10 --numpy ;;
  f64check) # the arithmetic and every elementary function on each backend (BACKENDS, default "cuda opencl")
    # against the cpu path bit for bit, the cpu result computed once: TestFloat-style operands for + - * /
    # sqrt fma (also against numpy), the worst-case files and F64_N (default 10^8) random inputs a function
    # (bench/f64_device_check.py; needs the package: PYTHONPATH)
    PYTHONUNBUFFERED=1 PYTHONPATH=build-dev/python${PYTHONPATH:+:$PYTHONPATH} run f64check ${F64_SECS:-500} \
      python3 bench/f64_device_check.py --device "$(echo ${BACKENDS:-cuda $OCL} | tr ' ' ,)" --n ${F64_N:-1e8} ;;
  regress-tests)
    ldd build-dev/tests/test_ols | grep -E 'lapack|blas' | tee -a "$OUT/regress-tests.txt"
    (cd build-dev && RAID_TEST_DEVICE=auto run regress-tests 90 ctest --output-on-failure -V -R 'test_ols|test_regress') ;;
  realized1e9-f32)
    run realized1e9 100 ./build-dev/bench_realized --device auto --precision f32 --reps 1 --no-cpu 1e9 ;;
  tests) # the tests read data/ in the checkout
    (cd build-dev && RAID_TEST_DEVICE=auto run tests 200 ctest --output-on-failure -j 8 -E 'pytest|install') ;;
  realized-e2e) # end to end from host arrays (staging and direct uploads, against the host-to-device
    # bandwidth) and the kernel, both policies; then the reference kernels (naive float32, native float64)
    run realized-e2e 200 ./build-dev/bench_realized --device auto --precision df --reps 3 --no-cpu 1e8 1e9
    run realized-e2e 200 ./build-dev/bench_realized --device auto --precision f32 --reps 3 --no-cpu 1e8 1e9
    run realized-e2e 120 python3 bench/ref_realized_kernels.py --n 1e8 1e9 ;;
  realized-variants) # the fused kernel's variants side by side at 1e9 (kernel time only):
    # chunk/work-group (returns per work-item), terms per renormalisation or float run (RAID_FOLD), reloads
    run realized-variants 250 ./build-dev/bench_realized --device auto --precision df --reps 3 --no-cpu --variants \
      "default;4096/256 -DRAID_FOLD=8;4096/256 -DRAID_FOLD=16;4096/256 -DRAID_RELOAD=1;2048/128;4096/128;8192/256;8192/256 -DRAID_RELOAD=1;8192/512" 1e9
    run realized-variants 250 ./build-dev/bench_realized --device auto --precision f32 --reps 3 --no-cpu --variants \
      "default;4096/256 -DRAID_FOLD=16;4096/256 -DRAID_FOLD=4;4096/256 -DRAID_RELOAD=1;2048/128;4096/128;8192/256;8192/256 -DRAID_RELOAD=1;8192/512" 1e9 ;;
  regress-e2e) # regression statistics from host arrays, 1e9 values (2e8 rows of k = 4 and y,
    # problems of 23,400 rows), both policies: the float64-bits path (the one device path), the
    # host-to-device bandwidth of the same run, the breakdown (bench_regress --e2e)
    run regress-e2e 240 ./build-dev/bench_regress --e2e 1e9 --device auto --precision df --reps 3
    run regress-e2e 240 ./build-dev/bench_regress --e2e 1e9 --device auto --precision f32 --reps 3 ;;
  realized)
    run realized 150 ./build-dev/bench_realized --device auto --precision f32 1e7 1e8
    run realized 150 ./build-dev/bench_realized --device auto --precision df 1e7 1e8 ;;
  realized1e9)
    run realized1e9 200 ./build-dev/bench_realized --device auto --precision f32 --reps 1 --no-cpu 1e9
    run realized1e9 200 ./build-dev/bench_realized --device auto --precision df --reps 1 --no-cpu 1e9 ;;
  garch) # bench_garch and Python arch (its wheel unpacked from .wheels/, carried: bench/README.md)
    py=$(python3 -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
    for w in .wheels/arch-*-$py-*.whl; do [ -f "$w" ] && python3 -m zipfile -e "$w" /tmp/raid-wheels; done
    run garch 330 ./build-dev/bench_garch --device auto --dump /tmp/garch_panel.bin
    PYTHONPATH=/tmp/raid-wheels run garch 240 python3 bench/peers_garch.py /tmp/garch_panel.bin ;;
  sweep) # bench_sweep, numba (peers_sweep.py) on the same bars, the CLI's parity check (bench/README.md)
    bars=/tmp/raid-sweep-bars.csv stats=/tmp/raid-sweep-stats.csv
    run sweep 240 ./build-dev/bench_sweep --device auto --cpu-threads all,1 --dump-csv $bars --stats $stats
    # numba: the image's own, else the first carried pair (.wheels-numba/: numba for this Python, llvmlite) that imports
    py=$(python3 -c 'import sys; print("cp%d%d" % sys.version_info[:2])') nb=none nbpath=
    if why=$(python3 -c 'import numba' 2>&1); then nb=image; else
      for w in $(ls -r .wheels-numba/numba-*-$py-*.whl 2>/dev/null); do
        for l in $(ls -r .wheels-numba/llvmlite-* 2>/dev/null); do
          rm -rf /tmp/raid-numba && python3 -m zipfile -e "$w" /tmp/raid-numba && python3 -m zipfile -e "$l" /tmp/raid-numba &&
            why=$(PYTHONPATH=/tmp/raid-numba python3 -c 'import numba' 2>&1) && { nb=carried nbpath=/tmp/raid-numba; break 2; }
        done
      done
    fi
    if [ $nb = none ]; then
      { echo "== sweep: numba does not import ($py, numpy $(python3 -c 'import numpy; print(numpy.__version__)' 2>&1)," \
          "carried: $(ls .wheels-numba 2>/dev/null | tr '\n' ' ')):"; echo "$why" | tail -4; } | tee -a "$OUT/sweep.txt"
    else
      echo "== sweep: numba from the $nb" | tee -a "$OUT/sweep.txt"
      PYTHONUNBUFFERED=1 PYTHONPATH=$nbpath${PYTHONPATH:+${nbpath:+:}$PYTHONPATH} \
        run sweep 150 python3 bench/peers_sweep.py --csv $bars --compare $stats
    fi
    run sweep 30 ./build-dev/raid sweep data/ttrc_daily.csv --fast 5:50:1 --slow 20:200:5 --parity -o /tmp/raid-sweep-ttrc.csv ;;
  groupby100k) # the 100,000-group sums: every path timed side by side (the partitioned ones
    # last: a crash there loses nothing before it), each path's first call checked bit for bit against the cpu
    # path (--verify 1, lines on stderr), the partitioned path's kernels' times on stderr; then the same paths
    # with the partitioned kernels' index checks (RAID_GROUPBY_CHECK: a bad index is an error, not a crash);
    # then the group-by tests on the GPU
    run groupby100k 300 env RAID_GROUPBY_PROFILE=1 ./build-dev/bench_groupby --rows 5e7 --groups 1000,100000 \
      --device auto --reps 3 --verify 1 --paths auto,global,local,eb,part
    run groupby100k-check 120 env RAID_GROUPBY_CHECK=1 ./build-dev/bench_groupby --rows 5e7 --groups 100000 \
      --device auto --reps 1 --verify 1 --paths part
    PYTHONUNBUFFERED=1 run groupby100k 240 python3 bench/peers_groupby.py --rows 5e7 --devices none --reps 3
    (cd build-dev && RAID_TEST_DEVICE=auto run groupby100k-tests 200 ctest --output-on-failure -R 'test_groupby') ;;
  groupby) # exact group sums (bench_groupby: device kernel and wall time, cpu path) beside CuPy's float64 scatter-add
    run groupby 300 ./build-dev/bench_groupby --rows 5e7 --groups 1000,100000 --device auto,cpu --reps 3 --paths auto,global,local,eb,part
    run groupby 120 ./build-dev/bench_groupby --rows 5e7 --groups 1000,100000 --device auto --reps 3 --keys wide
    PYTHONUNBUFFERED=1 PYTHONPATH=build-dev/python${PYTHONPATH:+:$PYTHONPATH} \
      run groupby 240 python3 bench/peers_groupby.py --rows 5e7 --devices auto --reps 3 ;;
  peers) run peers 200 python3 bench/peers.py --numpy 1e7 1e8 --cupy 1e8 1e9 ;;
  csv) # raid realized on a 1e7-tick CSV (all cores, and the scaling), peers that import
    run csv 580 env THREADS_LIST="1 2 4 8 16" BLOCKS_LIST="262144 4194304" PEER_REPS=1 PY=python3 bash bench/bench_csv.sh build-dev /tmp/raid_ticks_1e7.csv ;;
  select) # bench_select on 5e7 doubles (N(0,1), prices), the cpu path, and numpy/CuPy on the very same doubles
    run select 200 ./build-dev/bench_select --device auto --n 50000000 --reps 10 --paths radix,window --dump /tmp/raid-select.bin
    run select 200 ./build-dev/bench_select --device auto --n 50000000 --reps 10 --paths radix,window --prices --dump /tmp/raid-select-prices.bin
    run select 120 ./build-dev/bench_select --device cpu --n 50000000 --reps 3
    run select 200 python3 bench/peers_select.py --raw /tmp/raid-select.bin --reps 5
    run select 200 python3 bench/peers_select.py --raw /tmp/raid-select-prices.bin --reps 5 ;;
  sort) # the device sort, default tiles (20 rounds) and --rounds 16, each call's plan and kernels timed one by one
    # (RAID_SORT_PROFILE: f fill, k sort_keys, p pass, g gather), then CUB
    for v in "" "--rounds 16"; do
      RAID_SORT_PROFILE=1 run sort 150 ./build-dev/bench_sort --device auto --n 5e7 --reps 5 --check $v
    done
    run sort 150 python3 bench/peers_sort.py --n 5e7 --reps 5 --no-raid --no-cpu ;;
  zerocopy) # CUDA arrays in place: test_cuda (the C calls on device memory against host memory, bit for bit;
    # the refusals), the Python module on CuPy arrays (pytest where installed, else the module as a script:
    # its GPU tests), then 1e9 returns already on the GPU through raid.realized against the kernel alone
    export RAID_CACHE_DIR=/tmp/raid-kcache
    run zerocopy 120 ./build-dev/tests/test_cuda
    if python3 -m pytest --version >/dev/null 2>&1; then
      PYTHONPATH=build-dev/python${PYTHONPATH:+:$PYTHONPATH} run zerocopy 240 python3 -m pytest -q -p no:cacheprovider tests/python/test_cuda_arrays.py
    else
      PYTHONPATH=build-dev/python${PYTHONPATH:+:$PYTHONPATH} run zerocopy 240 python3 tests/python/test_cuda_arrays.py
    fi
    PYTHONUNBUFFERED=1 PYTHONPATH=build-dev/python${PYTHONPATH:+:$PYTHONPATH} run zerocopy 400 python3 bench/peers_realized_cupy.py --n 1e9 --reps 5 --check 1e8 --host ;;
  regress)
    run regress 60 python3 bench/peers_regress.py --symbols 10000 --days 5000 --window 1000 --step 1 --nw-lag 22 --sample 500
    run regress 400 ./build-dev/bench_regress --device auto --symbols 10000 --days 5000 --window 1000 --step 1 --nw-lag 22 ;;
  esac
done
# Everything in one file as well ($OUT/all.txt, each part under a "##### NAME" line): the lent machine's tool
# brings back only a few files of $OUT.
(cd "$OUT" && for f in *; do [ "$f" = all.txt ] || { echo "##### $f"; cat "$f"; }; done) >/tmp/raid-all.txt 2>&1 &&
  mv /tmp/raid-all.txt "$OUT/all.txt"
