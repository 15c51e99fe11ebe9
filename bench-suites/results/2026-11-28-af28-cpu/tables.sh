#!/bin/bash
# callbacks tables, main 8630ce6 (before: /tmp/af28-before) and branch af28 (after:
# /tmp/af28-after) alternated per suite/size, one thread, each run under one flock; JSON
# lines next to this script. python3 tables.py cb-X-before.jsonl cb-X-after.jsonl
OUT=$(cd "$(dirname "$0")" && pwd)
cd /work/wt/af28
for job in "lv medium" "cops medium" "lv large"; do
  set -- $job
  for v in after before; do
    B=/tmp/af28-$v
    flock -x /work/wt/cpu.lock bash -c "
    echo \"== $1 $2 $v load \$(cat /proc/loadavg)\"
    $B callbacks --suite $1 --size $2 --backend cpu --seconds 0.1 --threads 1 --no-baseline --json $OUT/cb-$1-$2-$v.jsonl 2>&1 | tail -4"
  done
done
for v in after before; do
  B=/tmp/af28-$v
  flock -x /work/wt/cpu.lock bash -c "
  echo \"== opf $v load \$(cat /proc/loadavg)\"
  $B callbacks --suite opf --instance case1354_pegase --instance case9591_goc --pglib-dir /work/shared/data/pglib-opf --seconds 0.1 --threads 1 --json $OUT/cb-opf-$v.jsonl 2>&1 | tail -6"
done
echo "== end load $(cat /proc/loadavg)"
