#!/usr/bin/env bash
# lease 8 (session 12): LV and COPS medium and large on the GPU with cuDSS Cholesky
# case10480_goc; iteration logs of case9591_goc / case10000_goc / rosenbrock:200000
set -uo pipefail
G=/tmp/g8; mkdir -p /tmp/d $G
tar xJf gpu-data/pglib-opf.tar.xz -C /tmp/d
export SIMDNLP_PGLIB_DIR=/tmp/d/pglib-opf SIMDNLP_CUDSS_LIB=$PWD/target/cudss/libcudss.so.0
export LD_LIBRARY_PATH=/usr/local/nvidia/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
B=target/gpu-bin
start=$(date +%s)
left() { echo $(( ${BUDGET:-300} - ($(date +%s) - start) )); }
step() {
  local name=$1 limit=$2; shift 2
  local l=$(left); (( l < 8 )) && { echo "[$(( $(date +%s)-start ))s] skip $name"; return; }
  (( limit > l )) && limit=$l
  echo "[$(( $(date +%s)-start ))s] $name (limit ${limit}s)"
  timeout $limit "$@" > $G/$name.txt 2>&1; echo "[$(( $(date +%s)-start ))s] $name rc=$?"
  grep -E '^(case|rosen|  case|  rosen)|Solve|Restor|Maximum' $G/$name.txt | tail -n ${TAILN:-6} | cut -c1-160
}
nvidia-smi --query-gpu=name,driver_version --format=csv > $G/machine.txt 2>&1
S="$B/simdnlp-bench solve --backend cpu --max-wall-time 30"
TAILN=20 step lv-medium 50 $S --suite lv --size medium --device cuda --json $G/solve-lv-medium.jsonl
TAILN=20 step lv-large 70 $S --suite lv --size large --device cuda --json $G/solve-lv-large.jsonl
TAILN=12 step cops-medium 60 $S --suite cops --size medium --device cuda --json $G/solve-cops-medium.jsonl
TAILN=12 step cops-large 70 $S --suite cops --size large --device cuda --json $G/solve-cops-large.jsonl
cd $G && tar czf $OUT/gpu-run8.tgz .
