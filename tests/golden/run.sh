#!/usr/bin/env bash
# Produce the outputs that tests/golden/expected/ records: `raid realized` and `raid har` on the bundled
# real data and on simulated data, on the cpu backend and on an OpenCL device in both precision
# policies. Usage: run.sh RAID SRCDIR OUTDIR [DEVICE]. The files in expected/ were written by this script
# with the `raid` of commit 16cece3, before the library and CLI were reshaped; check.sh compares.
set -euo pipefail
raid=$1 src=$2 out=$3 dev=${4:-opencl}
data=$src/data
mkdir -p "$out"
"$raid" simulate -o "$out/sim_prices.csv" --iv "$out/sim_iv.csv" --seed 7 --symbols 3 --days 4 --obs 2341 \
  --noise-sd 1e-4

realized() { # name input options...
  local name=$1 in=$2; shift 2
  "$raid" realized "$in" --device cpu "$@" -o "$out/realized_${name}_cpu.csv"
  "$raid" realized "$in" --device "$dev" --precision f32 "$@" -o "$out/realized_${name}_f32.csv"
  "$raid" realized "$in" --device "$dev" --precision df "$@" -o "$out/realized_${name}_df.csv"
}
realized usdchf "$data/usdchf_30min.csv" --sample 30min
realized onemin "$data/onemin_stock_market.csv" --sample 5min --session 09:30-16:00
realized trades "$data/trades_xxx_2days.csv" --sample tick
realized sim1min "$out/sim_prices.csv" --sample 1min
realized simtick "$out/sim_prices.csv" --sample tick

har() { # name input options...
  local name=$1 in=$2; shift 2
  for d in cpu "$dev"; do
    local tag=cpu; [ "$d" = cpu ] || tag=dev
    "$raid" har "$in" --device "$d" "$@" -o "$out/har_${name}_${tag}.csv" 2>"$out/har_${name}_${tag}.stderr"
  done
}
spy=(--date-col DT --rv-col RV5 --bpv-col BPV5 --rq-col RQ5)
har spy_har "$data/spy_realized_measures.csv" "${spy[@]}" --model har --se nw
har spy_harj_log "$data/spy_realized_measures.csv" "${spy[@]}" --model har-j --transform log --se white
har spy_harq_roll "$data/spy_realized_measures.csv" "${spy[@]}" --model harq --window rolling:1000 --se nw
har spy_har_exp "$data/spy_realized_measures.csv" "${spy[@]}" --model har --transform sqrt --h 5 \
  --window expanding:1200 --se ols
har usdchf_cj "$out/realized_usdchf_cpu.csv" --model har-cj --transform log --se nw --nw-lag 10
har usdchf_roll "$out/realized_usdchf_cpu.csv" --model har-j --window rolling:500 --se nw
