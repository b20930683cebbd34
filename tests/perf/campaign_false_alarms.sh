#!/usr/bin/env bash
# How often a campaign names a healthy node (issue 28, issue 29 item 5): NODES
# (default 10) Gloo nodes in network namespaces, every link at the same
# RATE (default 200mbit; tests/integration/netns_cluster.sh), in pairs across
# two racks as tests/integration/campaign_check.sh, all_reduce of SIZE
# (default 512K) x ITERS (default 10), while HOGS (default 2) busy loops keep
# the machine's cores busy. CAMPAIGNS (default 10) campaigns run one after
# the other; nothing is wrong with any node, so every node a campaign names
# (degraded or fail) is a false alarm, and every suspect a first pass made
# is a single-measurement false alarm that the second pass had to clear.
#   sudo tests/perf/campaign_false_alarms.sh BIN_DIR OUT_DIR
# OUT_DIR gets summary.txt (the figures below), campaigns.txt (each
# campaign's summary line) and state/ (the coordinator's history).
# Printed:
#   - per campaign and in all: nodes named, second passes (one per
#     first-pass suspect);
#   - side by side, from the same stored group results: how many were low or
#     bad when judged on the campaign peers' spread alone (the rule before
#     the plan's noise was measured) and on the wider of it and the plan's
#     noise (the rule now; core/node_verdict.h), and that noise.
# Exit 0 when every campaign ran to its end (no figure is judged), 1 when
# one did not, 2 for bad arguments, 77 without root.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=tests/perf/netns_perf_lib.sh
source "$here/netns_perf_lib.sh"
perf_args "$@"
nodes=${NODES:-10}
rate=${RATE:-200mbit}
campaigns=${CAMPAIGNS:-10}
hogs=${HOGS:-2}
size=${SIZE:-512K}
iters=${ITERS:-10}
name=campaign_false_alarms
whole_numbers nodes campaigns hogs iters
[ "$nodes" -ge 10 ] || { echo "NODES: $nodes is below 10 (5 pairs: the fewest a reference is made of)" >&2; exit 2; }
[ "$campaigns" -ge 1 ] || { echo "CAMPAIGNS: must be 1 or more" >&2; exit 2; }
mkdir -p "$out" || exit 2
# shellcheck source=tests/integration/netns_cluster.sh
source "$here/../integration/netns_cluster.sh"
agent_flags() { echo "--labels rack=r$(($1 % 2))"; }

cat >"$dir/config.yaml" <<YAML
plans:
  camp:
    ops: [all_reduce]
    min_bytes: $size
    max_bytes: $size
    iters: $iters
    warmup: 1
    campaign:
      grouping: pairs
      group_by: rack
      window: 600s
      busy_retry: 1s
YAML
cluster_start --config "$dir/config.yaml"
start_hogs "$hogs"

summary="$out/summary.txt"
: >"$summary"
: >"$out/campaigns.txt"
say() { echo "$*" | tee -a "$summary"; }
say "# $nodes nodes at $rate, all_reduce $size x $iters, $hogs busy loop(s) on $(nproc) core(s), $campaigns campaign(s)"
ran=0
for ((c = 0; c < campaigns; c++)); do
  cli campaign --plan camp --wait --timeout 600 >"$dir/c.out" 2>"$dir/c.err"
  line=$(grep '^campaign .* finished' "$dir/c.out" | tail -1)
  [ -n "$line" ] || { say "campaign $c did not finish: $(cat "$dir/c.out" "$dir/c.err")"; continue; }
  ran=$((ran + 1))
  echo "$line" >>"$out/campaigns.txt"
  say "campaign $c: $(echo "$line" | sed 's/.*measured; //')"
done

cp -r "$dir/state" "$out/" # the coordinator's history
python3 "$here/campaign_false_alarms.py" "$out/campaigns.txt" "$out/state/history.db" |
  tee -a "$summary"
[ "$ran" -eq "$campaigns" ]
