#!/usr/bin/env bash
# lease 4 (session 11): the rest of PGLIB on the GPU, cuDSS Cholesky on the two cases LDLT
# failed, LV and COPS medium on the GPU, and the CPU beside it for two large cases
set -uo pipefail
G=/tmp/g4; mkdir -p /tmp/d $G
tar xJf gpu-data/pglib-opf.tar.xz -C /tmp/d
export SIMDNLP_PGLIB_DIR=/tmp/d/pglib-opf SIMDNLP_CUDSS_LIB=$PWD/target/cudss/libcudss.so.0
export LD_LIBRARY_PATH=/usr/local/nvidia/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
B=target/gpu-bin
start=$(date +%s)
left() { echo $(( ${BUDGET:-200} - ($(date +%s) - start) )); }
step() { # step NAME SECONDS CMD...
  local name=$1 limit=$2; shift 2
  local l=$(left); (( l < 8 )) && { echo "[$(( $(date +%s)-start ))s] skip $name"; return; }
  (( limit > l )) && limit=$l
  echo "[$(( $(date +%s)-start ))s] $name (limit ${limit}s)"
  timeout $limit "$@" > $G/$name.txt 2>&1; echo "[$(( $(date +%s)-start ))s] $name rc=$?"
  tail -n ${TAILN:-6} $G/$name.txt | cut -c1-150
}
nvidia-smi --query-gpu=name,driver_version --format=csv > $G/machine.txt 2>&1
S="$B/simdnlp-bench solve --backend cpu --max-wall-time 15"
rest=""; for c in case2737sop_k case2742_goc case2746wop_k case2746wp_k case2848_rte case2853_sdet case2868_rte case2869_pegase case3012wp_k case3022_goc case3120sp_k case3375wp_k case3970_goc case4020_goc case4601_goc case4619_goc case4661_sdet case4837_goc case4917_goc case5658_epigrids case6468_rte case6470_rte case6495_rte case6515_rte case7336_epigrids case8387_pegase case10192_epigrids case10480_goc; do rest="$rest --instance $c"; done
TAILN=32 step pglib-rest-cuda 125 $S --suite opf $rest --device cuda --json $G/solve-pglib-rest-cuda.jsonl
TAILN=4 step cholesky-cuda 25 $S --suite opf --instance case240_pserc --instance case2312_goc --instance case1354_pegase --device cuda --option cudss_factorization=cholesky --json $G/solve-cholesky-cuda.jsonl
TAILN=22 step lv-medium-cuda 30 $S --suite lv --size medium --device cuda --json $G/solve-lv-medium-cuda.jsonl
TAILN=22 step cops-medium-cuda 30 $S --suite cops --size medium --device cuda --json $G/solve-cops-medium-cuda.jsonl
TAILN=4 step big-cpu 30 $S --suite opf --instance case10000_goc --instance case9591_goc --device cpu --json $G/solve-big-opf-cpu.jsonl
cd $G && tar czf $OUT/gpu-run4.tgz .
