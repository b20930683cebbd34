#!/usr/bin/env bash
# NCCL fidelity and speed, side by side in one run, on a GPU machine:
#   tests/perf/nccl_vs_torch.sh [BUNDLE_DIR] [OUT_DIR]
# - FabricPulse (1 agent x all GPUs, out-of-place, 5 warm-ups + 50 timed
#   iterations) and torch.distributed (same method) over the same ops and
#   sizes: busbw table with ratios;
# - 8-byte all_reduce latency: FabricPulse plain and --graph against a C-level
#   NCCL loop (nccl_allreduce_floor) in the same run;
# - warm one-size sweep turnaround through the CLI, and communicator init.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${1:-$(cd "$here/../.." && pwd)}"
out="${2:-$(mktemp -d)}"
mkdir -p "$out"
BIN="$root/bin"
[ -x "$BIN/fabricpulse" ] || BIN="$root/build/bin"
if [ -z "${NCCL_LIB_DIR:-}" ]; then
  NCCL_LIB_DIR=$(python3 -c "import nvidia.nccl, os; print(os.path.join(nvidia.nccl.__path__[0], 'lib'))" 2>/dev/null)
fi
export LD_LIBRARY_PATH="${NCCL_LIB_DIR:-}:${LD_LIBRARY_PATH:-}"
source "$here/cluster_lib.sh"
ngpu=$(nvidia-smi -L | wc -l)
ops="${OPS:-all_reduce,all_gather,reduce_scatter,alltoall,broadcast,sendrecv}"
sizes="${SIZES:-8 1048576 16777216 67108864 268435456 1073741824 8589934592}"

cluster_up 1 "$ngpu" nccl || exit 1
fp() { "$BIN/fabricpulse" --coordinator "$COORD" sweep --output json "$@"; }
fresh=$(fp --ops all_reduce --min-bytes 8 --max-bytes 8 --fresh-comm --iters 1)
echo "communicator init ($ngpu ranks): $(echo "$fresh" | sed -n 's/.*"comm_init_s": \([0-9.e-]*\).*/\1/p') s"
: > "$out/ours.jsonl"
for op in ${ops//,/ }; do
  for s in $sizes; do
    fp --ops "$op" --min-bytes "$s" --max-bytes "$s" --iters 50 --warmup 5 \
      --out-of-place --no-check | tr -d '\n' >> "$out/ours.jsonl"
    echo >> "$out/ours.jsonl"
  done
done
lat_plain=$(fp --ops all_reduce --min-bytes 8 --max-bytes 8 --iters 1000 --warmup 100 --out-of-place --no-check)
lat_graph=$(fp --ops all_reduce --min-bytes 8 --max-bytes 8 --iters 1000 --warmup 100 --out-of-place --no-check --graph)
cluster_down
if [ -z "${SKIP_TURNAROUND:-}" ]; then
export FABRICPULSE_BIN="$BIN" AGENTS=1 RANKS="$ngpu" BACKEND=nccl FRESH_RUNS=5
bash "$here/sweep_turnaround.sh" 20 > "$out/turnaround.txt" 2>&1
bash "$here/sweep_turnaround.sh" 20 -- --iters 1 --warmup 0 --no-check --out-of-place >> "$out/turnaround.txt" 2>&1
fi

python3 "$here/torch_reference.py" --ops "$ops" --sizes "${sizes// /,}" \
  --warmup 5 --iters 50 > "$out/torch.jsonl" 2> "$out/torch.err"
floor=$(timeout 60 "$BIN/nccl_allreduce_floor" 1000 100 2> "$out/floor.err")
[ -n "$floor" ] || { echo "nccl_allreduce_floor printed nothing:" >&2; cat "$out/floor.err" >&2; }

echo "$lat_plain" > "$out/lat_plain.json"; echo "$lat_graph" > "$out/lat_graph.json"; echo "$floor" > "$out/floor.txt"
echo "== busbw, FabricPulse vs torch.distributed ($ngpu x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1))"
python3 "$here/compare_busbw.py" "$out/ours.jsonl" "$out/torch.jsonl" | tee "$out/table.md"
us() { sed -n 's/.*"time_us": \([0-9.e+-]*\).*/\1/p' | head -1; }
p=$(echo "$lat_plain" | us); g=$(echo "$lat_graph" | us)
# nccl_allreduce_floor prints "floor plain|graph US" (one process per GPU)
# and "single plain|graph US" (one process driving every GPU).
fl() { echo "$floor" | awk -v k="$1" -v m="$2" '$1 == k && $2 == m {print $3}'; }
fl_p=$(fl floor plain); fl_g=$(fl floor graph)
echo "== 8 B all_reduce latency (us per op)"
echo "FabricPulse plain: $p   C-level NCCL plain: $fl_p   ratio: $(awk -v a="$p" -v b="$fl_p" 'BEGIN{printf "%.2f", a/b}')"
echo "FabricPulse graph: $g   C-level NCCL graph: $fl_g   ratio: $(awk -v a="$g" -v b="$fl_g" 'BEGIN{printf "%.2f", a/b}')"
echo "C-level NCCL, one process driving all $ngpu GPUs (ncclCommInitAll + group): plain $(fl single plain)   graph $(fl single graph)"
echo "== warm one-size sweep turnaround through the CLI"
cat "$out/turnaround.txt"
