#!/usr/bin/env bash
# lease 2 (session 11): stage 4 (cuDSS), large callbacks tables, stage 3 at large sizes
set -uo pipefail
G=/tmp/g2; mkdir -p /tmp/d $G
tar xJf gpu-data/pglib-opf.tar.xz -C /tmp/d
export SIMDNLP_PGLIB_DIR=/tmp/d/pglib-opf SIMDNLP_CUDSS_LIB=$PWD/gpu-lib/libcudss.so.0
export LD_LIBRARY_PATH=/usr/local/nvidia/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
B=target/gpu-bin
start=$(date +%s)
left() { echo $(( ${BUDGET:-270} - ($(date +%s) - start) )); }
step() { # step NAME SECONDS CMD...
  local name=$1 limit=$2; shift 2
  local l=$(left); (( l < 15 )) && { echo "[$(( $(date +%s)-start ))s] skip $name"; return; }
  (( limit > l )) && limit=$l
  echo "[$(( $(date +%s)-start ))s] $name (limit ${limit}s)"
  timeout $limit "$@" > $G/$name.txt 2>&1; echo "[$(( $(date +%s)-start ))s] $name rc=$?"
}
ldconfig -p | grep -E 'libcublas' > $G/libs.txt
step stage4 60 $B/gpu-check --device cuda --no-models --cudss-instance case118_ieee --cudss-instance rosenbrock:2000 --cudss-instance case9591_goc --cudss-instance case1354_pegase --json $G/gpu-check-stage4.json
tail -22 $G/stage4.txt
for s in lv opf cops; do for d in cuda cpu; do
  step callbacks-$s-large-$d 80 $B/simdnlp-bench callbacks --suite $s --size large --device $d --backend cpu --no-baseline --seconds 0.05 --json $G/callbacks-$s-large-$d.jsonl
done; done
step stage3-large 120 $B/gpu-check --device cuda --size large --no-cudss --json $G/gpu-check-large.json
tail -5 $G/stage3-large.txt
cd $G && tar czf $OUT/gpu-run2.tgz .
for f in $G/callbacks-*-large-*.txt; do echo "== $f"; grep -A3 '^class' $f | tail -n +2; done
