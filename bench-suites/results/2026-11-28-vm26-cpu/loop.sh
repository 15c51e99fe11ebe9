#!/bin/bash
# alternated callback_loop --ours: /tmp/vm26-$v-loop for each version v (before: main c25ac86);
# usage: loop.sh INSTANCE CALLS REPS CALLBACKS...
inst=$1; calls=$2; reps=$3; shift 3
vs=${VERSIONS:-before after}
echo "load $(cat /proc/loadavg)"
for cb in "$@"; do
  for r in $(seq $reps); do
    for v in $vs; do
      t=$(/tmp/vm26-$v-loop $inst $cb $calls 5 --ours 2>/dev/null | sed -E 's/.*pattern ([0-9.]+) .*/\1/')
      echo "$(basename $inst) $cb $v $t"
    done
  done
done
echo "load $(cat /proc/loadavg)"
