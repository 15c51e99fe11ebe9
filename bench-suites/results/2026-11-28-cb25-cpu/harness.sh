#!/bin/bash
# this branch (after: /tmp/cb25-after) and main 4814954 (before: /tmp/cb25-before) alternated
# on LV rosenbrock:200000, each followed by the CasADi peer; raw JSON lines next to this script
OUT=$(cd "$(dirname "$0")" && pwd)
for r in ${ROUNDS:-1}; do
  for v in after before; do
    B=/tmp/cb25-$v
    for t in 1 2; do
      echo "== run $r $v lv threads $t load $(cat /proc/loadavg)"
      $B callbacks --suite lv --instance rosenbrock:200000 --backend cpu --seconds 0.3 --threads $t --json $OUT/rosen-t$t-$v-$r.jsonl 2>&1 | tail -12
    done
    echo "== casadi $r $v load $(cat /proc/loadavg)"
    python3 /work/wt/cb25/bench-suites/peers/casadi_rosenbrock_callbacks.py 200000 0.5 2>&1 | tail -6
  done
done
echo "== end load $(cat /proc/loadavg)"
