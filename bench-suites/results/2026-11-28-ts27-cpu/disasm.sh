#!/bin/bash
# (copied from results/2026-11-28-fm26-cpu/; ts27 ran it on the release vmath test binaries: /tmp/ts27-before-lanes, main 5c3d277, and /tmp/ts27/after2-lanes, this branch)
# disasm.sh BIN: per vmath function (mangled symbols of simdnlp_ad::vmath), instruction count, direct `call fma`,
# packed and scalar vfmadd/vfmsub/vfnmadd counts, indirect calls (`call *%reg`: libm fma or exp through the GOT), direct calls
BIN=$1
nm $BIN | awk '$2 ~ /[tT]/ && $3 ~ /10simdnlp_ad5vmath/ && $3 !~ /tests/ {print $3}' | sort -u | while read m; do
  n=$(echo $m | c++filt | sed 's/simdnlp_ad::vmath:://;s/::h[0-9a-f]*$//')
  d=$(objdump -d --no-show-raw-insn --disassemble="$m" $BIN 2>/dev/null | sed -n '/>:$/,$p')
  printf "%-28s insns=%5d call_fma=%3d vfmadd_pd=%3d vfmadd_sd=%3d icalls=%3d calls: %s\n" "$n" \
    $(echo "$d" | grep -c '^ *[0-9a-f]*:') $(echo "$d" | grep -Ec 'call.*<fma') \
    $(echo "$d" | grep -Ec 'vfn?m(add|sub)[0-9]*pd') $(echo "$d" | grep -Ec 'vfn?m(add|sub)[0-9]*sd') $(echo "$d" | grep -Ec 'call +\*%') \
    "$(echo "$d" | grep -o 'call .*<[^>]*>' | sed 's/.*<//;s/>//' | c++filt | sed 's/simdnlp_ad::vmath:://;s/::h[0-9a-f]*$//' | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
done
