#!/bin/bash
# alternating before/after pairs, each under the cpu lock; one JSON line per run
O=timing-pairs.jsonl; rm -f $O timing-load.txt
for rep in 1 2 3; do
 for c in case1354_pegase case9591_goc; do
  for b in before after; do
   flock -x /work/wt/cpu.lock sh -c "cat /proc/loadavg >> timing-load.txt; /tmp/tm24-$b solve --suite opf --pglib-dir /work/shared/data/pglib-opf --instance $c --json /tmp/tm24/t-one.jsonl > /dev/null 2>&1"
   python3 -c "import json,sys; r=json.loads(open('/tmp/tm24/t-one.jsonl').readline()); r['bin']='$b'; r['rep']=$rep; print(json.dumps(r))" >> $O
  done
 done
done
touch /tmp/tm24/timing.done
