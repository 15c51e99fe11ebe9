#!/bin/bash
# round 2 of tables.sh, before first: callbacks tables, main 9bd0103 (before: /tmp/w16-before) and branch w16 (after:
# /tmp/w16-after) alternated per suite, one thread, each run under one flock; JSON lines
# next to this script. Ratios: python3 /work/main/bench-suites/results/2026-11-28-lead27-cpu/tables.py BEFORE AFTER
OUT=$(cd "$(dirname "$0")" && pwd)
cd /work/wt/w16
for v in before after; do
  B=/tmp/w16-$v
  flock -x /work/wt/cpu.lock bash -c "
  echo \"== lv large $v load \$(cat /proc/loadavg)\"
  $B callbacks --suite lv --size large --backend cpu --seconds 0.1 --threads 1 --no-baseline --json $OUT/cb-lv-large-$v-2.jsonl 2>&1 | tail -4"
done
for v in before after; do
  B=/tmp/w16-$v
  flock -x /work/wt/cpu.lock bash -c "
  echo \"== opf $v load \$(cat /proc/loadavg)\"
  $B callbacks --suite opf --instance case1354_pegase --instance case9591_goc --instance case10000_goc --pglib-dir /work/shared/data/pglib-opf --seconds 0.1 --threads 1 --json $OUT/cb-opf-$v-2.jsonl 2>&1 | tail -12"
done
echo "== end load $(cat /proc/loadavg)"
