#!/bin/bash
# callback_loop (best of 5 rounds of CALLS calls, ours only): main b83abb3
# (/tmp/bl27-before-loop) and this branch's tip (/tmp/bl27-after-loop), alternated
# usage: loop3.sh INSTANCE CALLS PAIRS CALLBACK...
inst=$1; calls=$2; pairs=$3; shift 3
run() { "$@" $inst $cb $calls 5 --ours 2>&1 | grep pattern | awk '{print $3}'; }
for cb in "$@"; do
  for i in $(seq $pairs); do
    echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "  main     $cb $(run /tmp/bl27-before-loop)"
    echo "  after    $cb $(run /tmp/bl27-after-loop)"
  done
done
