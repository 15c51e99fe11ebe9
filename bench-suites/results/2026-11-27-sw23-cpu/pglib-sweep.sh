#!/bin/bash
# PGLIB sweep, one process per case: $1 = output jsonl, rest = options
OUT=$1; shift
: > $OUT
for f in /work/shared/data/pglib-opf/pglib_opf_*.m; do c=$(basename $f .m); c=${c#pglib_opf_}
  SW23_EXACT_KIND=1 timeout 300 /tmp/sw23-exactstep-bin solve --suite opf --pglib-dir /work/shared/data/pglib-opf --instance $c --json /tmp/sw23/sw1.jsonl "$@" > /dev/null 2>&1 && cat /tmp/sw23/sw1.jsonl >> $OUT
done
echo finished >> /tmp/sw23/sweep.done
