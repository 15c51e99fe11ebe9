#!/bin/bash
# callback_loop (best of 5 rounds of CALLS calls, ours only), alternated: main b83abb3
# (/tmp/bl27-before-loop) and the second switch build (/tmp/bl27-exp2-loop) with
# BL27_VARIANT=no8 (wide loop + one-point loop) and the default "clamp" (functions that
# store their outputs: the wide loop also takes the last 8..15 points, its second block
# clamped to the range's last 8 points; the others keep main's three loops)
# usage: loop2.sh INSTANCE CALLS PAIRS CALLBACK...
inst=$1; calls=$2; pairs=$3; shift 3
run() { env "$@" $inst $cb $calls 5 --ours 2>&1 | grep pattern | awk '{print $3}'; }
for cb in "$@"; do
  for i in $(seq $pairs); do
    echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "  main     $cb $(run /tmp/bl27-before-loop)"
    echo "  no8      $cb $(run BL27_VARIANT=no8 /tmp/bl27-exp2-loop)"
    echo "  clamp    $cb $(run /tmp/bl27-exp2-loop)"
  done
done
