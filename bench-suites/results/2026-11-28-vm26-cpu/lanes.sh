#!/bin/bash
# lane_timings of main c25ac86's vmath.rs (before) and this branch (after), the same test code
# (the timing report extended by uniform / mixed / random sin and cos calls), alternated
for r in ${ROUNDS:-1 2}; do
  for v in ${VERSIONS:-before after}; do
    echo "== $v round $r load $(cat /proc/loadavg)"
    /tmp/vm26-$v-vmtest vmath::tests::lane_timings --ignored --nocapture 2>&1 | grep -E "ns/point"
  done
done
echo "== end load $(cat /proc/loadavg)"
