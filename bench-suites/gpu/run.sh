#!/usr/bin/env bash
# One device call on a GPU machine (issue 11): gpu-check stages 1-3, the callbacks tables
# on the CPU and on the CUDA device for LV, COPS and PGLIB, and the rosenbrock Hessian time
# vs N (2e2, 2e4, 2e6). Everything goes under $OUT (default ./gpu-out). Uses the release
# binaries built here with the CUDA feature and carried to the machine (see
# bench-suites/README.md, "GPU runs"):
#
#   BIN=target/gpu-bin bash bench-suites/gpu/run.sh
#
# Knobs (environment): BIN (directory of gpu-check and simdnlp-bench, default
# target/gpu-bin), OUT, SECONDS_PER_BATCH (callbacks --seconds, default 0.1), SIZES
# (callbacks size classes, default "small medium large"), ROSENBROCK_N (default
# "200 20000 2000000"), BUDGET_S (stop starting new steps
# after this many seconds, default 480: one device call may run 600 s), DEVICE (cuda; emu
# runs the same steps on the emulated device, to try the script without a GPU).
set -uo pipefail
cd "$(dirname "$0")/../.."

BIN="${BIN:-target/gpu-bin}"
OUT="${OUT:-$PWD/gpu-out}"
SECONDS_PER_BATCH="${SECONDS_PER_BATCH:-0.1}"
SIZES="${SIZES:-small medium large}"
BUDGET_S="${BUDGET_S:-480}"
DEVICE="${DEVICE:-cuda}"
mkdir -p "$OUT"
start=$(date +%s)
log="$OUT/run.log"
say() { echo "[$(( $(date +%s) - start ))s] $*" | tee -a "$log"; }
in_budget() {
  if (( $(date +%s) - start > BUDGET_S )); then
    say "budget of ${BUDGET_S}s spent: skipping $*"
    return 1
  fi
}
# run NAME CMD...: stdout+stderr to $OUT/NAME.txt, exit code logged (a failure does not
# stop the later steps)
run() {
  local name="$1"; shift
  in_budget "$name" || return 0
  say "$name: $*"
  "$@" >"$OUT/$name.txt" 2>&1
  local rc=$?
  say "$name: exit $rc"
  tail -n 12 "$OUT/$name.txt"
}

# ---- the machine and its CUDA libraries
{
  echo "== nvidia-smi"; nvidia-smi 2>&1 || true
  echo "== ldconfig"; ldconfig -p 2>/dev/null | grep -E 'libcuda\.so|libnvrtc' || true
  echo "== lscpu"; lscpu 2>/dev/null | head -20 || true
} >"$OUT/machine.txt" 2>&1
libdir_of() { ldconfig -p 2>/dev/null | awk -v lib="$1" '$1 == lib { print $NF; exit }' | xargs -r dirname; }
cuda_dir="$(libdir_of libcuda.so.1)"
if [ -n "$cuda_dir" ]; then
  export LD_LIBRARY_PATH="$cuda_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
# NVRTC matching the driver (CUDA 13): the loader's, else a toolkit's, else a pip one
if [ -z "${SIMDNLP_NVRTC_LIB:-}" ]; then
  nvrtc="$(ldconfig -p 2>/dev/null | awk '$1 == "libnvrtc.so.13" { print $NF; exit }')"
  [ -n "$nvrtc" ] || nvrtc="$(ls /usr/local/cuda*/lib64/libnvrtc.so.13 /usr/local/cuda*/targets/*/lib/libnvrtc.so.13 2>/dev/null | head -n 1)"
  [ -n "$nvrtc" ] || nvrtc="$(find / -name 'libnvrtc.so.13' -not -path '/proc/*' 2>/dev/null | head -n 1)"
  [ -n "$nvrtc" ] && export SIMDNLP_NVRTC_LIB="$nvrtc"
fi
say "libcuda dir: ${cuda_dir:-not found}; NVRTC: ${SIMDNLP_NVRTC_LIB:-not found}"

# ---- 1. gpu-check stages 1-3 (small instances of LV, COPS and PGLIB)
run gpu-check "$BIN/gpu-check" --device "$DEVICE" --json "$OUT/gpu-check.json"

# ---- 2. rosenbrock Hessian (and the other callbacks) vs N, CUDA beside the CPU
ros=(--suite lv)
for n in ${ROSENBROCK_N:-200 20000 2000000}; do ros+=(--instance "rosenbrock:$n"); done
run "rosenbrock-$DEVICE" "$BIN/simdnlp-bench" callbacks "${ros[@]}" --device "$DEVICE" \
  --seconds "$SECONDS_PER_BATCH" --json "$OUT/rosenbrock-$DEVICE.jsonl"
run rosenbrock-cpu "$BIN/simdnlp-bench" callbacks "${ros[@]}" --device cpu --backend cpu \
  --no-baseline --seconds "$SECONDS_PER_BATCH" --json "$OUT/rosenbrock-cpu.jsonl"

# ---- 3. callbacks tables, per suite and size class: cuda, then cpu
for size in $SIZES; do
  for suite in lv cops opf; do
    for device in "$DEVICE" cpu; do
      run "callbacks-$suite-$size-$device" "$BIN/simdnlp-bench" callbacks --suite "$suite" \
        --size "$size" --device "$device" --backend cpu --no-baseline \
        --seconds "$SECONDS_PER_BATCH" --json "$OUT/callbacks-$suite-$size-$device.jsonl"
    done
  done
done
say "done"
