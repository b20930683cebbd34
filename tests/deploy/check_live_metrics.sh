#!/usr/bin/env bash
# Live observability check: FabricPulse's daemons scraped by a real
# Prometheus, every dashboard query and rule expression evaluated against
# what they export after real sweeps.
#
#   1. A local cluster from $FABRICPULSE_BIN (default build/bin): coordinator
#      + 2 agents x 2 Gloo ranks, the coordinator on a small config (plan
#      `quick`, a schedule that never fires).
#   2. Prometheus (scrape and evaluation interval 1s) scraping the coordinator
#      (job fabricpulse-coordinator) and the agents (job fabricpulse-agent),
#      loading deploy/prometheus/{recording,alert}_rules.yaml.
#   3. Sweeps while it scrapes: 3x `sweep --plan quick`, one ad-hoc sweep
#      and one ad-hoc sweep that fails (a 64 MiB all_reduce with a 1 ms per-op
#      deadline: Gloo times out on the first op).
#   4. Every dashboard query (observability_lint's extraction; variables set
#      to values this cluster has) and every recording/alert rule expression
#      queried through /api/v1/query: data expected unless the table below
#      says otherwise; rules healthy in /api/v1/rules; sweep counters exact.
#   5. Series stay bounded: the coordinator's and agents' fabricpulse_* series
#      after the first sweep, after the third and after all sweeps: nothing
#      disappears but per-sweep series a later sweep replaced (an agent's rank
#      latency, the ad-hoc steps), and what is new is only what the sweeps in
#      between allow.
#   6. promtool check metrics on the coordinator's and agents' /metrics.
#
# Env: FABRICPULSE_BIN (default build/bin), KEEP_LOGS=1 keeps the temp dirs.
# Needs prometheus, promtool (Debian package prometheus) and python3 with
# PyYAML: scripts/install-observability-tools.sh installs them. Exits non-zero
# on any failure; every process it starts and every temp dir are cleaned up
# on exit.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
bin="${FABRICPULSE_BIN:-build/bin}"
export PYTHONDONTWRITEBYTECODE=1
t_start=$EPOCHREALTIME

# -------------------------------------------------------------------------
# Expectations other than the defaults (dashboard panels and variables,
# recording rules and their recorded series: data; alerts: the expression
# evaluates without error, data or not). KEY | EXPECT | REASON, where KEY is
# observability_lint's record name of a dashboard query (<uid>:panel_<id>_
# <refId>, <uid>:var_<name>) or record:/alert:<name>{labels but severity};
# EXPECT is data, empty, evaluates, or if:<PromQL> (data exactly when that
# guard query has data). A key that matches no query fails the check.
expectations=$(cat <<'EOF'
# Hangs: fabricpulse_hangs_total / fabricpulse_hang_culprit exist only once
# a failed sweep's diagnosis names a culprit. At commit 48d159e nothing does
# (CoordinatorMetrics::HangCulprit() has no caller), so these are empty; with
# a hang diagnosis the failing sweep here (a Gloo timeout) may name one. Either
# way each panel must agree with the raw series it reads.
fabricpulse_fleet:panel_14_A | if:fabricpulse_hang_culprit{node="node-0"} | data iff a diagnosis named a culprit on node-0 (none without a hang diagnosis)
fabricpulse_fleet:panel_15_A | if:fabricpulse_hangs_total{node="node-0"} | data iff a diagnosed hang was counted on node-0 (none without a hang diagnosis)
fabricpulse_node:panel_5_A   | if:fabricpulse_hangs_total{node="node-0"} | data iff a diagnosed hang was counted on node-0 (none without a hang diagnosis)
fabricpulse_node:panel_15_A  | if:fabricpulse_hang_culprit{node="node-0"} | data iff a diagnosis named a culprit on node-0 (none without a hang diagnosis)
fabricpulse_node:panel_16_A  | if:fabricpulse_hangs_total{node="node-0"} | data iff a diagnosed hang was counted on node-0 (none without a hang diagnosis)
# GPU busy: Gloo agents have no GPUs, so the agent's NVML probe never
# starts and exports no fabricpulse_agent_gpu_busy series.
fabricpulse_node:panel_7_A   | empty | fabricpulse_agent_gpu_busy: CPU (Gloo) agents have no GPU to probe (NVML check off)
# Day-over-day comparison: this Prometheus is seconds old.
fabricpulse_op_drilldown:panel_2_C | empty | offset 1d: no data a day ago in a fresh Prometheus
# Regressions: threshold 1.0 makes any step slower than the median of the
# earlier sweeps a regression, which is likely but not certain; the panel
# must show data exactly when the raw gauge says all_reduce regressed.
fabricpulse_fleet:panel_12_A | if:fabricpulse_regression{plan="quick",op="all_reduce"} == 1 | current regressions: data iff a step of the last quick sweep regressed (timing-dependent)
# Alerts whose state is certain here (the others only evaluate).
alert:FabricPulseSweepFailing | empty | the only failed sweep is ad hoc (fabricpulse_last_sweep_success{plan="adhoc"} == 0), and ad-hoc sweeps never page
alert:FabricPulseAgentDown{reason=scrape_failed} | empty | both agents are up
alert:FabricPulseCoordinatorDown{reason=scrape_failed} | empty | the coordinator is up
alert:FabricPulseCoordinatorDown{reason=no_target} | empty | a target of job fabricpulse-coordinator exists
EOF
)

# Real values of the dashboards' template variables in this cluster.
# size: one the last ad-hoc sweep also measured (the agents' per-rank series
# are their last sweep's).
values="plan=quick,op=all_reduce,node=node-0,size=16384,dtype=float"
values+=",placement=out_of_place,nranks=4,gpu=0,rank=0"

# The sweeps. quick: 3 ops x 1K..64K (x4) x placements; ad-hoc: other ops
# and sizes; failing: 64 MiB all_reduce, 1 ms per-op deadline.
adhoc=(--ops "all_reduce,broadcast" --min-bytes 1K --max-bytes 16K --factor 4
       --iters 3 --warmup 1)
failing=(--ops all_reduce --min-bytes 64M --max-bytes 64M --iters 2 --warmup 1
         --timeout 1ms)
adhoc_ops=all_reduce,broadcast
adhoc_sizes=1024,4096,16384,67108864   # ad-hoc and failing sweeps' sizes
fleet_ranks=node-0:0,node-0:1,node-1:2,node-1:3

# -------------------------------------------------------------------------
step() { echo; echo "== $*"; }
elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.1fs", b - a}'; }
fail() { echo "FAIL: $*" >&2; exit 1; }

missing=()
for tool in prometheus promtool python3; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
[ ${#missing[@]} -eq 0 ] ||
  fail "${missing[*]} not installed; run scripts/install-observability-tools.sh"
python3 -c 'import yaml' 2>/dev/null || fail "python3 has no PyYAML"
for b in fabricpulse fabricpulse-coordinator fabricpulse-agent fabricpulse-worker; do
  [ -x "$bin/$b" ] || fail "$bin/$b missing: build first (cmake -S . -B build -G Ninja && ninja -C build)"
done

tmp=$(mktemp -d /tmp/fabricpulse-live-XXXXXX)
prom_pid=""
# shellcheck disable=SC2034  # BIN: read by cluster_lib.sh
BIN="$bin"
# shellcheck source=tests/perf/cluster_lib.sh
source tests/perf/cluster_lib.sh

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [ "$rc" -ne 0 ]; then
    for log in "$CLUSTER_DIR"/*.log "$tmp/prometheus.log"; do
      [ -s "$log" ] || continue
      echo "--- last lines of $log" >&2
      tail -n 15 "$log" >&2
    done
  fi
  if [ -n "$prom_pid" ]; then
    kill "$prom_pid" 2>/dev/null || true
    wait "$prom_pid" 2>/dev/null || true
  fi
  cluster_down
  if [ -n "${KEEP_LOGS:-}" ]; then
    echo "kept $tmp" >&2
  else
    rm -rf "$tmp"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# -------------------------------------------------------------------------
step "1. cluster: coordinator + 2 agents x 2 gloo ranks ($bin)"
cat >"$tmp/coordinator.yaml" <<'EOF'
timezone: UTC
baseline:
  window: 10
  threshold: 1.0     # any step slower than the baseline regresses
plans:
  quick:
    ops: [all_reduce, all_gather, alltoall]
    min_bytes: 1K
    max_bytes: 64K
    factor: 4
    iters: 3
    warmup: 1
schedules:
  - name: never      # Jan 1st 00:00: does not fire during the test
    plan: quick
    cron: "0 0 1 1 *"
EOF
t=$EPOCHREALTIME
COORD_ARGS="--config $tmp/coordinator.yaml" cluster_up 2 2 gloo
metrics_addr() { sed -n 's/^metrics=//p' "$CLUSTER_DIR/$1.ports"; }
coord_metrics=$(metrics_addr coord)
agent_metrics=("$(metrics_addr agent-0)" "$(metrics_addr agent-1)")
echo "coordinator $COORD (metrics $coord_metrics), agents' metrics ${agent_metrics[*]}: ready in $(elapsed "$t")"
cli=("$bin/fabricpulse" --coordinator "$COORD")

# -------------------------------------------------------------------------
step "2. prometheus: scrape and rule evaluation every 1s"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
prom="http://127.0.0.1:$port"
cat >"$tmp/prometheus.yaml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - $root/deploy/prometheus/recording_rules.yaml
  - $root/deploy/prometheus/alert_rules.yaml
scrape_configs:
  - job_name: fabricpulse-coordinator
    static_configs:
      - targets: ["$coord_metrics"]
  - job_name: fabricpulse-agent
    static_configs:
      - targets: ["${agent_metrics[0]}", "${agent_metrics[1]}"]
EOF
promtool check config "$tmp/prometheus.yaml" >/dev/null
t=$EPOCHREALTIME
prometheus --config.file="$tmp/prometheus.yaml" \
  --storage.tsdb.path="$tmp/tsdb" --web.listen-address="127.0.0.1:$port" \
  >"$tmp/prometheus.log" 2>&1 &
prom_pid=$!
live() { python3 tests/deploy/live_metrics.py "$@"; }
live wait "$prom" 'count(up{job="fabricpulse-coordinator"} == 1) == 1 and count(up{job="fabricpulse-agent"} == 1) == 2' --timeout 30
# (~5 s: Prometheus hands discovered targets to the scrape loop on a 5 s tick.)
echo "prometheus on $prom: 3 targets up in $(elapsed "$t")"

# -------------------------------------------------------------------------
step "3. sweeps while Prometheus scrapes"
fetch() {  # URL -> stdout
  python3 -c 'import sys, urllib.request
sys.stdout.buffer.write(urllib.request.urlopen(sys.argv[1], timeout=10).read())' "$1"
}
snapshot() {  # NAME: every daemon's /metrics as $tmp/NAME.{coord,agent-N}
  fetch "http://$coord_metrics/metrics" >"$tmp/$1.coord"
  fetch "http://${agent_metrics[0]}/metrics" >"$tmp/$1.agent-0"
  fetch "http://${agent_metrics[1]}/metrics" >"$tmp/$1.agent-1"
}
sweep() {  # LABEL ARGS...: a sweep that must succeed
  local label=$1 t=$EPOCHREALTIME
  shift
  "${cli[@]}" sweep "$@" >"$tmp/sweep.out" 2>&1 ||
    { cat "$tmp/sweep.out" >&2; fail "sweep $label failed"; }
  echo "  sweep $label: succeeded, $(elapsed "$t")"
}
t_sweeps=$EPOCHREALTIME
sweep "--plan quick (1/3)" --plan quick
snapshot first
live wait "$prom" 'fabricpulse_sweeps_total{plan="quick",trigger="cli",outcome="succeeded"}' --min 1
sweep "--plan quick (2/3)" --plan quick
sweep "--plan quick (3/3)" --plan quick
snapshot third
sweep "ad-hoc ${adhoc[*]}" "${adhoc[@]}"
t=$EPOCHREALTIME
if "${cli[@]}" sweep "${failing[@]}" >"$tmp/sweep.out" 2>&1; then
  cat "$tmp/sweep.out" >&2
  fail "the sweep meant to fail (${failing[*]}) succeeded"
fi
grep -q "failed" "$tmp/sweep.out" ||
  { cat "$tmp/sweep.out" >&2; fail "the failing sweep did not report 'failed'"; }
echo "  sweep ${failing[*]}: failed as intended ($(grep -m1 -o 'timed out[^[]*' "$tmp/sweep.out" || echo "see log")), $(elapsed "$t")"
snapshot final
"${cli[@]}" results >"$tmp/results.out"
echo "  history: $(grep -c succeeded "$tmp/results.out") succeeded, $(grep -c ' failed ' "$tmp/results.out") failed; sweeps took $(elapsed "$t_sweeps")"

# -------------------------------------------------------------------------
step "4. every dashboard query and rule expression against Prometheus"
# The last sweep's series, scraped and then evaluated by the rules at least
# twice more (increase() needs two samples of a series).
t=$EPOCHREALTIME
live wait "$prom" 'fabricpulse_sweeps_total{plan="adhoc",trigger="cli",outcome="failed"}' --min 1
after=$(date +%s.%N)
live wait "$prom" "min(timestamp(up{job=~\"fabricpulse-.*\"})) > $after + 2.5"
live wait "$prom" "min(timestamp(fabricpulse:plan_success_max_age_seconds)) > $after + 2.5"
echo "scraped and evaluated in $(elapsed "$t")"
for check in \
    'fabricpulse_sweeps_total{plan="quick",trigger="cli",outcome="succeeded"} == 3' \
    'fabricpulse_sweeps_total{plan="quick",trigger="cli",outcome="failed"} == 0' \
    'fabricpulse_sweeps_total{plan="adhoc",trigger="cli",outcome="succeeded"} == 1' \
    'fabricpulse_sweeps_total{plan="adhoc",trigger="cli",outcome="failed"} == 1' \
    'fabricpulse_last_sweep_success{plan="quick"} == 1' \
    'fabricpulse_last_sweep_success{plan="adhoc"} == 0' \
    'fabricpulse_agents{state="alive"} == 2' \
    'sum(fabricpulse_agent_workers) == 4'; do
  live wait "$prom" "$check" --timeout 3
done
echo "$expectations" >"$tmp/expectations.txt"
live queries "$prom" --expect "$tmp/expectations.txt" --values "$values" \
  --contract docs/metrics.md \
  --dashboards deploy/grafana/*.json \
  --rules deploy/prometheus/recording_rules.yaml deploy/prometheus/alert_rules.yaml

# -------------------------------------------------------------------------
step "5. series stay bounded (fabricpulse_* on each daemon's /metrics)"
echo "coordinator, first -> third quick sweep (same plan and sizes):"
live series --before "$tmp/first.coord" --after "$tmp/third.coord" \
  --allow-baseline --ranks "$fleet_ranks"
echo "coordinator, third quick sweep -> after the ad-hoc and failing sweeps:"
live series --before "$tmp/third.coord" --after "$tmp/final.coord" \
  --allow-plan adhoc --allow-ops "$adhoc_ops" --allow-sizes "$adhoc_sizes" \
  --allow-hang --ranks "$fleet_ranks" --same-plan quick --allow-replaced
for a in agent-0 agent-1; do
  echo "$a, first quick sweep -> third:"
  live series --before "$tmp/first.$a" --after "$tmp/third.$a"
  echo "$a, third quick sweep -> final:"
  live series --before "$tmp/third.$a" --after "$tmp/final.$a" \
    --allow-agent-ops --allow-ops "$adhoc_ops" --allow-sizes "$adhoc_sizes" \
    --allow-replaced
done

# -------------------------------------------------------------------------
step "6. promtool check metrics"
for f in final.coord final.agent-0 final.agent-1; do
  out=$(promtool check metrics <"$tmp/$f" 2>&1) || { echo "$out" >&2; fail "promtool check metrics: $f"; }
  [ -z "$out" ] || { echo "$out" >&2; fail "promtool check metrics: $f: not clean"; }
  echo "  $f ($(grep -c '^fabricpulse_' "$tmp/$f") fabricpulse_* samples): clean"
done

echo
echo "check_live_metrics: all checks passed in $(elapsed "$t_start")"
