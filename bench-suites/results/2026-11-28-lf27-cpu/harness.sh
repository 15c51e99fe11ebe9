#!/bin/bash
# main 5c3d277 (before: /tmp/lf27-before) and this branch (after: /tmp/lf27-after) alternated,
# run from the worktree root under `flock -x /work/wt/cpu.lock`: LV rosenbrock:200000 with
# one thread, each followed by the CasADi peer, then the OPF pair; raw JSON lines next to
# this script
OUT=$(cd "$(dirname "$0")" && pwd)
for r in ${ROUNDS:-1 2}; do
  for v in after before; do
    B=/tmp/lf27-$v
    echo "== run $r $v lv threads 1 load $(cat /proc/loadavg)"
    $B callbacks --suite lv --instance rosenbrock:200000 --backend cpu --seconds 0.3 --threads 1 --json $OUT/rosen-t1-$v-$r.jsonl 2>&1 | tail -12
    echo "== casadi $r $v load $(cat /proc/loadavg)"
    python3 bench-suites/peers/casadi_rosenbrock_callbacks.py 200000 0.5 2>&1 | tail -6
    echo "== run $r $v opf load $(cat /proc/loadavg)"
    $B callbacks --suite opf --instance case1354_pegase --instance case9591_goc --pglib-dir /work/shared/data/pglib-opf --backend cpu --seconds 0.3 --json $OUT/opf-$v-$r.jsonl 2>&1 | tail -14
  done
done
echo "== end load $(cat /proc/loadavg)"
