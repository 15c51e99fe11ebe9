#!/bin/bash
# callback_loop (best of 5 rounds of CALLS calls, ours only), variants alternated, PAIRS rounds.
# main b83abb3 (/tmp/bl27-before-loop, 2 blocks) and the throw-away switch build
# (/tmp/bl27-exp-loop: BL27_BLOCKS=N blocks per wide iteration, BL27_NO8 = no 8-point loop
# beside the wide one).
# usage: loop.sh INSTANCE CALLS PAIRS CALLBACK...
inst=$1; calls=$2; pairs=$3; shift 3
run() { env "$@" $inst $cb $calls 5 --ours 2>&1 | grep pattern | awk '{print $3}'; }
for cb in "$@"; do
  for i in $(seq $pairs); do
    echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "  main     $cb $(run /tmp/bl27-before-loop)"
    echo "  b2       $cb $(run /tmp/bl27-exp-loop)"
    echo "  b3       $cb $(run BL27_BLOCKS=3 /tmp/bl27-exp-loop)"
    echo "  b4       $cb $(run BL27_BLOCKS=4 /tmp/bl27-exp-loop)"
    echo "  b2-no8   $cb $(run BL27_NO8=1 /tmp/bl27-exp-loop)"
  done
done
