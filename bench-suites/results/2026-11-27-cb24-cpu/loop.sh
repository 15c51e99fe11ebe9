#!/bin/bash
# alternated before/after pairs of callback_loop --ours; usage: loop.sh INSTANCE CALLS REPS
# /tmp/cb24-before-loop: main 0317158's example; /tmp/cb24-after-loop: this branch's
inst=$1; calls=$2; reps=$3
echo "load $(cat /proc/loadavg)"
for cb in obj cons grad jac hess; do
  for r in $(seq $reps); do
    for v in before after; do
      t=$(/tmp/cb24-$v-loop $inst $cb $calls 5 --ours 2>/dev/null | sed -E 's/.*pattern ([0-9.]+) .*/\1/')
      echo "$inst $cb $v $t"
    done
  done
done
echo "load $(cat /proc/loadavg)"
