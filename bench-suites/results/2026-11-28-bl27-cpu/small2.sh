#!/bin/bash
# LV/COPS small callbacks (`callbacks --backend cpu --suite S --size small --seconds 0.1
# --no-baseline`): main b83abb3 and the second switch build's variants, alternated
ROUNDS=${ROUNDS:-2}
for r in $(seq $ROUNDS); do
  for s in lv cops; do
    for v in main2 no8v clamp; do
      case $v in
        main2) cmd="/tmp/bl27-before";;
        no8v) cmd="env BL27_VARIANT=no8 /tmp/bl27-exp2";;
        clamp) cmd="/tmp/bl27-exp2";;
      esac
      echo "load $(cut -d' ' -f1-3 /proc/loadavg) $v $s $r"
      $cmd callbacks --backend cpu --suite $s --size small --seconds 0.1 --no-baseline --json small-$v-$s-$r.jsonl > /dev/null 2>&1
    done
  done
done
