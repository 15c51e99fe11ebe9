#!/bin/bash
# lane_timings of vm26's tip vmath.rs (before) and this branch (after), the same timing code
# (one-point exp and sin_cos added), alternated: /tmp/fm26-{before,after}-adtest
for r in ${ROUNDS:-1 2}; do
  for v in ${VERSIONS:-before after}; do
    echo "== $v round $r load $(cat /proc/loadavg)"
    /tmp/fm26-$v-adtest vmath::tests::lane_timings --ignored --nocapture 2>&1 | grep -E "ns/point"
  done
done
echo "== end load $(cat /proc/loadavg)"
