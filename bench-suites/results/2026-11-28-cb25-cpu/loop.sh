#!/bin/bash
# alternated callback_loop --ours: /tmp/cb25-$v-loop for each version v; usage: loop.sh INSTANCE CALLS REPS CALLBACKS... 
inst=$1; calls=$2; reps=$3; shift 3
vs=${VERSIONS:-before after}
echo "load $(cat /proc/loadavg)"
for cb in "$@"; do
  for r in $(seq $reps); do
    for v in $vs; do
      t=$(/tmp/cb25-$v-loop $inst $cb $calls 5 --ours 2>/dev/null | sed -E 's/.*pattern ([0-9.]+) .*/\1/')
      echo "$inst $cb $v $t"
    done
  done
done
echo "load $(cat /proc/loadavg)"
