#!/usr/bin/env bash
# Session 22's device call (issue 12), at most ~$BUDGET_S s: the checks sessions 19-21 left
# for a GPU, in one call on a machine whose cuDSS was unpacked by an earlier call.
#   1. gpu-check stages 1, 2, 4, 5 and 6 on today's main;
#   2. rosenbrock:200000 and case10000_goc under each setting of CONFIGS (NAME=OPTION,...),
#      by default cuDSS's multi-threaded mode alone and with `cudss_nd_levels` (fewer
#      nested-dissection levels: is the analysis, most of rosenbrock's solve, cheaper?);
#   3. determinism: case10000_goc and catmix:200 twice with `cudss_deterministic=yes` and
#      twice without (run 8-10 repeated case10000_goc in 84-89 iterations, catmix:200 in
#      29-44);
#   4. the RTE cases with most GPU iterations in run 10 (case1888_rte failed there with
#      cuDSS's Cholesky) with `cudss_factorization=ldlt`;
#   5. chain:5000 (`RestorationFailed` in run 9) with Cholesky and with LDLᵀ;
#   6. every PGLIB case of the data directory on `--device cuda` with step 2's fastest
#      setting, plus `cudss_factorization=ldlt` when step 4 solved all its cases in fewer
#      iterations than run 10's Cholesky (3 523), or $CONFIG6 (option flags, comma-separated);
#   7. LV large and COPS medium on `--device cuda` (agreement with the CPU's condensed form
#      is checked off the device, from the records), with step 6's setting.
# Every step writes $OUT/lease-s22/NAME.txt (and .jsonl/.json); at the end the folder is
# tarred into $OUT/lease-s22.tgz (the device tool brings back at most 8 files), lease.log
# and gpu-check.txt are kept beside it. Run from the repository root:
#
#   BIN=target/gpu-bin bash bench-suites/gpu/lease-s22.sh
#
# Expects what lease-s19.sh expects ($BIN/gpu-check and $BIN/simdnlp-bench built with
# `--features cuda`, cuDSS 0.7.1 at target/cudss/libcudss.so.0 or SIMDNLP_CUDSS_LIB,
# gpu-data/pglib-opf.tar.xz or SIMDNLP_PGLIB_DIR). Knobs (environment): BIN, OUT, BUDGET_S
# (default 540), MAX_WALL (--max-wall-time per solve, default 30), CONFIGS, CONFIG6,
# DET_OPTIONS (step 3's other options, default cudss_host_threads=16), DET_RUNS (runs per
# mode in step 3, default 2), SKIP (names of steps to skip: gpu-check determinism rte chain
# opf lvcops).
set -uo pipefail
cd "$(dirname "$0")/../.."

BIN="${BIN:-target/gpu-bin}"
OUT="${OUT:-$PWD/gpu-out}"
BUDGET_S="${BUDGET_S:-540}"
MAX_WALL="${MAX_WALL:-30}"
MT="cudss_host_threads=16"
CONFIGS="${CONFIGS:-mt16=$MT nd2=$MT,cudss_nd_levels=2 nd4=$MT,cudss_nd_levels=4 nd6=$MT,cudss_nd_levels=6 nd8=$MT,cudss_nd_levels=8}"
RES="$OUT/lease-s22"
# shellcheck source=lease-common.sh
source bench-suites/gpu/lease-common.sh

S=("$BIN/simdnlp-bench" solve --backend cpu --max-wall-time "$MAX_WALL")
# the sum of `iterations` over FILE's records when all succeeded and there are N, else nothing
iteration_sum() {
  local file=$1 n=$2
  [ "$(grep -c '"success":true' "$file" 2>/dev/null)" = "$n" ] || return 0
  grep -o '"iterations":[0-9]*' "$file" | cut -d: -f2 | awk '{ t += $1 } END { print t }'
}

# ---- 1. gpu-check stages 1, 2, 4, 5, 6
skip gpu-check || TAILN=30 step gpu-check 90 "$BIN/gpu-check" --device cuda --cases 2 --no-models \
  --solve-max-wall-time "$MAX_WALL" --json "$RES/gpu-check.json"

# ---- 2. cuDSS settings on the two goal instances
sweep_goal_configs 20 "${S[@]}"
best=${FASTEST_CONFIG:-mt16}
say "fastest setting on the goal instances: $best ($(config_options "$best"))"

# ---- 3. determinism
if ! skip determinism; then
  for mode in yes no; do
    mapfile -t flags < <(flags_of "${DET_OPTIONS:-$MT},cudss_deterministic=$mode")
    for k in $(seq "${DET_RUNS:-2}"); do
      TAILN=2 step "det-$mode-$k" 30 "${S[@]}" --suite opf --instance case10000_goc --device cuda \
        "${flags[@]}" --json "$RES/det-$mode-$k.jsonl"
      TAILN=2 step "det-$mode-catmix-$k" 20 "${S[@]}" --suite cops --instance catmix:200 \
        --device cuda "${flags[@]}" --json "$RES/det-$mode-catmix-$k.jsonl"
    done
  done
fi

# ---- 4. the RTE cases with LDLᵀ
rte_iterations=""
if ! skip rte; then
  mapfile -t flags < <(flags_of "$MT,cudss_factorization=ldlt")
  TAILN=6 step rte-ldlt 90 "${S[@]}" --suite opf --instance case1888_rte --instance case1951_rte \
    --instance case2848_rte --instance case6495_rte --device cuda "${flags[@]}" \
    --json "$RES/rte-ldlt.jsonl"
  rte_iterations=$(iteration_sum "$RES/rte-ldlt.jsonl" 4)
  say "rte-ldlt: iterations ${rte_iterations:-(not all solved)} (run 10, Cholesky: 3523, case1888_rte failed)"
fi

# ---- 5. chain:5000
if ! skip chain; then
  for kind in cholesky ldlt; do
    mapfile -t flags < <(flags_of "$MT,cudss_factorization=$kind")
    TAILN=2 step "chain-$kind" 45 "${S[@]}" --suite cops --instance chain:5000 --device cuda \
      "${flags[@]}" --json "$RES/chain-$kind.jsonl"
  done
fi

# ---- 6. every PGLIB case on the device
if [ -z "${CONFIG6:-}" ]; then
  CONFIG6=$(config_options "$best")
  if [ -n "$rte_iterations" ] && (( rte_iterations < 3523 )); then
    CONFIG6="$CONFIG6,cudss_factorization=ldlt"
  fi
fi
mapfile -t flags < <(flags_of "$CONFIG6")
say "steps 6-7 run the GPU with: ${flags[*]}"
if ! skip opf; then
  opf=(--suite opf)
  for c in $(pglib_cases); do opf+=(--instance "$c"); done
  TAILN=62 step opf-cuda 240 "${S[@]}" "${opf[@]}" --device cuda "${flags[@]}" \
    --json "$RES/opf-cuda.jsonl"
fi

# ---- 7. LV large, COPS medium on the device
skip lvcops || lv_cops_on_device "${S[@]}" "${flags[@]}"
say "done"
cp "$log" "$OUT/lease.log"
cp "$RES/gpu-check.txt" "$OUT/gpu-check.txt" 2>/dev/null
tar czf "$OUT/lease-s22.tgz" -C "$OUT" lease-s22 && rm -rf "$RES"
