# Shared set-up of the device-call scripts (lease-s12.sh, lease-s19.sh, lease-s22.sh,
# pivot-epsilon.sh); sourced, not run. Expects RES (the result folder, created here) and
# BUDGET_S; defines `start`, `log`, `say MESSAGE...`, `step NAME LIMIT CMD...`, `skip`, `flags_of`,
# `config_options`, `sweep_goal_configs`, `pglib_cases` and `lv_cops_on_device` (below), unpacks gpu-data/pglib-opf.tar.xz when
# SIMDNLP_PGLIB_DIR is unset, exports the cuDSS and CUDA library paths and an empty on-disk
# kernel cache (SIMDNLP_KERNEL_CACHE, default /tmp/simdnlp-kernel-cache), and writes
# $RES/machine.txt (GPU, driver, host cores and CPU, commit).
mkdir -p "$RES"
start=$(date +%s)
log="$RES/lease.log"
say() { echo "[$(( $(date +%s) - start ))s] $*" | tee -a "$log"; }

if [ -z "${SIMDNLP_PGLIB_DIR:-}" ] && [ -f gpu-data/pglib-opf.tar.xz ]; then
  data=/tmp/simdnlp-lease-data
  mkdir -p "$data" && tar xJf gpu-data/pglib-opf.tar.xz -C "$data" \
    && export SIMDNLP_PGLIB_DIR="$data/pglib-opf"
fi
export SIMDNLP_CUDSS_LIB="${SIMDNLP_CUDSS_LIB:-$PWD/target/cudss/libcudss.so.0}"
# cuDSS's directory first: its threading layer and the libgomp carried beside it
LD_LIBRARY_PATH="$(dirname "$SIMDNLP_CUDSS_LIB"):/usr/local/nvidia/lib64:/usr/local/cuda/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
# a cold on-disk kernel cache at the start
export SIMDNLP_KERNEL_CACHE="${SIMDNLP_KERNEL_CACHE:-/tmp/simdnlp-kernel-cache}"
rm -rf "$SIMDNLP_KERNEL_CACHE"
say "cuDSS: $SIMDNLP_CUDSS_LIB ($( [ -f "$SIMDNLP_CUDSS_LIB" ] && echo present || echo MISSING )); PGLIB: ${SIMDNLP_PGLIB_DIR:-bundled cases only}; kernel cache: $SIMDNLP_KERNEL_CACHE"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 || true
  nproc; lscpu | grep 'Model name' || true; git rev-parse HEAD 2>/dev/null || true
} >"$RES/machine.txt"

# step NAME LIMIT CMD...: stdout+stderr to $RES/NAME.txt, at most LIMIT seconds (less when
# the budget runs out; skipped below 10 s); a failure does not stop later steps
step() {
  local name=$1 limit=$2; shift 2
  local left=$(( BUDGET_S - ($(date +%s) - start) ))
  if (( left < 10 )); then say "budget spent: skipping $name"; return 0; fi
  (( limit > left )) && limit=$left
  say "$name (limit ${limit}s): $*"
  # -k: a process stuck in a driver call ignores SIGTERM (run 8: cudss_reordering=alg3 on
  # case10000_goc outlived its limit and the device call's)
  timeout -k 5 "$limit" "$@" >"$RES/$name.txt" 2>&1
  say "$name: exit $?"
  tail -n "${TAILN:-8}" "$RES/$name.txt" | cut -c1-220
}

# skip NAME: whether NAME is one of the space-separated step names in SKIP
SKIP="${SKIP:-}"
skip() { [[ " $SKIP " == *" $1 "* ]]; }

# `--option` flags (one per line, for mapfile) of a comma-separated option list
flags_of() {
  local o
  for o in ${1//,/ }; do printf -- '--option\n%s\n' "$o"; done
}

# the option list of the entry NAME of CONFIGS (space-separated NAME=OPTION,OPTION...)
config_options() {
  local entry
  for entry in $CONFIGS; do
    [ "${entry%%=*}" = "$1" ] && echo "${entry#*=}"
  done
  return 0
}

# sweep_goal_configs LIMIT SOLVE...: the two goal instances (rosenbrock:200000,
# case10000_goc) on `--device cuda` under each entry of CONFIGS, LIMIT seconds each, SOLVE
# being the `simdnlp-bench solve` command line before the instance; writes
# $RES/config-NAME-{rosenbrock,case10000}.{txt,jsonl} and sets FASTEST_CONFIG to the entry
# whose two solves both succeeded in the least total solve time (empty when none did)
sweep_goal_configs() {
  local limit=$1 entry name
  shift
  for entry in $CONFIGS; do
    name=${entry%%=*}
    local flags
    mapfile -t flags < <(flags_of "${entry#*=}")
    TAILN=2 step "config-$name-rosenbrock" "$limit" "$@" --suite lv --instance rosenbrock:200000 \
      --device cuda "${flags[@]}" --json "$RES/config-$name-rosenbrock.jsonl"
    TAILN=2 step "config-$name-case10000" "$limit" "$@" --suite opf --instance case10000_goc \
      --device cuda "${flags[@]}" --json "$RES/config-$name-case10000.jsonl"
  done
  FASTEST_CONFIG=$(for entry in $CONFIGS; do
    name=${entry%%=*}
    local files=("$RES/config-$name-rosenbrock.jsonl" "$RES/config-$name-case10000.jsonl")
    [ "$(cat "${files[@]}" 2>/dev/null | grep -c '"success":true')" = 2 ] || continue
    cat "${files[@]}" | grep -o '"solve_s":[0-9.eE+-]*' | cut -d: -f2 \
      | awk -v name="$name" '{ t += $1 } END { printf "%.6f %s\n", t, name }'
  done | sort -g | head -n 1 | cut -d' ' -f2)
}

# the case names of the PGLIB data directory (SIMDNLP_PGLIB_DIR, else the bundled cases),
# one per line, in name order
pglib_cases() {
  local f c
  for f in "${SIMDNLP_PGLIB_DIR:-bench-suites/data/pglib-opf}"/pglib_opf_*.m; do
    c=$(basename "$f" .m); echo "${c#pglib_opf_}"
  done
}

# lv_cops_on_device SOLVE...: LV large and COPS medium on `--device cuda` (60 s each), SOLVE
# being the `simdnlp-bench solve` command line and its option flags
lv_cops_on_device() {
  TAILN=20 step lv-large-cuda 60 "$@" --suite lv --size large --device cuda \
    --json "$RES/lv-large-cuda.jsonl"
  TAILN=20 step cops-medium-cuda 60 "$@" --suite cops --size medium --device cuda \
    --json "$RES/cops-medium-cuda.jsonl"
}
