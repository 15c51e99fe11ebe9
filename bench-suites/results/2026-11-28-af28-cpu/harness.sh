#!/bin/bash
# branch af28 (after: $AFTER, default /tmp/af28-after) and main 8630ce6
# (before: /tmp/af28-before) alternated on LV rosenbrock:200000 with one thread, each
# followed by the CasADi peer, each pair under one flock; raw JSON lines next to this script.
# Ratios: python3 ratios5.py harness.txt
OUT=$(cd "$(dirname "$0")" && pwd)
cd /work/wt/af28
for r in ${ROUNDS:-1 2 3}; do
  for v in ${VERSIONS:-after before}; do
    B=/tmp/af28-before; [ $v = after ] && B=${AFTER:-/tmp/af28-after}
    flock -x /work/wt/cpu.lock bash -c "
    echo \"== run $r $v lv threads 1 load \$(cat /proc/loadavg)\"
    $B callbacks --suite lv --instance rosenbrock:200000 --backend cpu --seconds 0.3 --threads 1 --json $OUT/rosen-t1-$v-$r.jsonl 2>&1 | tail -12
    echo \"== casadi $r $v load \$(cat /proc/loadavg)\"
    python3 bench-suites/peers/casadi_rosenbrock_callbacks.py 200000 0.5 2>&1 | tail -6"
  done
done
echo "== end load $(cat /proc/loadavg)"
