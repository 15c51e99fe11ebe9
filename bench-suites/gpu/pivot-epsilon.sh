#!/usr/bin/env bash
# Session 22's last device call (issue 12), at most ~$BUDGET_S s: does cuDSS's static pivot
# perturbation (`cudss_pivot_epsilon`, CUDSS_CONFIG_PIVOT_EPSILON) keep its Cholesky from
# failing on case1888_rte's condensed matrices (561-875 iterations on the GPU, 729
# inertia-correction factorizations; 125 and 57 with faer's Cholesky on the CPU)?
#   1. case1888_rte with each epsilon of EPSILONS (default "1e-12 1e-8 1e-4");
#   2. the RTE cases with many GPU iterations and two GOC cases, with the epsilon of step 1
#      that solved case1888_rte in the fewest iterations (or $EPSILON);
#   3. every PGLIB case with it, as far as the budget goes.
# Every step writes $OUT/pivot-eps/NAME.txt and .jsonl; the folder is tarred into
# $OUT/pivot-eps.tgz. Run from the repository root, after cuDSS is unpacked (see
# lease-s22.sh):  BIN=target/gpu-bin bash bench-suites/gpu/pivot-epsilon.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
BIN="${BIN:-target/gpu-bin}"
OUT="${OUT:-$PWD/gpu-out}"
BUDGET_S="${BUDGET_S:-190}"
EPSILONS="${EPSILONS:-1e-12 1e-8 1e-4}"
RES="$OUT/pivot-eps"
# shellcheck source=lease-common.sh
source bench-suites/gpu/lease-common.sh
S=("$BIN/simdnlp-bench" solve --backend cpu --max-wall-time 20 --device cuda
  --option cudss_host_threads=16)

best=""; best_it=""
for eps in $EPSILONS; do
  TAILN=2 step "c1888-$eps" 20 "${S[@]}" --suite opf --instance case1888_rte \
    --option "cudss_pivot_epsilon=$eps" --json "$RES/c1888-$eps.jsonl"
  if grep -q '"success":true' "$RES/c1888-$eps.jsonl" 2>/dev/null; then
    it=$(grep -o '"iterations":[0-9]*' "$RES/c1888-$eps.jsonl" | cut -d: -f2)
    if [ -z "$best_it" ] || (( it < best_it )); then best=$eps; best_it=$it; fi
  fi
done
EPSILON="${EPSILON:-${best:-1e-8}}"
say "steps 2-3 use cudss_pivot_epsilon=$EPSILON (case1888_rte: ${best_it:-no epsilon solved it})"
TAILN=8 step rte-goc 50 "${S[@]}" --suite opf --instance case1951_rte --instance case2848_rte \
  --instance case6468_rte --instance case6495_rte --instance case9591_goc \
  --instance case10000_goc --option "cudss_pivot_epsilon=$EPSILON" --json "$RES/rte-goc.jsonl"
opf=(--suite opf)
for c in $(pglib_cases); do opf+=(--instance "$c"); done
TAILN=62 step opf-all 200 "${S[@]}" "${opf[@]}" --option "cudss_pivot_epsilon=$EPSILON" \
  --json "$RES/opf-all.jsonl"
say "done"
cp "$log" "$OUT/lease.log"
tar czf "$OUT/pivot-eps.tgz" -C "$OUT" pivot-eps && rm -rf "$RES"
