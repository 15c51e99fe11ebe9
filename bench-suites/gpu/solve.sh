#!/usr/bin/env bash
# Whole solves on the GPU (issue 12), one device call: `simdnlp-bench solve --device cuda`
# (the condensed KKT system on the device with cuDSS) beside `--device cpu --kkt condensed`
# (the same formulation on the CPU) for LV, COPS and PGLIB instances, each run into its own
# `.txt` and `.jsonl` under $OUT (records carry `bytes_per_iteration`). Run from anywhere:
#
#   BIN=target/gpu-bin bash bench-suites/gpu/solve.sh
#
# Expects what run 2 of session 11 carried (bench-suites/results/2026-11-26-h100-run2/
# lease2.sh): $BIN/simdnlp-bench built with `--features cuda`, cuDSS 0.7.1's
# `target/cudss/libcudss.so.0` (pip `nvidia-cudss-cu13==0.7.1.4`, unpacked there by a first
# call: the device tool keeps ignored folders under `target/` between calls, not others;
# or SIMDNLP_CUDSS_LIB), and
# optionally `gpu-data/pglib-opf.tar.xz` (the PGLIB cases beyond the bundled ones; or
# SIMDNLP_PGLIB_DIR). Knobs (environment): BIN, OUT, BUDGET_S (stop starting steps after
# this many seconds, default 480), STEP_S (time limit of one step, default 120),
# MAX_WALL (--max-wall-time per solve, default 60), OPF_CASES (default below), LV_N
# (rosenbrock sizes, default "2000 200000"), DEVICES (default "cuda cpu").
set -uo pipefail
cd "$(dirname "$0")/../.."

BIN="${BIN:-target/gpu-bin}"
OUT="${OUT:-$PWD/gpu-out}"
BUDGET_S="${BUDGET_S:-480}"
STEP_S="${STEP_S:-120}"
MAX_WALL="${MAX_WALL:-60}"
LV_N="${LV_N:-2000 200000}"
DEVICES="${DEVICES:-cuda cpu}"
OPF_CASES="${OPF_CASES:-case5_pjm case14_ieee case118_ieee case1354_pegase case2869_pegase case9591_goc case10000_goc}"
mkdir -p "$OUT"
start=$(date +%s)
log="$OUT/solve.log"
say() { echo "[$(( $(date +%s) - start ))s] $*" | tee -a "$log"; }

if [ -z "${SIMDNLP_PGLIB_DIR:-}" ] && [ -f gpu-data/pglib-opf.tar.xz ]; then
  data=/tmp/simdnlp-solve-data
  mkdir -p "$data" && tar xJf gpu-data/pglib-opf.tar.xz -C "$data" \
    && export SIMDNLP_PGLIB_DIR="$data/pglib-opf"
fi
export SIMDNLP_CUDSS_LIB="${SIMDNLP_CUDSS_LIB:-$PWD/target/cudss/libcudss.so.0}"
export LD_LIBRARY_PATH="/usr/local/nvidia/lib64:/usr/local/cuda/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
say "cuDSS: $SIMDNLP_CUDSS_LIB ($( [ -f "$SIMDNLP_CUDSS_LIB" ] && echo present || echo MISSING )); PGLIB: ${SIMDNLP_PGLIB_DIR:-bundled cases only}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >>"$log" 2>&1 || true

# step NAME CMD...: at most STEP_S seconds (less when the budget runs out)
step() {
  local name=$1; shift
  local left=$(( BUDGET_S - ($(date +%s) - start) ))
  if (( left < 15 )); then say "budget spent: skipping $name"; return 0; fi
  local limit=$(( STEP_S < left ? STEP_S : left ))
  say "$name (limit ${limit}s): $*"
  timeout "$limit" "$@" >"$OUT/$name.txt" 2>&1
  say "$name: exit $?"
  grep -E 'Succeeded|Solve|Failed|Exceeded|error' "$OUT/$name.txt" | tail -n 12
}

lv=(--suite lv)
for n in $LV_N; do lv+=(--instance "rosenbrock:$n"); done
opf=(--suite opf)
for c in $OPF_CASES; do opf+=(--instance "$c"); done
for sel in lv cops opf; do
  case $sel in
    lv) args=("${lv[@]}") ;;
    cops) args=(--suite cops --size small) ;;
    opf) args=("${opf[@]}") ;;
  esac
  for device in $DEVICES; do
    kkt=(--kkt condensed)
    step "solve-$sel-$device" "$BIN/simdnlp-bench" solve "${args[@]}" --device "$device" \
      "${kkt[@]}" --max-wall-time "$MAX_WALL" --json "$OUT/solve-$sel-$device.jsonl"
  done
done
say "done"
