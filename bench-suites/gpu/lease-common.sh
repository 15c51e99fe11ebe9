# Shared set-up of the device-call scripts (lease-s12.sh, lease-s19.sh); sourced, not run.
# Expects RES (the result folder, created here) and BUDGET_S; defines `start`, `log`,
# `say MESSAGE...` and `step NAME LIMIT CMD...`, unpacks gpu-data/pglib-opf.tar.xz when
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
