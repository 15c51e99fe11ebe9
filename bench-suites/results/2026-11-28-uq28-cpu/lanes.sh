#!/bin/bash
# lane_timings of main 9bd0103 (before: /tmp/uq28-before-lanes2, its vmath.rs with this
# branch's tests.rs) and this branch (after: /tmp/uq28-after-lanes), alternated, each under
# flock: the release test binary of `cargo test --release -p simdnlp-ad --lib --no-run`
# run as `BIN vmath::tests::lane_timings --ignored --nocapture`
for r in ${ROUNDS:-1 2 3}; do
  for v in before after; do
    B=/tmp/uq28-$v-lanes; [ $v = before ] && B=/tmp/uq28-before-lanes2
    flock -x /work/wt/cpu.lock bash -c "echo \"== $v $r load \$(cat /proc/loadavg)\"; $B vmath::tests::lane_timings --ignored --nocapture 2>&1 | grep -vE '^(running|test |$)'"
  done
done
echo "== end load $(cat /proc/loadavg)"
