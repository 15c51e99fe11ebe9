#!/bin/sh
# The large set with the after-change binary (1 thread, defaults), then the Ipopt peer,
# in one exclusive lock, no nice.
B=/tmp/pt23-after
O=/work/wt/pt23/bench-suites/results/2026-11-27-pt23-cpu
P=/work/shared/data/pglib-opf
for spec in lv:rosenbrock:200000 lv:cragg_levy:200000 cops:chain:20000 opf:case2869_pegase opf:case4661_sdet cops:bearing:320x320 opf:case10000_goc opf:case9591_goc; do
  suite=${spec%%:*}; inst=${spec#*:}
  uptime >> $O/load-idle.txt
  $B solve --suite $suite --pglib-dir $P --instance $inst --json /tmp/pt23-one.jsonl > /dev/null 2>&1; cat /tmp/pt23-one.jsonl >> $O/idle-ours.jsonl
done
uptime >> $O/load-idle.txt
cd /work/wt/pt23 && python3 bench-suites/peers/large_ipopt.py --pglib-dir $P --json $O/idle-ipopt.jsonl > /dev/null 2>/tmp/pt23-idle-ipopt.err
uptime >> $O/load-idle.txt
