#!/usr/bin/env bash
# lease 6 (session 12): cuDSS Cholesky (the default) on the PGLIB cases LDLT failed and
# case10480_goc; iteration logs of case9591_goc / case10000_goc / rosenbrock:200000
set -uo pipefail
G=/tmp/g6; mkdir -p /tmp/d $G
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
TAILN=12 step failed-ldlt-cholesky 100 $S --suite opf --instance case3022_goc --instance case3120sp_k --instance case3375wp_k --instance case4661_sdet --instance case4837_goc --instance case6515_rte --instance case10480_goc --device cuda --json $G/solve-cholesky-rest.jsonl
TAILN=6 step big-cholesky-log 50 $S --suite opf --instance case9591_goc --instance case10000_goc --device cuda -vv --json $G/solve-big-cholesky.jsonl
TAILN=6 step rosenbrock-log 20 $S --suite lv --instance rosenbrock:200000 --device cuda -vv --json $G/solve-rosenbrock.jsonl
cd $G && tar czf $OUT/gpu-run6.tgz .
