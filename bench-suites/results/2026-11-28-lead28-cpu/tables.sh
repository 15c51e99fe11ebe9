#!/bin/bash
# callbacks tables, main 9bd0103 (before: /tmp/lead28-before) and main after session 28's
# merges (after: /tmp/lead28-after) alternated per suite/size, one thread, each run under
# one flock; JSON lines next to this script
OUT=$(cd "$(dirname "$0")" && pwd)
cd /work/main
for job in "lv medium" "cops medium" "lv large"; do
  set -- $job
  for v in after before; do
    B=/tmp/lead28-$v
    flock -x /work/wt/cpu.lock bash -c "
    echo \"== $1 $2 $v load \$(cat /proc/loadavg)\"
    $B callbacks --suite $1 --size $2 --backend cpu --seconds 0.1 --threads 1 --no-baseline --json $OUT/cb-$1-$2-$v.jsonl 2>&1 | tail -4"
  done
done
for v in after before; do
  B=/tmp/lead28-$v
  flock -x /work/wt/cpu.lock bash -c "
  echo \"== opf $v load \$(cat /proc/loadavg)\"
  $B callbacks --suite opf --instance case1354_pegase --instance case9591_goc --instance case10000_goc --pglib-dir /work/shared/data/pglib-opf --seconds 0.1 --threads 1 --json $OUT/cb-opf-$v.jsonl 2>&1 | tail -12"
done
echo "== end load $(cat /proc/loadavg)"
