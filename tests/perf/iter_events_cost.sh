#!/usr/bin/env bash
# The cost of timing every iteration on its own (a CUDA event recorded
# between ops, the default, which gives real p50/p99) against timing only the
# loop (FABRICPULSE_ITER_EVENTS=0, nccl-tests' method), side by side in one
# run on a GPU machine:
#   tests/perf/iter_events_cost.sh [BUNDLE_DIR]
# 1 agent x all GPUs, all_reduce out of place, no data check, at 8 B (1000
# timed iterations, 100 warm-ups) and 1 GiB (20 timed, 5 warm-ups);
# ROUNDS (3) alternate a cluster with events on and one with them off, so
# drift hits both alike. Prints each round's mean times and, for the events-on
# side, the p50/p99 it measured, then the median ratio on/off per size.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${1:-$(cd "$here/../.." && pwd)}"
source "$here/cluster_lib.sh"
bundle_env "$root"
ngpu=$(nvidia-smi -L | wc -l)
# field KEY: the first step's KEY (seconds) in microseconds, or null.
field() { sed -n "s/.*\"$1\": \([0-9.e+null-]*\).*/\1/p" | head -1 | awk '{ if ($1 == "null") print "null"; else printf "%.3f\n", $1 * 1e6 }'; }
measure() {  # EVENTS SIZE ITERS WARMUP -> "time_us p50_us p99_us"
  local json
  json=$("$BIN/fabricpulse" --coordinator "$COORD" sweep --output json \
    --ops all_reduce --min-bytes "$2" --max-bytes "$2" --iters "$3" \
    --warmup "$4" --out-of-place --no-check | tr -d '\n')
  echo "$(echo "$json" | field time_seconds) $(echo "$json" | field p50_seconds) $(echo "$json" | field p99_seconds)"
}
results=$(mktemp)
echo "round events size time_us p50_us p99_us"
for round in $(seq 1 "${ROUNDS:-3}"); do
  for events in 1 0; do
    cluster_up 1 "$ngpu" nccl FABRICPULSE_ITER_EVENTS=$events || exit 1
    for spec in "8 1000 100" "1073741824 20 5"; do
      set -- $spec
      line="$round $events $1 $(measure $events "$1" "$2" "$3")"
      echo "$line" | tee -a "$results"
    done
    cluster_down
  done
done
python3 - "$results" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
for size in sorted({r[2] for r in rows}, key=int):
    on = [float(r[3]) for r in rows if r[2] == size and r[1] == "1"]
    off = [float(r[3]) for r in rows if r[2] == size and r[1] == "0"]
    ratios = [a / b for a, b in zip(on, off)]
    print(f"size {size} B: mean time events on {statistics.median(on):.2f} us, "
          f"off {statistics.median(off):.2f} us, on/off median ratio "
          f"{statistics.median(ratios):.3f} (per round: "
          + ", ".join(f"{r:.3f}" for r in ratios) + ")")
PY
rm -f "$results"
