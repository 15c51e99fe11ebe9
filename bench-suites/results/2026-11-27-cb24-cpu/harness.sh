#!/bin/bash
# alternated before/after harness runs; raw JSON lines into $OUT
OUT=/work/wt/cb24/bench-suites/results/2026-11-27-cb24-cpu
P=/work/shared/data/pglib-opf
for r in 1 2; do
  for v in before after; do
    B=/tmp/cb24-$v-bench
    for t in 1 2; do
      echo "== run $r $v lv threads $t load $(cat /proc/loadavg)"
      $B callbacks --suite lv --instance rosenbrock:200000 --backend cpu --seconds 0.3 --threads $t --json $OUT/rosen-t$t-$v-$r.jsonl 2>&1 | tail -12
    done
    echo "== casadi $r $v load $(cat /proc/loadavg)"
    python3 /work/wt/cb24/bench-suites/peers/casadi_rosenbrock_callbacks.py 200000 0.5 2>&1 | tail -6
    echo "== run $r $v opf load $(cat /proc/loadavg)"
    $B callbacks --suite opf --instance case1354_pegase --instance case9591_goc --backend cpu --pglib-dir $P --seconds 0.3 --json $OUT/opf-$v-$r.jsonl 2>&1 | tail -16
  done
done
echo "== casadi load $(cat /proc/loadavg)"
python3 /work/wt/cb24/bench-suites/peers/casadi_rosenbrock_callbacks.py 200000 0.5 2>&1 | tail -12
echo "== end load $(cat /proc/loadavg)"
