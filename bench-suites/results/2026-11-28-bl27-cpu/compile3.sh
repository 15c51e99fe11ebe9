#!/bin/bash
# JIT compile time per pattern (jit_ms_per_pattern of the JSON line): main b83abb3
# (/tmp/bl27-before) and this branch's tip (/tmp/bl27-after) alternated, PAIRS rounds
PAIRS=${PAIRS:-3}
T=$(mktemp -d)
for inst in "--suite lv --instance rosenbrock:2000" "--suite cops --instance glider:20" "--suite opf --instance case1354_pegase --pglib-dir /work/shared/data/pglib-opf" "--suite opf --instance case9591_goc --pglib-dir /work/shared/data/pglib-opf"; do
  for i in $(seq $PAIRS); do
    for v in main after; do
      case $v in
        main) cmd="/tmp/bl27-before";;
        after) cmd="/tmp/bl27-after";;
      esac
      $cmd callbacks $inst --backend cpu --no-baseline --seconds 0.05 --json $T/one.jsonl > /dev/null 2>&1
      python3 -c "import json,sys; d=[json.loads(l) for l in open('$T/one.jsonl')][0]; print('%-10s' % '$v', d['instance'], d['param'], 'patterns', d['jit_patterns'], 'ms/pattern %.2f' % d['jit_ms_per_pattern'], 'load', open('/proc/loadavg').read().split()[0])"
    done
  done
done
