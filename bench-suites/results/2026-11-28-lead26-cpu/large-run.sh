#!/bin/sh
# large set: ours (default), then Ipopt (CasADi peer), same run, quiet machine
B=${B:-/tmp/s26-final}; O=${O:-/work/notes/s26/large}; P=/work/shared/data/pglib-opf
rm -f $O/*.jsonl $O/load.txt
for spec in lv:rosenbrock:200000 lv:cragg_levy:200000 cops:chain:20000 opf:case2869_pegase opf:case4661_sdet cops:bearing:320x320 opf:case10000_goc opf:case9591_goc; do
  suite=${spec%%:*}; inst=${spec#*:}
  uptime >> $O/load.txt
  $B solve --suite $suite --pglib-dir $P --instance $inst --json /tmp/l-one.jsonl > /dev/null 2>&1; cat /tmp/l-one.jsonl >> $O/ours-default.jsonl
done
uptime >> $O/load.txt
cd /work/main && python3 bench-suites/peers/large_ipopt.py --pglib-dir $P --json $O/ipopt.jsonl > /dev/null 2>$O/ipopt.err
uptime >> $O/load.txt
touch $O/done
