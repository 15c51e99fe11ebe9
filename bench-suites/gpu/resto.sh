#!/usr/bin/env bash
# Restoration phases on the device (issue 12, session 13), one device call of about
# 2 minutes: the PGLIB cases that enter restoration (session 12: the RTE cases moved
# 27-893 KB per iteration, case2742_goc 369 KB) solved with `--device $DEVICE` (the
# condensed KKT system on the device) at `print_level = debug`, so that each restoration
# phase logs its host-device bytes at set-up ("restoration phase set up ... first=true
# bytes=N" once per solve, then `bytes=8`, one scalar, for every later phase). Each
# case writes $OUT/resto/CASE.txt (the log) and CASE.jsonl (the record: restorations,
# analyses, bytes_per_iteration); $OUT/resto/phases.txt collects the set-up lines. Run from
# anywhere:
#
#   BIN=target/gpu-bin bash bench-suites/gpu/resto.sh
#
# Expects what bench-suites/gpu/solve.sh expects ($BIN/simdnlp-bench built with
# `--features cuda`, cuDSS at target/cudss/libcudss.so.0 or SIMDNLP_CUDSS_LIB, optionally
# gpu-data/pglib-opf.tar.xz or SIMDNLP_PGLIB_DIR). Knobs (environment): BIN, OUT, DEVICE
# (default cuda; `emu` checks the script without a GPU), CASES (default below), STEP_S
# (time limit per case, default 40), MAX_WALL (--max-wall-time, default 30).
set -uo pipefail
cd "$(dirname "$0")/../.."

BIN="${BIN:-target/gpu-bin}"
OUT="${OUT:-$PWD/gpu-out}"
DEVICE="${DEVICE:-cuda}"
STEP_S="${STEP_S:-40}"
MAX_WALL="${MAX_WALL:-30}"
# restorations on the CPU's condensed solve (session 13): case1888_rte 1, case2742_goc 1,
# case2848_rte 2, case2868_rte 1; the larger RTE cases were reported by session 12's run 6
CASES="${CASES:-case1888_rte case2742_goc case2848_rte case2868_rte case6468_rte case6515_rte}"
RES="$OUT/resto"
mkdir -p "$RES"
if [ -z "${SIMDNLP_PGLIB_DIR:-}" ] && [ -f gpu-data/pglib-opf.tar.xz ]; then
  data=/tmp/simdnlp-resto-data
  mkdir -p "$data" && tar xJf gpu-data/pglib-opf.tar.xz -C "$data" \
    && export SIMDNLP_PGLIB_DIR="$data/pglib-opf"
fi
export SIMDNLP_CUDSS_LIB="${SIMDNLP_CUDSS_LIB:-$PWD/target/cudss/libcudss.so.0}"
export LD_LIBRARY_PATH="/usr/local/nvidia/lib64:/usr/local/cuda/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 || true
  git rev-parse HEAD 2>/dev/null || true
} >"$RES/machine.txt"
: >"$RES/phases.txt"
for c in $CASES; do
  echo "== $c ($DEVICE)"
  timeout -k 5 "$STEP_S" "$BIN/simdnlp-bench" solve --backend cpu --suite opf --instance "$c" \
    --device "$DEVICE" --kkt condensed --max-wall-time "$MAX_WALL" \
    --option print_level=debug --json "$RES/$c.jsonl" >"$RES/$c.txt" 2>&1
  echo "exit $?"
  grep "restoration phase set up" "$RES/$c.txt" | sed "s/^/$c: /" | tee -a "$RES/phases.txt"
  grep -o '"status":"[A-Za-z]*"\|"iterations":[0-9]*\|"restorations":[0-9]*\|"analyses":[0-9]*\|"bytes_per_iteration":[0-9.eE+-]*' \
    "$RES/$c.jsonl" 2>/dev/null | tr '\n' ' '
  echo
done
