#!/bin/bash
# this branch's tip (after3) and main 0317158 (before) alternated on LV rosenbrock:200000,
# each followed by the CasADi peer; raw JSON lines into $OUT
OUT=/work/wt/cb24/bench-suites/results/2026-11-27-cb24-cpu
for r in ${ROUNDS:-5}; do
  for v in after3 before; do
    B=/tmp/cb24-$v-bench
    for t in 1 2; do
      echo "== run $r $v lv threads $t load $(cat /proc/loadavg)"
      $B callbacks --suite lv --instance rosenbrock:200000 --backend cpu --seconds 0.3 --threads $t --json $OUT/rosen-t$t-$v-$r.jsonl 2>&1 | tail -12
    done
    echo "== casadi $r $v load $(cat /proc/loadavg)"
    python3 /work/wt/cb24/bench-suites/peers/casadi_rosenbrock_callbacks.py 200000 0.5 2>&1 | tail -6
  done
done
echo "== end load $(cat /proc/loadavg)"
