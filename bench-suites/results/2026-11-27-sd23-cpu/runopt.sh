#!/bin/bash
# usage: runopt.sh TAG [--option k=v ...]
tag=$1; shift
out=/work/notes/s23/sd23/ours-$tag.txt
RUST_LOG=simdnlp_solver=debug nice -n 15 /tmp/merged2-bench solve --suite opf --pglib-dir /work/shared/data/pglib-opf --instance case4661_sdet -v "$@" 2>&1 | sed 's/\x1b\[[0-9;]*m//g' | grep -v "^ *v[0-9]\|^block\|^ *sig\|^ *brif\|^ *jump\|^ *return\|^}\|^ *$\|^ *store\|^ *call\|defining function\|^ *fn[0-9]\|^ *gv[0-9]\|^ *ss[0-9]\|^ *;" > $out
echo "$tag $*: $(grep -o 'after [0-9]* iterations.*' $out | head -1 | cut -c1-120)"
grep -o "factorizations [0-9]* ([^)]*)" $out | head -1
