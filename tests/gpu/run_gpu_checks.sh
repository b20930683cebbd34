#!/usr/bin/env bash
# GPU correctness checks from a bundle (scripts/bundle.sh), on a machine with
# NVIDIA GPUs:
#   tests/gpu/run_gpu_checks.sh [BUNDLE_DIR]
# 1. the NCCL backend's GPU unit tests (every op and dtype class, graph mode,
#    memory bound, timeout/abort);
# 2. 1 agent x all GPUs, then 1 GPU per agent, then 1 GPU per agent over
#    NCCL's network path (NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1): every op,
#    several dtypes and redops, both placements, #wrong = 0; each sweep has
#    exactly the op x size x placement rows its flags ask for, over all GPUs
#    (tests/gpu/check_sweep_json.py); the MoE probe (moe_dispatch and
#    moe_combine) at the default shape and in fp8 with a skewed routing,
#    and DeepEP's presets (with moe_combine_weighted) in fp8 and bf16.
# Exits non-zero if any check fails.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${1:-$(cd "$here/../.." && pwd)}"
BIN="$root/bin"
[ -x "$BIN/fabricpulse" ] || BIN="$root/build/bin"
if ! ldconfig -p | grep -q libnccl.so.2 && [ -z "${NCCL_LIB_DIR:-}" ]; then
  NCCL_LIB_DIR=$(python3 -c "import nvidia.nccl, os; print(os.path.join(nvidia.nccl.__path__[0], 'lib'))" 2>/dev/null)
fi
export LD_LIBRARY_PATH="${NCCL_LIB_DIR:-}:${LD_LIBRARY_PATH:-}"
source "$here/../perf/cluster_lib.sh"
ngpu=$(nvidia-smi -L | wc -l)
nranks=$ngpu  # every topology below uses every GPU
failures=0
check() {  # check LABEL sweep-args... (against $nranks ranks)
  local label=$1; shift
  "$BIN/fabricpulse" --coordinator "$COORD" sweep --output json "$@" |
    python3 "$here/check_sweep_json.py" "$label" "$nranks" "$@" ||
    failures=$((failures + 1))
}

echo "== GPU unit tests ($ngpu GPUs)"
"$BIN/nccl_backend_test" --gtest_brief=1 2>&1 | tail -5 || failures=$((failures + 1))

matrix() {  # runs the sweep matrix against $COORD
  local tag=$1
  check "$tag every op float" --ops all_reduce,all_gather,reduce_scatter,broadcast,reduce,alltoall,sendrecv,gather,scatter \
    --min-bytes 8 --max-bytes 64M --factor 8 --root "$root_rank" --iters 5 --warmup 2
  for dt in int8 uint8 int32 uint32 int64 uint64 half double bfloat16 fp8_e4m3 fp8_e5m2; do
    check "$tag $dt" --ops all_reduce,reduce_scatter,all_gather,alltoall,broadcast \
      --dtype "$dt" --min-bytes 1K --max-bytes 16M --factor 16 --iters 3 --warmup 1
  done
  for op in prod min max avg; do
    check "$tag redop $op" --ops all_reduce,reduce,reduce_scatter --redop "$op" \
      --dtype float --min-bytes 1K --max-bytes 4M --factor 64 --iters 3 --warmup 1
  done
  check "$tag graph" --ops all_reduce,all_gather --graph --min-bytes 8 --max-bytes 16M --factor 64 --iters 20
  check "$tag 8G all_reduce" --ops all_reduce --min-bytes 8G --max-bytes 8G --iters 2 --warmup 1 --out-of-place
  check "$tag moe default shape" --ops moe_dispatch,moe_combine --iters 5 --warmup 2
  check "$tag moe fp8 skewed" --ops moe_dispatch,moe_combine --moe-dtype fp8_e4m3 \
    --moe-skew 1.5 --moe-tokens 2048 --moe-hidden 4096 --iters 5 --warmup 2
  for preset in deepep-ll deepep-normal; do
    for dtype in fp8_e4m3 bfloat16; do
      check "$tag moe $preset $dtype" --ops moe_dispatch,moe_combine,moe_combine_weighted \
        --moe-preset "$preset" --moe-dtype "$dtype" --iters 5 --warmup 2
    done
  done
}

# Rank 1 as root where there is one (a root other than 0 is the harder
# case); with one GPU the only rank is 0.
root_rank=$((ngpu > 1 ? 1 : 0))
echo "== 1 agent x $ngpu GPUs"
cluster_up 1 "$ngpu" nccl && matrix "1x$ngpu" || failures=$((failures + 1))
cluster_down
if [ "$ngpu" -ge 2 ]; then
  echo "== $ngpu agents x 1 GPU"
  cluster_up "$ngpu" 1 nccl && matrix "${ngpu}x1" || failures=$((failures + 1))
  cluster_down
  echo "== $ngpu agents x 1 GPU, network path (NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1)"
  cluster_up "$ngpu" 1 nccl NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 &&
    check "${ngpu}x1-net every op" --ops all_reduce,all_gather,reduce_scatter,broadcast,reduce,alltoall,sendrecv,gather,scatter \
      --min-bytes 8 --max-bytes 64M --factor 8 --iters 5 --warmup 2 ||
    failures=$((failures + 1))
  cluster_down
fi
echo "== GPU checks: $failures failure(s)"
exit $((failures > 0))
