#!/usr/bin/env bash
# The hybrid condensed KKT form on the GPU (`--device cuda --kkt hybrid`, issue 12, built in
# session 22 on `emu` only; its steps first ran on a GPU in session 29, inside lease-s29.sh:
# results/2026-11-28-h200-run14). On the H100 the condensed form's RTE
# iteration counts were bimodal (runs 11-13: CPU-like, or 4-9x more with hundreds of failed
# Cholesky factorizations; case1888_rte InfeasibleProblemDetected in some runs); the hybrid
# form keeps the equality rows exact and should remove that. At most ~$BUDGET_S s:
#   0. gpu-check stage 5 with --solve-kkt hybrid (the default instances, device vs CPU in
#      the hybrid form: status, objective 1e-6, iterations, bytes per iteration);
#   1. the four RTE cases with --kkt hybrid, then the same with the condensed form (the
#      bimodality check: run step 1 twice when the budget allows, REPEAT=2);
#   2. case118_ieee, case1354_pegase and two GOC cases with --kkt hybrid;
#   3. every PGLIB case with --kkt hybrid, as far as the budget goes.
# Compare iterations, solve_s, counts.cg_iterations, counts.factorizations_inertia and
# bytes_per_iteration (scalars only on cuda: two 8-byte reads per CG iteration) with the
# condensed rows and with the CPU's `--kkt hybrid` (bench-suites/README.md, "The hybrid
# condensed form"). Every step writes $OUT/hybrid/NAME.txt and .jsonl; the folder is tarred
# into $OUT/hybrid.tgz. Run from the repository root, after cuDSS is unpacked (see
# lease-s22.sh):  BIN=target/gpu-bin bash bench-suites/gpu/hybrid.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
BIN="${BIN:-target/gpu-bin}"
OUT="${OUT:-$PWD/gpu-out}"
BUDGET_S="${BUDGET_S:-400}"
REPEAT="${REPEAT:-1}"
RES="$OUT/hybrid"
# shellcheck source=lease-common.sh
source bench-suites/gpu/lease-common.sh
S=("$BIN/simdnlp-bench" solve --backend cpu --max-wall-time 60 --device cuda
  --option cudss_host_threads=16)
RTE=(--suite opf --instance case1888_rte --instance case1951_rte --instance case2848_rte
  --instance case6468_rte)

TAILN=14 step gpu-check-hybrid 90 "$BIN/gpu-check" --device cuda --cases 1 --no-models \
  --no-cudss --no-timing --solve-kkt hybrid --json "$RES/gpu-check-hybrid.json"
for r in $(seq 1 "$REPEAT"); do
  TAILN=6 step "rte-hybrid-$r" 150 "${S[@]}" "${RTE[@]}" --kkt hybrid \
    --json "$RES/rte-hybrid-$r.jsonl"
  TAILN=6 step "rte-condensed-$r" 150 "${S[@]}" "${RTE[@]}" --kkt condensed \
    --json "$RES/rte-condensed-$r.jsonl"
done
TAILN=6 step others-hybrid 60 "${S[@]}" --suite opf --instance case118_ieee \
  --instance case1354_pegase --instance case2000_goc --instance case9591_goc --kkt hybrid \
  --json "$RES/others-hybrid.jsonl"
opf=(--suite opf)
for c in $(pglib_cases); do opf+=(--instance "$c"); done
TAILN=62 step opf-all-hybrid 300 "${S[@]}" "${opf[@]}" --kkt hybrid \
  --json "$RES/opf-all-hybrid.jsonl"
say "done"
cp "$log" "$OUT/lease.log"
tar czf "$OUT/hybrid.tgz" -C "$OUT" hybrid && rm -rf "$RES"
