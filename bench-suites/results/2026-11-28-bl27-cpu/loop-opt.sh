#!/bin/bash
# callback_loop (best of 5 rounds of CALLS calls, ours only): main b83abb3 against the
# throw-away switch build with Cranelift's opt_level "none" (BL27_OPT=none), alternated
# usage: loop-opt.sh INSTANCE CALLS PAIRS CALLBACK...
inst=$1; calls=$2; pairs=$3; shift 3
run() { env "$@" $inst $cb $calls 5 --ours 2>&1 | grep pattern | awk '{print $3}'; }
for cb in "$@"; do
  for i in $(seq $pairs); do
    echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "  main     $cb $(run /tmp/bl27-before-loop)"
    echo "  optnone  $cb $(run BL27_OPT=none /tmp/bl27-exp-loop)"
  done
done
