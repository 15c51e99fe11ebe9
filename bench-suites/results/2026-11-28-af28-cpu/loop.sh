#!/bin/bash
# alternated callback_loop --ours, each run under flock: before = /tmp/af28-before-loop
# (main 8630ce6), after = /tmp/af28-after-loop (branch af28)
# usage: loop.sh INSTANCE CALLS REPS CALLBACKS...
inst=$1; calls=$2; reps=$3; shift 3
echo "load $(cat /proc/loadavg)"
for cb in "$@"; do
  for r in $(seq $reps); do
    for v in before after; do
      B=/tmp/af28-$v-loop
      t=$(flock -x /work/wt/cpu.lock $B $inst $cb $calls 5 --ours 2>/dev/null | sed -E 's/.*pattern ([0-9.]+) .*/\1/')
      echo "$(basename $inst) $cb $v $t"
    done
  done
done
echo "load $(cat /proc/loadavg)"
