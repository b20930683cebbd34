#!/usr/bin/env bash
# How often `isolate` and `matrix` name a healthy node or link, and whether
# isolate finds a link made slower (issue 29, item 5), on real processes:
# NODES (default 4) Gloo nodes in network namespaces, every link at RATE
# (default 200mbit; tests/integration/netns_cluster.sh), while HOGS
# (default 2) busy loops keep the machine's cores busy. RUNS (default 10)
# times: `isolate --bytes BYTES` (default 512K, 10 iterations) and `matrix`
# at the same size. With SLOW_RATE set (e.g. 140mbit: 30 % slow), node
# SLOW_NODE's (default 2) link runs at it: then a run that names node
# SLOW_NODE is a find, any other name a false alarm.
#   sudo tests/perf/isolate_false_alarms.sh BIN_DIR OUT_DIR
# OUT_DIR/summary.txt: one line per run (isolate's verdict and culprits,
# the pairs matrix flagged) and the counts. Exit 0 when every run ended
# (no figure is judged), 1 when one did not, 2 for bad arguments, 77
# without root.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=tests/perf/netns_perf_lib.sh
source "$here/netns_perf_lib.sh"
perf_args "$@"
nodes=${NODES:-4}
rate=${RATE:-200mbit}
runs=${RUNS:-10}
hogs=${HOGS:-2}
bytes=${BYTES:-512K}
slow_node=${SLOW_NODE:-2}
slow_rate=${SLOW_RATE:-}
name=isolate_false_alarms
whole_numbers nodes runs hogs slow_node
[ "$nodes" -ge 3 ] || { echo "NODES: $nodes is below 3" >&2; exit 2; }
[ "$slow_node" -lt "$nodes" ] || { echo "SLOW_NODE: $slow_node is not below NODES ($nodes)" >&2; exit 2; }
mkdir -p "$out" || exit 2
# shellcheck source=tests/integration/netns_cluster.sh
source "$here/../integration/netns_cluster.sh"
cluster_start
if [ -n "$slow_rate" ]; then
  shape "$slow_node" "$slow_rate" || { echo "tc tbf failed" >&2; exit 1; }
fi
start_hogs "$hogs"

summary="$out/summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
say "# $nodes nodes at $rate${slow_rate:+, node-$slow_node at $slow_rate}, $bytes x 10, $hogs busy loop(s) on $(nproc) core(s), $runs run(s)"
verdict() {
  sed -n 's/.*"verdict": "\([a-z]*\)", "culprits": \[\([^]]*\)\].*/\1 \2/p' "$1" | tr -d '",'
}
ended=0 named=0 found=0 flagged_runs=0
for ((r = 0; r < runs; r++)); do
  cli isolate --bytes "$bytes" --iters 10 --warmup 1 --output json --progress never \
    >"$dir/isolate.json" 2>"$dir/isolate.err"
  rc=$?
  v=$(verdict "$dir/isolate.json")
  cli matrix --bytes "$bytes" --iters 10 --warmup 1 --output csv --progress never \
    >"$dir/matrix.csv" 2>"$dir/matrix.err"
  flagged=$(awk -F, 'NR > 1 && $12 == "true" {print $3 "-" $4}' "$dir/matrix.csv" | sort | tr '\n' ' ')
  [ -n "$v" ] && ended=$((ended + 1))
  [ "$rc" -eq 1 ] && named=$((named + 1))
  [ -n "$slow_rate" ] && [ "$v" = "node node-$slow_node" ] && found=$((found + 1))
  [ -n "$flagged" ] && flagged_runs=$((flagged_runs + 1))
  say "run $r: isolate exit $rc, ${v:-no verdict: $(tail -1 "$dir/isolate.err")}; matrix flagged: ${flagged:-none}"
done
say "isolate: $ended of $runs ended; $named named someone${slow_rate:+; $found named node-$slow_node alone}"
say "matrix: $flagged_runs of $runs flagged a pair"
[ "$ended" -eq "$runs" ]
