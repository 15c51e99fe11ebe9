#!/bin/bash
# JIT compile time per pattern (jit_ms_per_pattern of the JSON line): main b83abb3
# (/tmp/bl27-before) and the throw-away switch build's variants alternated, PAIRS rounds
PAIRS=${PAIRS:-3}
T=$(mktemp -d)
for inst in "--suite lv --instance rosenbrock:2000" "--suite cops --instance glider:20" "--suite opf --instance case1354_pegase --pglib-dir /work/shared/data/pglib-opf" "--suite opf --instance case9591_goc --pglib-dir /work/shared/data/pglib-opf"; do
  for i in $(seq $PAIRS); do
    for v in main b2 b3 b4 b2-no8 b2-optnone; do
      case $v in
        main) cmd="/tmp/bl27-before";;
        b2) cmd="/tmp/bl27-exp";;
        b3) cmd="env BL27_BLOCKS=3 /tmp/bl27-exp";;
        b4) cmd="env BL27_BLOCKS=4 /tmp/bl27-exp";;
        b2-no8) cmd="env BL27_NO8=1 /tmp/bl27-exp";;
        b2-optnone) cmd="env BL27_OPT=none /tmp/bl27-exp";;
      esac
      $cmd callbacks $inst --backend cpu --no-baseline --seconds 0.05 --json $T/one.jsonl > /dev/null 2>&1
      python3 -c "import json,sys; d=[json.loads(l) for l in open('$T/one.jsonl')][0]; print('%-10s' % '$v', d['instance'], d['param'], 'patterns', d['jit_patterns'], 'ms/pattern %.2f' % d['jit_ms_per_pattern'], 'load', open('/proc/loadavg').read().split()[0])"
    done
  done
done
