#!/bin/bash
# JIT compile time per pattern (jit_ms_per_pattern of the JSON line), main 5c3d277 and this
# branch alternated, 3 pairs per instance
T=$(mktemp -d)
for inst in "--suite lv --instance rosenbrock:2000" "--suite cops --instance glider:20" "--suite opf --instance case1354_pegase --pglib-dir /work/shared/data/pglib-opf"; do
  for i in 1 2 3; do
    for v in before after; do
      /tmp/lf27-$v callbacks $inst --backend cpu --no-baseline --seconds 0.05 --json $T/one.jsonl > /dev/null 2>&1
      python3 -c "import json,sys; d=[json.loads(l) for l in open('$T/one.jsonl')][0]; print('$v', d['instance'], d['param'], 'patterns', d['jit_patterns'], 'ms/pattern %.2f' % d['jit_ms_per_pattern'], 'load', open('/proc/loadavg').read().split()[0])"
    done
  done
done
