#!/usr/bin/env bash
# Session 29's device call (issue 12), at most ~$BUDGET_S s: the checks sessions 23-28 left
# for a GPU, in priority order, on a machine whose cuDSS was unpacked by an earlier call.
#   1. gpu-check stages 1-6 on today's main: stage 3 now includes the bitwise check of the
#      device's own `exp`, `sin` and `cos` (`lane/exp-sin-cos`: CUDA's `fma()`, `sn_exp`'s
#      table, the three-part pi/2 reduction against the CPU's bits);
#   2. the goals (rosenbrock:200000 <= 0.25 s, case10000_goc <= 1.0 s) with 16 host threads,
#      condensed and hybrid;
#   3. every PGLIB case with `--kkt hybrid` (never run on a GPU before), then the same with
#      the condensed form (run 12 had 58 of 59 at BASELINE);
#   4. gpu-check stage 5 with `--solve-kkt hybrid` (device vs CPU in the hybrid form);
#   5. the spread: the four RTE cases once more in each form (step 3 is the first sample);
#   6. chain:5000 in both forms;
#   7. LV large and COPS medium on `--device cuda` (agreement with the CPU from the records);
#   8. the machine's CPU (default augmented KKT, one process at a time) on the PGLIB cases
#      above 1 000 buses, largest GPU/CPU ratio first, as far as the budget goes.
# Every step writes $OUT/lease-s29/NAME.txt (and .jsonl/.json); at the end the folder is
# tarred into $OUT/lease-s29.tgz, lease.log and gpu-check.txt beside it. Run from the
# repository root:
#
#   SIMDNLP_PGLIB_DIR=$PWD/target/pglib/pglib-opf BIN=target/gpu-bin bash bench-suites/gpu/lease-s29.sh
#
# Expects $BIN/gpu-check and $BIN/simdnlp-bench built with `--features cuda`, cuDSS 0.7.1
# at target/cudss/libcudss.so.0 (or SIMDNLP_CUDSS_LIB) with its threading layer beside it.
# Knobs (environment): BIN, OUT, BUDGET_S (default 400), MAX_WALL (per solve, default 30),
# SKIP (step names: gpu-check goals opf-hybrid opf-condensed gpu-check-hybrid spread chain
# lvcops cpu).
set -uo pipefail
cd "$(dirname "$0")/../.."

BIN="${BIN:-target/gpu-bin}"
OUT="${OUT:-$PWD/gpu-out}"
BUDGET_S="${BUDGET_S:-400}"
MAX_WALL="${MAX_WALL:-30}"
RES="$OUT/lease-s29"
# shellcheck source=lease-common.sh
source bench-suites/gpu/lease-common.sh

S=("$BIN/simdnlp-bench" solve --backend cpu --max-wall-time "$MAX_WALL")
G=("${S[@]}" --device cuda --option cudss_host_threads=16)
RTE=(--instance case1888_rte --instance case1951_rte --instance case2848_rte
  --instance case6468_rte)
opf=(--suite opf)
for c in $(pglib_cases); do opf+=(--instance "$c"); done

# ---- 1. gpu-check, every stage
skip gpu-check || TAILN=40 step gpu-check 120 "$BIN/gpu-check" --device cuda --cases 2 \
  --solve-max-wall-time "$MAX_WALL" --json "$RES/gpu-check.json"

# ---- 2. the goal instances
if ! skip goals; then
  for kkt in condensed hybrid; do
    TAILN=2 step "goal-$kkt-rosenbrock" 30 "${G[@]}" --kkt "$kkt" --suite lv \
      --instance rosenbrock:200000 --json "$RES/goal-$kkt-rosenbrock.jsonl"
    TAILN=2 step "goal-$kkt-case10000" 30 "${G[@]}" --kkt "$kkt" --suite opf \
      --instance case10000_goc --json "$RES/goal-$kkt-case10000.jsonl"
  done
fi

# ---- 3. every PGLIB case, hybrid then condensed
skip opf-hybrid || TAILN=62 step opf-hybrid 150 "${G[@]}" --kkt hybrid "${opf[@]}" \
  --json "$RES/opf-hybrid.jsonl"
skip opf-condensed || TAILN=62 step opf-condensed 120 "${G[@]}" --kkt condensed "${opf[@]}" \
  --json "$RES/opf-condensed.jsonl"

# ---- 4. stage 5 in the hybrid form
skip gpu-check-hybrid || TAILN=14 step gpu-check-hybrid 60 "$BIN/gpu-check" --device cuda \
  --cases 1 --no-models --no-cudss --no-timing --solve-kkt hybrid \
  --solve-max-wall-time "$MAX_WALL" --json "$RES/gpu-check-hybrid.json"

# ---- 5. the RTE cases again (spread)
if ! skip spread; then
  for kkt in hybrid condensed; do
    TAILN=6 step "rte-$kkt-2" 60 "${G[@]}" --kkt "$kkt" --suite opf "${RTE[@]}" \
      --json "$RES/rte-$kkt-2.jsonl"
  done
fi

# ---- 6. chain:5000
if ! skip chain; then
  for kkt in hybrid condensed; do
    TAILN=2 step "chain-$kkt" 30 "${G[@]}" --kkt "$kkt" --suite cops --instance chain:5000 \
      --json "$RES/chain-$kkt.jsonl"
  done
fi

# ---- 7. LV large, COPS medium on the device (condensed, the default on cuda)
skip lvcops || lv_cops_on_device "${S[@]}" --option cudss_host_threads=16

# ---- 8. the CPU of this machine on the cases above 1 000 buses, one at a time (the ones
# with the largest GPU/CPU ratios in earlier runs first, then the rest in name order)
if ! skip cpu; then
  first=(case1888_rte case1951_rte case6468_rte)
  rest=$(pglib_cases | awk '{ n = substr($1, 5) + 0; if (n > 1000) print }' \
    | grep -vxF -f <(printf '%s\n' "${first[@]}"))
  for c in "${first[@]}" $rest; do
    TAILN=1 step "cpu-$c" 40 "${S[@]}" --suite opf --instance "$c" --json "$RES/cpu-$c.jsonl"
  done
fi
say "done"
cp "$log" "$OUT/lease.log"
cp "$RES/gpu-check.txt" "$OUT/gpu-check.txt" 2>/dev/null
tar czf "$OUT/lease-s29.tgz" -C "$OUT" lease-s29 && rm -rf "$RES"
