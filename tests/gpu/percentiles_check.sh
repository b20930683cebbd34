#!/usr/bin/env bash
# Percentiles on real GPUs, end to end through the CLI (from a bundle):
#   tests/gpu/percentiles_check.sh [BUNDLE_DIR]
# 1 agent x all GPUs, 8 B all_reduce, 2 warm-ups + 10 timed iterations:
# - rank 0 enters one timed iteration in ten 2 ms late
#   (FABRICPULSE_FAULT_LATE_RANK=0:2ms:10): p99 is that iteration (>= 1.5 ms),
#   p50 an ordinary one, below half the mean the delay inflates;
# - with --graph the iterations are not timed one by one: p50/p99 are null.
# Exits non-zero if a check fails.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${1:-$(cd "$here/../.." && pwd)}"
source "$here/../perf/cluster_lib.sh"
bundle_env "$root"
ngpu=$(nvidia-smi -L | wc -l)
cluster_up 1 "$ngpu" nccl FABRICPULSE_FAULT_LATE_RANK=0:2ms:10 || exit 1
sweep() {
  "$BIN/fabricpulse" --coordinator "$COORD" sweep --output json --ops all_reduce \
    --min-bytes 8 --max-bytes 8 --warmup 2 --iters 10 --out-of-place --no-check "$@"
}
plain=$(sweep)
graph=$(sweep --graph)
cluster_down
python3 - "$plain" "$graph" <<'PY'
import json, sys
# The first step of the document's one sweep (docs/json.md), in us.
def step(text):
    r = json.loads(text)["sweeps"][0]["steps"][0]
    us = lambda k: None if r[k] is None else r[k] * 1e6
    return {"time_us": us("time_seconds"), "p50_us": us("p50_seconds"),
            "p99_us": us("p99_seconds")}
plain = step(sys.argv[1])
graph = step(sys.argv[2])
print(f"one iteration in ten 2 ms late: mean {plain['time_us']} us, "
      f"p50 {plain['p50_us']} us, p99 {plain['p99_us']} us")
print(f"--graph: mean {graph['time_us']} us, p50 {graph['p50_us']}, "
      f"p99 {graph['p99_us']}")
ok = (plain["p50_us"] is not None and plain["p99_us"] is not None
      and plain["p99_us"] >= 1500 and plain["p50_us"] < plain["time_us"] / 2
      and graph["p50_us"] is None and graph["p99_us"] is None)
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
PY
