#!/bin/bash
# alternated triples of callback_loop --ours: main 0317158 (before), the first commit
# (after: vector arguments and stores), the slot per call (after3); usage: loop3.sh INSTANCE CALLS REPS
inst=$1; calls=$2; reps=$3
echo "load $(cat /proc/loadavg)"
for cb in obj cons grad jac hess; do
  for r in $(seq $reps); do
    for v in before after after3; do
      t=$(/tmp/cb24-$v-loop $inst $cb $calls 5 --ours 2>/dev/null | sed -E 's/.*pattern ([0-9.]+) .*/\1/')
      echo "$inst $cb $v $t"
    done
  done
done
echo "load $(cat /proc/loadavg)"
