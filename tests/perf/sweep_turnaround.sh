#!/usr/bin/env bash
# Benchmark: turnaround of a one-size all_reduce sweep through the CLI
# against a running local cluster, on a warm communicator and with a fresh
# communicator each time, measured side by side in one run.
#
#   tests/perf/sweep_turnaround.sh [RUNS] [-- extra sweep flags]
#
# Env: FABRICPULSE_BIN (default build/bin), AGENTS (1), RANKS (2),
# BACKEND (gloo). Prints the median of RUNS (default 20) for each mode and
# their ratio. Not a test: it reports what it measured.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${FABRICPULSE_BIN:-build/bin}"
runs="${1:-20}"
shift || true
[ "${1:-}" = "--" ] && shift
extra=("$@")
agents="${AGENTS:-1}" ranks="${RANKS:-2}" backend="${BACKEND:-gloo}"

dir=$(mktemp -d /tmp/fabricpulse-bench-XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT

wait_file() {
  for _ in $(seq 1 400); do
    [ -s "$1" ] && grep -q '^metrics=' "$1" && return 0
    read -r -t 0.05 <> <(:) || true
  done
  echo "timed out waiting for $1" >&2; return 1
}

"$bin/fabricpulse-coordinator" --listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0 \
  --state-dir "$dir/state" --port-file "$dir/coord.ports" 2>"$dir/coord.log" &
pids+=($!)
wait_file "$dir/coord.ports"
coord=$(sed -n 's/^grpc=//p' "$dir/coord.ports")
for i in $(seq 0 $((agents - 1))); do
  if [ "$backend" = nccl ]; then
    gpus=$(seq -s, $((i * ranks)) $((i * ranks + ranks - 1)))
    rank_flags=(--gpus "$gpus")
  else
    rank_flags=(--ranks "$ranks")
  fi
  "$bin/fabricpulse-agent" --coordinator "$coord" --listen 127.0.0.1:0 \
    --metrics-listen 127.0.0.1:0 --node-name "bench-$i" --backend "$backend" \
    "${rank_flags[@]}" --port-file "$dir/agent-$i.ports" 2>"$dir/agent-$i.log" &
  pids+=($!)
  wait_file "$dir/agent-$i.ports"
done
# Wait until every worker is ready: a sweep succeeds.
for _ in $(seq 1 200); do
  "$bin/fabricpulse" --coordinator "$coord" sweep --ops all_reduce \
    --min-bytes 8 --max-bytes 8 --output csv "${extra[@]}" >/dev/null 2>&1 && break
done

base=("$bin/fabricpulse" --coordinator "$coord" sweep --ops all_reduce
      --min-bytes 8 --max-bytes 8 "${extra[@]}")
sweep=("${base[@]}" --output csv)

median() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.2f", m}'; }

measure() {  # prints one turnaround in ms per run
  for _ in $(seq 1 "$runs"); do
    local t0=$EPOCHREALTIME
    "$@" >/dev/null
    local t1=$EPOCHREALTIME
    awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f\n", (b - a) * 1000}'
  done
}

warm=$(measure "${sweep[@]}" | median)
fresh=$(measure "${sweep[@]}" --fresh-comm | median)
init=$("${base[@]}" --fresh-comm --output json | sed -n 's/.*"comm_init_s": \([0-9.e-]*\).*/\1/p')
echo "# one-size (8 B) all_reduce sweep, default iters/warmup/check, $agents agent(s) x $ranks $backend rank(s), median of $runs"
echo "warm communicator : ${warm} ms"
echo "fresh communicator: ${fresh} ms"
awk -v w="$warm" -v f="$fresh" 'BEGIN {printf "ratio fresh/warm  : %.2f\n", f / w}'
echo "communicator init (one fresh sweep, slowest rank): ${init} s"
