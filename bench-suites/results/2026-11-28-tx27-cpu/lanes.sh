#!/bin/bash
# lane_timings of main 5c3d277 (before) and this branch (after), the same timing code,
# alternated: /tmp/tx27-{before,$AFTER}-adtest (release lib-test binaries); run under
# flock -x /work/wt/cpu.lock
for r in ${ROUNDS:-1 2}; do
  for v in ${VERSIONS:-before ${AFTER:-after1}}; do
    echo "== $v round $r load $(cat /proc/loadavg)"
    /tmp/tx27-$v-adtest vmath::tests::lane_timings --ignored --nocapture 2>&1 | grep -E "ns/point" | grep -iE "${FILTER:-exp|libm}"
  done
done
echo "== end load $(cat /proc/loadavg)"
