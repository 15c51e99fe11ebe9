#!/usr/bin/env bash
# Session 19's device call (issue 12), at most ~520 s: every GPU check the issue's "done
# means" lists, in one call on a machine whose cuDSS was unpacked by an earlier call.
#   1. gpu-check stages 1, 2, 4, 5 and 6 (stage 4: cuDSS on condensed KKT matrices; 5: solves
#      on the device against the CPU's condensed solve; 6: the timed goal solves);
#   2. rosenbrock:200000 and case10000_goc under each cuDSS setting of CONFIGS (a list of
#      NAME=OPTION,OPTION...: e.g. cuDSS's own reordering, the host's AMD, cuDSS's
#      multi-threaded mode);
#   3. every PGLIB case of the data directory on `--device cuda` (one process; the
#      setting of step 2 with the least solve time over its two instances, or $CONFIG);
#   4. LV large and COPS medium on `--device cuda` (agreement with the CPU is checked off
#      the device, from the records);
#   5. the PGLIB cases above 1 000 buses on this machine's CPU, `--device cpu` (augmented,
#      the CPU default), JOBS processes at a time (one thread each), for the GPU/CPU table;
#   6. bench-suites/gpu/resto.sh on two RTE cases (host-device bytes per restoration phase).
# Every step writes $OUT/lease-s19/NAME.txt (and .jsonl/.json); at the end the folder is
# tarred into $OUT/lease-s19.tgz and removed (the device tool brings back a limited number
# of files), lease.log and gpu-check.txt are kept beside the archive. Run from anywhere:
#
#   BIN=target/gpu-bin bash bench-suites/gpu/lease-s19.sh
#
# Expects $BIN/gpu-check and $BIN/simdnlp-bench built with `--features cuda`, cuDSS 0.7.1 at
# target/cudss/libcudss.so.0 (or SIMDNLP_CUDSS_LIB), gpu-data/pglib-opf.tar.xz (or
# SIMDNLP_PGLIB_DIR). Knobs (environment): BIN, OUT, BUDGET_S (default 520), MAX_WALL
# (--max-wall-time per solve, default 30), CONFIGS (default
# "default=cudss_reordering=default mt16=cudss_host_threads=16"), CONFIG (steps 3-4's, a
# name of CONFIGS), JOBS (parallel CPU processes in step 5, default 8), SKIP (names of the
# steps to skip: gpu-check lvcops cpu resto).
set -uo pipefail
cd "$(dirname "$0")/../.."

BIN="${BIN:-target/gpu-bin}"
OUT="${OUT:-$PWD/gpu-out}"
BUDGET_S="${BUDGET_S:-520}"
MAX_WALL="${MAX_WALL:-30}"
CONFIGS="${CONFIGS:-default=cudss_reordering=default mt16=cudss_host_threads=16}"
JOBS="${JOBS:-8}"
RES="$OUT/lease-s19"
# shellcheck source=lease-common.sh
source bench-suites/gpu/lease-common.sh

S=("$BIN/simdnlp-bench" solve --backend cpu --max-wall-time "$MAX_WALL")

# ---- 1. gpu-check stages 1, 2, 4, 5, 6
skip gpu-check || TAILN=30 step gpu-check 120 "$BIN/gpu-check" --device cuda --cases 2 --no-models \
  --solve-max-wall-time "$MAX_WALL" --json "$RES/gpu-check.json"

# ---- 2. cuDSS settings on the two goal instances
sweep_goal_configs 25 "${S[@]}"
CONFIG="${CONFIG:-${FASTEST_CONFIG:-default}}"
mapfile -t flags < <(flags_of "$(config_options "$CONFIG")")
say "steps 3-4 run the GPU with $CONFIG: ${flags[*]}"

# ---- 3. every PGLIB case on the device
opf=(--suite opf)
mapfile -t all < <(pglib_cases)
for c in "${all[@]}"; do opf+=(--instance "$c"); done
TAILN=62 step opf-cuda 260 "${S[@]}" "${opf[@]}" --device cuda "${flags[@]}" \
  --json "$RES/opf-cuda.jsonl"

# ---- 4. LV large, COPS medium on the device
skip lvcops || lv_cops_on_device "${S[@]}" "${flags[@]}"

# ---- 5. PGLIB above 1 000 buses on this machine's CPU (augmented, the default), in parallel
big=()
for c in "${all[@]}"; do
  buses=$(echo "$c" | sed 's/^case\([0-9]*\).*/\1/')
  (( buses > 1000 )) && big+=("$c")
done
mkdir -p "$RES/cpu"
cpu_one() {
  timeout -k 5 120 "$BIN/simdnlp-bench" solve --backend cpu --max-wall-time 100 --suite opf \
    --instance "$1" --device cpu --json "$RES/cpu/$1.jsonl" >"$RES/cpu/$1.txt" 2>&1
}
export -f cpu_one; export BIN RES
left=$(( BUDGET_S - ($(date +%s) - start) - 70 ))
if (( left > 30 )) && ! skip cpu; then
  say "opf-cpu: ${#big[@]} cases, $JOBS at a time, limit ${left}s"
  printf '%s\n' "${big[@]}" | timeout -k 5 "$left" xargs -P "$JOBS" -I{} bash -c 'cpu_one {}'
  cat "$RES"/cpu/*.jsonl >"$RES/opf-cpu.jsonl" 2>/dev/null
  say "opf-cpu: $(wc -l <"$RES/opf-cpu.jsonl") records"
fi

# ---- 6. restoration bytes on the device
left=$(( BUDGET_S - ($(date +%s) - start) ))
if (( left > 30 )) && ! skip resto; then
  OUT="$RES" CASES="case2848_rte case2868_rte" STEP_S=$(( left / 2 - 2 )) BIN="$BIN" \
    bash bench-suites/gpu/resto.sh >"$RES/resto.txt" 2>&1
  say "resto: exit $?"
  tail -n 6 "$RES/resto.txt"
fi
say "done"
cp "$log" "$OUT/lease.log"
cp "$RES/gpu-check.txt" "$OUT/gpu-check.txt" 2>/dev/null
tar czf "$OUT/lease-s19.tgz" -C "$OUT" lease-s19 && rm -rf "$RES"
