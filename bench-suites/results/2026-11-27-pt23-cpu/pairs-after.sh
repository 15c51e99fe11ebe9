#!/bin/sh
B=/tmp/pt23-after
O=/work/wt/pt23/bench-suites/results/2026-11-27-pt23-cpu
P=/work/shared/data/pglib-opf
for spec in lv:rosenbrock:200000 lv:cragg_levy:200000 cops:chain:20000 opf:case2869_pegase opf:case4661_sdet cops:bearing:320x320 opf:case10000_goc opf:case9591_goc cops:bearing:640x640; do
  suite=${spec%%:*}; inst=${spec#*:}
  for t in 1 2; do
    uptime >> $O/load-after.txt
    $B solve --suite $suite --pglib-dir $P --instance $inst --json /tmp/pt23-one.jsonl --option factorization_threads=$t > /dev/null 2>&1; cat /tmp/pt23-one.jsonl >> $O/after-threads$t.jsonl
  done
done
uptime >> $O/load-after.txt
