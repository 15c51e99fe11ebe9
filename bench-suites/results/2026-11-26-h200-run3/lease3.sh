#!/usr/bin/env bash
# lease 3 (session 11): reductions after the second pass, stages 2 and 4 again, solves on the GPU
set -uo pipefail
G=/tmp/g3; mkdir -p /tmp/d $G
tar xJf gpu-data/pglib-opf.tar.xz -C /tmp/d
export SIMDNLP_PGLIB_DIR=/tmp/d/pglib-opf SIMDNLP_CUDSS_LIB=$PWD/target/cudss/libcudss.so.0
export LD_LIBRARY_PATH=/usr/local/nvidia/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
B=target/gpu-bin
start=$(date +%s)
left() { echo $(( ${BUDGET:-270} - ($(date +%s) - start) )); }
step() { # step NAME SECONDS CMD...
  local name=$1 limit=$2; shift 2
  local l=$(left); (( l < 10 )) && { echo "[$(( $(date +%s)-start ))s] skip $name"; return; }
  (( limit > l )) && limit=$l
  echo "[$(( $(date +%s)-start ))s] $name (limit ${limit}s)"
  timeout $limit "$@" > $G/$name.txt 2>&1; echo "[$(( $(date +%s)-start ))s] $name rc=$?"
  tail -n ${TAILN:-6} $G/$name.txt
}
nvidia-smi --query-gpu=name,driver_version --format=csv > $G/machine.txt 2>&1
TAILN=3 step stage24 40 $B/gpu-check --device cuda --no-models --json $G/gpu-check-stage24.json
TAILN=8 step rosenbrock-cuda 30 $B/simdnlp-bench callbacks --suite lv --instance rosenbrock:200 --instance rosenbrock:20000 --instance rosenbrock:2000000 --device cuda --seconds 0.05 --json $G/rosenbrock-cuda.jsonl
S="$B/simdnlp-bench solve --backend cpu --max-wall-time 60"
TAILN=8 step solve-first-cuda 40 $S --suite opf --instance case14_ieee --instance case118_ieee --instance case1354_pegase --device cuda --json $G/solve-first-cuda.jsonl
TAILN=8 step solve-big-cuda 70 $S --suite lv --instance rosenbrock:200000 --device cuda --json $G/solve-big-lv-cuda.jsonl
TAILN=8 step solve-bigopf-cuda 70 $S --suite opf --instance case9591_goc --instance case10000_goc --device cuda --json $G/solve-big-opf-cuda.jsonl
TAILN=8 step solve-big-cpu 60 $S --suite lv --instance rosenbrock:200000 --device cpu --kkt condensed --json $G/solve-big-lv-cpu.jsonl
TAILN=30 step solve-pglib-cuda 150 $S --suite opf --size all --device cuda --json $G/solve-pglib-cuda.jsonl
TAILN=20 step solve-lv-medium-cuda 60 $S --suite lv --size medium --device cuda --json $G/solve-lv-medium-cuda.jsonl
TAILN=20 step solve-cops-medium-cuda 60 $S --suite cops --size medium --device cuda --json $G/solve-cops-medium-cuda.jsonl
cd $G && tar czf $OUT/gpu-run3.tgz .
