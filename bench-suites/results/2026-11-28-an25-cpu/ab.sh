#!/bin/sh
# usage: ab.sh OUTDIR REPS BIN_A BIN_B ...  (alternates binaries, one process per instance)
O=$1; R=$2; shift 2; P=/work/shared/data/pglib-opf
mkdir -p $O
for rep in $(seq 1 $R); do
for spec in lv:rosenbrock:200000 lv:cragg_levy:200000 cops:chain:20000 opf:case2869_pegase opf:case4661_sdet cops:bearing:320x320 opf:case10000_goc opf:case9591_goc; do
  suite=${spec%%:*}; inst=${spec#*:}
  for B in "$@"; do
    tag=$(basename $B)
    echo "$rep $tag $inst $(cat /proc/loadavg)" >> $O/load.txt
    $B solve --suite $suite --pglib-dir $P --instance $inst --json $O/one.jsonl > /dev/null 2>&1
    cat $O/one.jsonl >> $O/$tag.jsonl
  done
done
done
touch $O/done
