#!/bin/bash
# alternated callback_loop --ours: /tmp/fm26-$v-loop (before: vm26's tip 8d73674, after: this branch)
# usage: loop.sh INSTANCE CALLS REPS CALLBACKS...
inst=$1; calls=$2; reps=$3; shift 3
vs=${VERSIONS:-before after}
echo "load $(cat /proc/loadavg)"
for cb in "$@"; do
  for r in $(seq $reps); do
    for v in $vs; do
      t=$(/tmp/fm26-$v-loop $inst $cb $calls 5 --ours 2>/dev/null | sed -E 's/.*pattern ([0-9.]+) .*/\1/')
      echo "$(basename $inst) $cb $v $t"
    done
  done
done
echo "load $(cat /proc/loadavg)"
