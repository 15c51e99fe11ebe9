#!/bin/bash
# this branch (after: /tmp/tx27-after) and main 5c3d277 (before: /tmp/tx27-before) alternated on
# LV rosenbrock:200000 with one thread, each followed by the CasADi peer; raw JSON lines next
# to this script; run under flock -x /work/wt/cpu.lock from the worktree root
OUT=$(cd "$(dirname "$0")" && pwd)
for r in ${ROUNDS:-1}; do
  for v in ${VERSIONS:-after before}; do
    echo "== run $r $v lv threads 1 load $(cat /proc/loadavg)"
    /tmp/tx27-$v callbacks --suite lv --instance rosenbrock:200000 --backend cpu --seconds 0.3 --threads 1 --json $OUT/rosen-t1-$v-$r.jsonl 2>&1 | tail -12
    echo "== casadi $r $v load $(cat /proc/loadavg)"
    python3 bench-suites/peers/casadi_rosenbrock_callbacks.py 200000 0.5 2>&1 | tail -6
  done
done
echo "== end load $(cat /proc/loadavg)"
