#!/bin/bash
# alternated callback_loop --ours: /tmp/tx27-before-loop (main 5c3d277) and /tmp/tx27-after-loop
# (this branch); run under flock -x /work/wt/cpu.lock
# usage: loop.sh INSTANCE CALLS REPS CALLBACKS...
inst=$1; calls=$2; reps=$3; shift 3
vs=${VERSIONS:-before after}
echo "load $(cat /proc/loadavg)"
for cb in "$@"; do
  for r in $(seq $reps); do
    for v in $vs; do
      t=$(/tmp/tx27-$v-loop $inst $cb $calls 5 --ours 2>/dev/null | sed -E 's/.*pattern ([0-9.]+) .*/\1/')
      echo "$(basename $inst) $cb $v $t"
    done
  done
done
echo "load $(cat /proc/loadavg)"
