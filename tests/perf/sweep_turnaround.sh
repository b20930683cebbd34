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

BIN="$bin"
source tests/perf/cluster_lib.sh
trap cluster_down EXIT
cluster_up "$agents" "$ranks" "$backend"
coord="$COORD"

base=("$bin/fabricpulse" --coordinator "$coord" sweep --ops all_reduce
      --min-bytes 8 --max-bytes 8 "${extra[@]}")
sweep=("${base[@]}" --output csv)
"${sweep[@]}" >/dev/null  # builds the communicator the warm runs reuse

median() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.2f", m}'; }

measure() {  # prints one turnaround in ms per run (RUNS_OVERRIDE: count)
  for _ in $(seq 1 "${RUNS_OVERRIDE:-$runs}"); do
    local t0=$EPOCHREALTIME
    "$@" >/dev/null
    local t1=$EPOCHREALTIME
    awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f\n", (b - a) * 1000}'
  done
}

warm=$(measure "${sweep[@]}" | median)
# The same sweep through the dynamically linked CLI, when it was built.
dyn="$bin/fabricpulse_cli_dynamic"
if [ -x "$dyn" ]; then
  dyn_sweep=("$dyn" "${sweep[@]:1}")
  warm_dyn=$(measure "${dyn_sweep[@]}" | median)
  help_static=$(measure "$bin/fabricpulse" --help | median)
  help_dyn=$(measure "$dyn" --help | median)
fi
fresh=$(RUNS_OVERRIDE="${FRESH_RUNS:-$runs}" measure "${sweep[@]}" --fresh-comm | median)
init=$("${base[@]}" --fresh-comm --output json | sed -n 's/.*"init_seconds": \([0-9.e-]*\).*/\1/p')
echo "# one-size (8 B) all_reduce sweep ${extra[*]:-(default iters/warmup/check)}, $agents agent(s) x $ranks $backend rank(s), median of $runs warm, ${FRESH_RUNS:-$runs} fresh"
echo "warm communicator : ${warm} ms"
if [ -x "$dyn" ]; then
  echo "warm, dynamically linked CLI: ${warm_dyn} ms (static/dynamic $(awk -v a="$warm" -v b="$warm_dyn" 'BEGIN {printf "%.2f", a / b}'))"
  echo "CLI start-up (--help): static ${help_static} ms, dynamic ${help_dyn} ms"
fi
echo "fresh communicator: ${fresh} ms"
awk -v w="$warm" -v f="$fresh" 'BEGIN {printf "ratio fresh/warm  : %.2f\n", f / w}'
echo "communicator init (one fresh sweep, slowest rank): ${init} s"
