#!/usr/bin/env bash
# NCCL fidelity and speed, side by side in one run, on a GPU machine:
#   tests/perf/nccl_vs_torch.sh [BUNDLE_DIR] [OUT_DIR]
# - FabricPulse (1 agent x all GPUs, out-of-place, 5 warm-ups + 50 timed
#   iterations) and torch.distributed (same method) over the same ops and
#   sizes: busbw table with ratios (REPEATS=R times each (op, size) R times
#   on both sides; the table compares medians);
# - 8-byte all_reduce latency: FabricPulse plain and --graph against a C-level
#   NCCL loop (nccl_allreduce_floor), alternated LAT_ROUNDS (3) times;
# Env: OPS, SIZES (bytes, space-separated), REPEATS (1), LAT_ROUNDS (3),
# SKIP_TURNAROUND (set: skip the turnaround part).
# - warm one-size sweep turnaround through the CLI, and communicator init.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${1:-$(cd "$here/../.." && pwd)}"
out="${2:-$(mktemp -d)}"
mkdir -p "$out"
source "$here/cluster_lib.sh"
bundle_env "$root"
ngpu=$(nvidia-smi -L | wc -l)
ops="${OPS:-all_reduce,all_gather,reduce_scatter,alltoall,broadcast,sendrecv}"
sizes="${SIZES:-8 1048576 16777216 67108864 268435456 1073741824 8589934592}"

cluster_up 1 "$ngpu" nccl || exit 1
fp() { "$BIN/fabricpulse" --coordinator "$COORD" sweep --output json "$@"; }
fresh=$(fp --ops all_reduce --min-bytes 8 --max-bytes 8 --fresh-comm --iters 1)
echo "communicator init ($ngpu ranks): $(echo "$fresh" | sed -n 's/.*"init_seconds": \([0-9.e-]*\).*/\1/p') s"
: > "$out/ours.jsonl"
for op in ${ops//,/ }; do
  for s in $sizes; do
    for _ in $(seq 1 "${REPEATS:-1}"); do
      fp --ops "$op" --min-bytes "$s" --max-bytes "$s" --iters 50 --warmup 5 \
        --out-of-place --no-check | tr -d '\n' >> "$out/ours.jsonl"
      echo >> "$out/ours.jsonl"
    done
  done
done
# 8-byte latency: ours (plain, graph) and the C-level loop, alternated
# LAT_ROUNDS times with the cluster idle, so drift hits both alike.
us() { sed -n 's/.*"time_seconds": \([0-9.e+-]*\).*/\1/p' | head -1 | awk '{printf "%.2f\n", $1 * 1e6}'; }
: > "$out/latency.txt"
# --allow-busy: the agent polls NVML every 2 s, so the floor's process,
# just ended, can still count as a foreign one and refuse the next sweep
# (exit 4); nothing else runs on these GPUs.
for round in $(seq 1 "${LAT_ROUNDS:-3}"); do
  p=$(fp --ops all_reduce --min-bytes 8 --max-bytes 8 --iters 1000 --warmup 100 --out-of-place --no-check --allow-busy | us)
  g=$(fp --ops all_reduce --min-bytes 8 --max-bytes 8 --iters 1000 --warmup 100 --out-of-place --no-check --graph --allow-busy | us)
  floor=$(timeout 60 "$BIN/nccl_allreduce_floor" 1000 100 2>> "$out/floor.err")
  fl_p=$(echo "$floor" | awk '$1 == "floor" && $2 == "plain" {print $3}')
  fl_g=$(echo "$floor" | awk '$1 == "floor" && $2 == "graph" {print $3}')
  echo "$round $p $fl_p $g $fl_g" >> "$out/latency.txt"
done
cluster_down
if [ -z "${SKIP_TURNAROUND:-}" ]; then
export FABRICPULSE_BIN="$BIN" AGENTS=1 RANKS="$ngpu" BACKEND=nccl FRESH_RUNS=5
bash "$here/sweep_turnaround.sh" 20 > "$out/turnaround.txt" 2>&1
bash "$here/sweep_turnaround.sh" 20 -- --iters 1 --warmup 0 --no-check --out-of-place >> "$out/turnaround.txt" 2>&1
fi

python3 "$here/torch_reference.py" --ops "$ops" --sizes "${sizes// /,}" \
  --warmup 5 --iters 50 --repeats "${REPEATS:-1}" > "$out/torch.jsonl" 2> "$out/torch.err"
echo "== busbw, FabricPulse vs torch.distributed ($ngpu x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1))"
python3 "$here/compare_busbw.py" "$out/ours.jsonl" "$out/torch.jsonl" | tee "$out/table.md"
echo "== 8 B all_reduce latency (us per op; FabricPulse / C-level NCCL loop, one process per GPU), ${LAT_ROUNDS:-3} alternated rounds"
awk '{printf "round %d: plain %.2f / %.2f = %.2f   graph %.2f / %.2f = %.2f\n", $1, $2, $3, $2 / $3, $4, $5, $4 / $5}' "$out/latency.txt"
if [ -s "$out/floor.err" ]; then grep -v "rank\|GPU(s)" "$out/floor.err" | head -5; fi
if [ -f "$out/turnaround.txt" ]; then
  echo "== warm one-size sweep turnaround through the CLI"
  cat "$out/turnaround.txt"
fi
