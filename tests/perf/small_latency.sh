#!/usr/bin/env bash
# Small-message latency, FabricPulse against a C-level NCCL loop, side by
# side in one run on a GPU machine (issue 29, item 11):
#   tests/perf/small_latency.sh [BUNDLE_DIR] [OUT_DIR]
# For each op and size: `sweep` (1 agent x all GPUs, out of place, 100
# warm-ups + 1,000 timed iterations, no data check) and nccl_allreduce_floor
# (FLOOR_OP, FLOOR_BYTES: the same op, bytes and loop, one process per GPU),
# alternated ROUNDS times so that drift hits both alike. Prints us per op
# and the ratio FabricPulse / loop per round, and the median ratio.
# Env: OPS (all_reduce,all_gather,sendrecv), SIZES (bytes, space-separated;
# 8 64 512 4096 32768 262144 1048576), ROUNDS (3).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${1:-$(cd "$here/../.." && pwd)}"
out="${2:-$(mktemp -d)}"
mkdir -p "$out"
source "$here/cluster_lib.sh"
bundle_env "$root"
ngpu=$(nvidia-smi -L | wc -l)
ops="${OPS:-all_reduce,all_gather,sendrecv}"
sizes="${SIZES:-8 64 512 4096 32768 262144 1048576}"
rounds="${ROUNDS:-3}"

cluster_up 1 "$ngpu" nccl || exit 1
us() { sed -n 's/.*"time_seconds": \([0-9.e+-]*\).*/\1/p' | head -1 | awk '{printf "%.2f\n", $1 * 1e6}'; }
: > "$out/latency.txt"
for op in ${ops//,/ }; do
  for s in $sizes; do
    for round in $(seq 1 "$rounds"); do
      # --allow-busy: the agent polls NVML every 2 s, so the loop's process,
      # just ended, can still count as a foreign one.
      ours=$("$BIN/fabricpulse" --coordinator "$COORD" sweep --output json \
        --ops "$op" --min-bytes "$s" --max-bytes "$s" --iters 1000 --warmup 100 \
        --out-of-place --no-check --allow-busy | us)
      loop=$(FLOOR_OP="$op" FLOOR_BYTES="$s" timeout 60 "$BIN/nccl_allreduce_floor" 1000 100 2>> "$out/floor.err" |
        awk '$1 == "floor" && $2 == "plain" {print $3}')
      echo "$op $s $round ${ours:-nan} ${loop:-nan}" >> "$out/latency.txt"
    done
  done
done
cluster_down
echo "== small-message latency, us per op: FabricPulse / C-level NCCL loop ($ngpu x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)), $rounds alternated rounds"
python3 - "$out/latency.txt" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    op, size, _, ours, loop = line.split()
    rows.setdefault((op, int(size)), []).append((float(ours), float(loop)))
print("%-11s %9s  %-34s %-34s %s" % ("op", "bytes", "FabricPulse us", "loop us", "ratios (median)"))
medians = []
for (op, size), pairs in rows.items():
    ratios = [o / l for o, l in pairs if l > 0 and o == o and l == l]
    med = statistics.median(ratios) if ratios else float("nan")
    medians.append(med)
    print("%-11s %9d  %-34s %-34s %s (%.2f)" % (
        op, size, " ".join("%.2f" % o for o, _ in pairs),
        " ".join("%.2f" % l for _, l in pairs),
        " ".join("%.2f" % r for r in ratios), med))
ok = [m for m in medians if m == m]
if ok:
    print("rows: %d; median of the row medians %.2f; rows above 1.05: %d" % (
        len(ok), statistics.median(ok), sum(m > 1.05 for m in ok)))
PY
