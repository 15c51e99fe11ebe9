#!/bin/bash
# alternated callback_loop --ours, each run under flock: before = /tmp/lead28-before-loop (main 9bd0103),
# after = /tmp/lead28-after-loop (main after session 28's merges)
# usage: loop.sh INSTANCE CALLS REPS CALLBACKS...
inst=$1; calls=$2; reps=$3; shift 3
echo "load $(cat /proc/loadavg)"
for cb in "$@"; do
  for r in $(seq $reps); do
    for v in before after; do
      B=/tmp/lead28-$v-loop
      t=$(flock -x /work/wt/cpu.lock $B $inst $cb $calls 5 --ours 2>/dev/null | sed -E 's/.*pattern ([0-9.]+) .*/\1/')
      echo "$(basename $inst) $cb $v $t"
    done
  done
done
echo "load $(cat /proc/loadavg)"
