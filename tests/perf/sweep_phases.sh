#!/usr/bin/env bash
# Where a warm one-size sweep's time goes: runs RUNS sweeps through the CLI
# against a local cluster whose daemons log at debug level, and prints each
# run's CLI turnaround and the phase lines the coordinator, agent and workers
# log for it (plan, reserve+history, record results, run, finish; relay;
# validate, communicator, ready, writes, steps).
#
#   tests/perf/sweep_phases.sh [RUNS] [-- extra sweep flags]
#
# Env: FABRICPULSE_BIN (default build/bin), AGENTS (1), RANKS (2),
# BACKEND (gloo). Not a test: it reports what it measured.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="${FABRICPULSE_BIN:-build/bin}"
runs="${1:-5}"
shift || true
[ "${1:-}" = "--" ] && shift
export FABRICPULSE_LOG=debug
source tests/perf/cluster_lib.sh
trap cluster_down EXIT
cluster_up "${AGENTS:-1}" "${RANKS:-2}" "${BACKEND:-gloo}"
sweep=("$BIN/fabricpulse" --coordinator "$COORD" sweep --ops all_reduce
       --min-bytes 8 --max-bytes 8 --output csv "$@")
"${sweep[@]}" >/dev/null  # builds the communicator
for _ in $(seq 1 "$runs"); do
  t0=$EPOCHREALTIME
  "${sweep[@]}" >/dev/null
  t1=$EPOCHREALTIME
  awk -v a="$t0" -v b="$t1" 'BEGIN {printf "CLI turnaround %.0fus\n", (b - a) * 1e6}'
done
echo "# phase lines of the last $runs sweeps (coordinator, agents, workers)"
grep -h ": .*total [0-9]*us$" "$CLUSTER_DIR"/*.log | sort -k2 | tail -n $((runs * (1 + ${AGENTS:-1} + ${AGENTS:-1} * ${RANKS:-2})))
