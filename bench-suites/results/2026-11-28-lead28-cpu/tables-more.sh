#!/bin/bash
# callbacks tables for the sizes tables.sh leaves out (LV small, COPS small, COPS large):
# main 9bd0103 (before: /tmp/lead28-before) and main after session 28's merges (after:
# /tmp/lead28-after) alternated, one thread, each run under one flock (timeout 600 s)
OUT=$(cd "$(dirname "$0")" && pwd)
cd /work/main
for job in "lv small" "cops small" "cops large"; do
  set -- $job
  for v in after before; do
    B=/tmp/lead28-$v
    flock -x /work/wt/cpu.lock bash -c "
    echo \"== $1 $2 $v load \$(cat /proc/loadavg)\"
    timeout 600 $B callbacks --suite $1 --size $2 --backend cpu --seconds 0.1 --threads 1 --no-baseline --json $OUT/cb-$1-$2-$v.jsonl 2>&1 | tail -4"
  done
done
echo "== end load $(cat /proc/loadavg)"
