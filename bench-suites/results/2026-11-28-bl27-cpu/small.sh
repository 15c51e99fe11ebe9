#!/bin/bash
# LV/COPS small callbacks (`callbacks --backend cpu --suite S --size small --seconds 0.1 --no-baseline`),
# variants alternated, ROUNDS rounds; JSON lines to small-VARIANT-SUITE-R.jsonl
ROUNDS=${ROUNDS:-2}
for r in $(seq $ROUNDS); do
  for s in lv cops; do
    for v in "$@"; do
      case $v in
        main) cmd="/tmp/bl27-before";;
        b2) cmd="/tmp/bl27-exp";;
        b2-no8) cmd="env BL27_NO8=1 /tmp/bl27-exp";;
        after) cmd="/tmp/bl27-after";;
      esac
      echo "load $(cut -d' ' -f1-3 /proc/loadavg) $v $s $r"
      $cmd callbacks --backend cpu --suite $s --size small --seconds 0.1 --no-baseline --json small-$v-$s-$r.jsonl > /dev/null 2>&1
    done
  done
done
