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
#      loading deploy/prometheus/{recording,alert}_rules.yaml. The agents'
#      targets carry cluster and namespace labels, as Kubernetes relabeling
#      would add; the coordinator's carry none, as in a plain Prometheus: the
#      dashboards' scope variables (cluster, namespace, job; "All" = .*)
#      must show both.
#   3. Healthy sweeps while it scrapes: 5x `sweep --plan quick`. Then the
#      signals that must stay silent when nothing is wrong: no regression (the
#      regression panel, its alert and the raw gauge have no data) and no hang
#      (the culprit and hang panels, the hang alert and series have none).
#   4. The faults, made for real: a 6th and a 7th `sweep --plan quick` with
#      rank 3's worker throttled (SIGSTOP 100 ms / SIGCONT ~3 ms, in a loop,
#      for both sweeps: two in a row, so that the alert's confirmation (the
#      same step regressed in the sweep before) holds even when a loaded
#      machine leaves only a few steps judged; steps several times slower
#      than their baseline of 5 good
#      sweeps, 3-8x with Gloo ops of ~10 ms on a loaded 2-core machine, more
#      where ops are faster), one healthy ad-hoc sweep, a pairwise matrix
#      (`fabricpulse matrix`: the node-pair series), and one ad-hoc sweep that hangs:
#      rank 1's worker (node-0) is SIGSTOPped once the sweep runs, the others
#      time out after 1 s, the diagnosis names rank 1 on node-0 and the agent
#      kills and respawns the stopped worker. Only PIDs this script started
#      (its cluster's workers) are stopped, and each is SIGCONTed after.
#   5. Every dashboard query (observability_lint's extraction; variables set
#      to values this cluster has) and every recording/alert rule expression
#      queried through /api/v1/query: data expected unless the table below
#      says otherwise (the regression and culprit panels: data, from the
#      faults above); rules healthy in /api/v1/rules; sweep counters exact;
#      the culprit series names exactly rank 1 on node-0; the fleet's "Last
#      sweep" tile, plan "All", shows no failed plan although the last
#      ad-hoc sweep failed (the rule of FabricPulseSweepFailing). The first
#      $LIVE_SHOW (default 3) series of every dashboard query are printed:
#      no Grafana is packaged for Debian, so these results stand in for
#      screenshots of the panels.
#   6. Series stay bounded: the coordinator's and agents' fabricpulse_* series
#      after the first sweep, after the fifth and after all sweeps: nothing
#      disappears but per-sweep series a later sweep replaced (an agent's rank
#      latency, the ad-hoc steps), and what is new is only what the sweeps in
#      between allow.
#   7. promtool check metrics on the coordinator's and agents' /metrics.
#
# Not covered here: a subtle regression (near the step's own spread) and the
# regression rule's thresholds (their own tests cover them); the slowdown
# here is gross so that any sane rule flags it. The hang alert cannot fire
# in a Prometheus seconds old (see the table); promtool test rules covers it.
#
# Env: FABRICPULSE_BIN (default build/bin), KEEP_LOGS=1 keeps the temp dirs,
# LIVE_SHOW=N prints N series of each dashboard query's result (0: none).
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
# a dashboard panel's query as <uid> "<panel title>" <refId>, a variable's as
# <uid>:var_<name> (observability_lint's record names; <uid>:panel_<id>_
# <refId> works too), or record:/alert:<name>{labels but severity};
# EXPECT is data, empty, evaluates, or if:<PromQL> (data exactly when that
# guard query has data). A key that matches no query fails the check.
expectations=$(cat <<'EOF'
# Hangs: the hung sweep (step 4) names rank 1 on node-0, so its culprit
# and hang panels (variable node=node-0) have data. Before it (step 3) they
# are checked empty: healthy sweeps name no culprit.
fabricpulse_fleet "Hang culprits (last failed sweep)" A | data | the hung sweep's diagnosis named rank 1 on node-0
fabricpulse_fleet "Hangs per node (1h)" A                | data | a diagnosed hang was counted on node-0
fabricpulse_node "Hangs (time range)" A                  | data | a diagnosed hang was counted on node-0
fabricpulse_node "Hang culprit (last failed sweep)" A    | data | the hung sweep's diagnosis named rank 1 on node-0
fabricpulse_node "Hangs per hour" A                      | data | a diagnosed hang was counted on node-0
# The hang alert fires on a node's first hang: its counter exists at 0 from
# the node's registration, so increase() sees the step (no `for`).
alert:FabricPulseHangDetected | data | node-0's hang counter went from 0 to 1
# Wrong elements: the data check finds none here (no rank corrupts), and the
# counter has a series only for a rank that ever had one.
fabricpulse_node "Wrong elements per rank per hour" A | empty | fabricpulse_wrong_elements_total: no rank returned wrong data
# GPUs: Gloo agents have no GPUs, so the agent's NVML probe never starts
# and exports neither fabricpulse_agent_gpu_busy nor the workers' GPU memory.
fabricpulse_node "GPU busy" A              | empty | fabricpulse_agent_gpu_busy: CPU (Gloo) agents have no GPU to probe (NVML check off)
fabricpulse_node "GPU memory per worker" A | empty | fabricpulse_agent_worker_gpu_memory_bytes: CPU (Gloo) ranks hold no GPU memory (NVML check off)
# Node verdicts: this cluster's config has no campaign plan, so none of
# the campaign series exist (tests/integration/campaign_check.sh checks
# them on a real campaign).
fabricpulse_fleet "Nodes by verdict" A  | empty | no campaign plan in this config: no fabricpulse_node_verdict series
fabricpulse_fleet "Campaign coverage" A | empty | no campaign plan in this config: no fabricpulse_campaign_coverage_ratio series
fabricpulse_fleet "Node verdicts" A     | empty | no campaign plan in this config: no fabricpulse_node_verdict series
# Isolations: no plan here has isolate_on (an isolation is 20-odd sweeps of
# its own); tests/integration/auto_isolate_check.sh makes one for real
# (root, network namespaces).
fabricpulse_fleet "Isolations (time range)" A | empty | no plan with isolate_on in this config: no fabricpulse_isolations_total series
fabricpulse_fleet "Isolations per hour" A     | empty | no plan with isolate_on in this config: no fabricpulse_isolations_total series
# Day-over-day comparison: this Prometheus is seconds old.
fabricpulse_op_drilldown "busbw against size: last sweep, baseline, 24h ago" C | empty | offset 1d: no data a day ago in a fresh Prometheus
# Regressions: the last two quick sweeps ran with rank 3 throttled (step 4);
# before it (step 3) these are checked empty.
fabricpulse_fleet "Current regressions" A | data | the last quick sweep (rank 3 throttled) regressed against 5 good sweeps
alert:FabricPulseBusBandwidthRegression | data | the throttled quick sweeps' steps are below their baseline, two sweeps in a row (pending: for 5m)
# Alerts whose state is certain here (the others only evaluate).
alert:FabricPulseSweepFailing | empty | the only failed sweep is ad hoc (fabricpulse_last_sweep_success{plan="adhoc"} == 0), and ad-hoc sweeps never page
alert:FabricPulseAgentDown{reason=scrape_failed} | empty | both agents are up
alert:FabricPulseCoordinatorDown{reason=scrape_failed} | empty | the coordinator is up
alert:FabricPulseCoordinatorDown{reason=no_target} | empty | a target of job fabricpulse-coordinator exists
EOF
)

# NICs: the agents export the interfaces of this host that have a device
# (daemon/agent/nic_reader.cc: not lo, not loopback, a `device` entry;
# veth, bridges and the like have none), and a speed where sysfs reports
# one above 0. A sandbox may have none: then the NIC panels are empty.
nics="" speeds=""
for d in /sys/class/net/*; do
  name=${d##*/}
  if [ "$name" = lo ] || [ ! -e "$d/device" ] ||
     [ "$(cat "$d/type" 2>/dev/null)" = 772 ]; then
    continue
  fi
  nics+=" $name"
  speed=$(cat "$d/speed" 2>/dev/null || true)
  if [[ "$speed" =~ ^[0-9]+$ ]] && [ "$speed" -gt 0 ]; then speeds+=" $name"; fi
done
nic_expect() {  # KEY INTERFACES WHAT
  if [ -n "$2" ]; then
    echo "$1 | data | this host's interfaces $3:$2"
  else
    echo "$1 | empty | this host has no interface $3 (a sandbox, or a VM's NIC without one)"
  fi
}
expectations+=$'\n'"$(nic_expect 'fabricpulse_node "NIC link state" A' "$nics" 'with a device entry')"
expectations+=$'\n'"$(nic_expect 'fabricpulse_node "NICs" A' "$nics" 'with a device entry')"
expectations+=$'\n'"$(nic_expect 'fabricpulse_node "NICs" B' "$speeds" 'with a device entry and a link speed in sysfs')"

# Step 3, after the healthy sweeps: the same queries, all empty.
silent=$(sed 's/$/ | empty | healthy sweeps: no regression, no hang/' <<'EOF'
fabricpulse_fleet "Current regressions" A
alert:FabricPulseBusBandwidthRegression
fabricpulse_fleet "Hang culprits (last failed sweep)" A
fabricpulse_node "Hang culprit (last failed sweep)" A
alert:FabricPulseHangDetected
EOF
)
# The hang counters exist at 0 from each node's registration.
silent+=$'\n'"$(sed "s/\$/ | zero | healthy sweeps: every node's hang counter at 0/" <<'EOF'
fabricpulse_fleet "Hangs per node (1h)" A
fabricpulse_node "Hangs (time range)" A
fabricpulse_node "Hangs per hour" A
EOF
)"

# Real values of the dashboards' template variables in this cluster.
# size: the step the last (hung) sweep measured before its stop, all_reduce
# 1 KiB out of place (the agents' per-rank series are their last sweep's).
# cluster, namespace and job: "All" (.*), their default.
values="cluster=.*,namespace=.*,job=.*"
values+=",plan=quick,op=all_reduce,node=node-0,size=1024,dtype=float"
values+=",placement=out_of_place,nranks=4,gpu=0,rank=0"
show=${LIVE_SHOW:-3}

# The sweeps. quick: 3 ops x 1K..64K (x4) x placements; ad-hoc: other ops
# and sizes; hung: the ad-hoc ops at quick's sizes, 300 iterations a step
# (the first step's row says every rank is in the sweep; the stop lands in a
# later step), 1 s per-op deadline.
adhoc=(--ops "all_reduce,broadcast" --min-bytes 1K --max-bytes 16K --factor 4
       --iters 3 --warmup 1)
hung=(--ops "all_reduce,broadcast" --min-bytes 1K --max-bytes 64K --factor 4
      --iters 300 --warmup 1 --out-of-place --no-check --timeout 1s)
adhoc_ops=all_reduce,broadcast
adhoc_sizes=1024,4096,16384,65536   # ad-hoc and hung sweeps' sizes
# A pairwise matrix of the 4 ranks, one sweep (no confirmation run: the
# ad-hoc counts below count it once).
matrix=(--bytes 16K --iters 3 --warmup 1 --no-confirm)
fleet_ranks=node-0:0,node-0:1,node-1:2,node-1:3
throttled_rank=3   # node-1 worker 1: slowed through the 6th and 7th quick sweeps
hung_rank=1        # node-0 worker 1: SIGSTOPped in the hung sweep

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
throttle_pid=""   # the loop that throttles a worker
stopped_pid=""    # a worker this script stopped (SIGCONTed on exit)
hang_cli_pid=""   # the hung sweep's CLI
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
  if [ -n "$throttle_pid" ]; then
    kill "$throttle_pid" 2>/dev/null || true
    wait "$throttle_pid" 2>/dev/null || true
  fi
  [ -z "$stopped_pid" ] || kill -CONT "$stopped_pid" 2>/dev/null || true
  if [ -n "$hang_cli_pid" ]; then
    kill "$hang_cli_pid" 2>/dev/null || true
    wait "$hang_cli_pid" 2>/dev/null || true
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
  min_sweeps: 5      # the sixth (throttled) quick sweep is the first judged
  threshold: 0.5     # below half the baseline busbw: the throttled sweep is
plans:
  quick:
    ops: [all_reduce, all_gather, alltoall]
    min_bytes: 1K
    max_bytes: 64K
    factor: 4
    iters: 5
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
        labels: {cluster: local, namespace: fabricpulse-test}
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
sweep "--plan quick (1/5)" --plan quick
snapshot first
live wait "$prom" 'fabricpulse_sweeps_total{plan="quick",trigger="cli",outcome="succeeded"}' --min 1
for i in 2 3 4 5; do
  sweep "--plan quick ($i/5)" --plan quick
done
snapshot healthy
echo "  5 healthy quick sweeps took $(elapsed "$t_sweeps")"

scraped_after() {  # QUERY: wait until scraped and the rules evaluated twice more
  live wait "$prom" "$1" --min "${2:-1}"
  local after
  after=$(date +%s.%N)
  live wait "$prom" "min(timestamp(up{job=~\"fabricpulse-.*\"})) > $after + 2.5"
  live wait "$prom" "min(timestamp(fabricpulse:plan_success_max_age_seconds)) > $after + 2.5"
}
echo "  silent when nothing is wrong:"
scraped_after 'fabricpulse_sweeps_total{plan="quick",trigger="cli",outcome="succeeded"}' 5
live empty "$prom" 'fabricpulse_regression == 1' 'fabricpulse_hang_culprit' \
  'fabricpulse_hangs_total > 0' 'ALERTS{alertname=~"FabricPulse(BusBandwidthRegression|HangDetected)"}'
echo "$silent" >"$tmp/silent.txt"
live queries "$prom" --expect "$tmp/silent.txt" --values "$values" \
  --only-listed --contract docs/metrics.md \
  --dashboards deploy/grafana/*.json \
  --rules deploy/prometheus/recording_rules.yaml deploy/prometheus/alert_rules.yaml

# -------------------------------------------------------------------------
step "4. faults: a throttled rank in a plan sweep, a SIGSTOPped rank in a hung sweep"
# The worker process of fleet rank R (ranks go by agent, then local index;
# each agent has 2): a child of its agent, which this script started.
worker_pid() {
  local agent_pid=${CLUSTER_PIDS[$((1 + $1 / 2))]} pid
  pid=$(pgrep -P "$agent_pid" -f "local-index $(($1 % 2))( |\$)" | head -1)
  [ -n "$pid" ] || fail "no worker process for rank $1 (agent pid $agent_pid)"
  echo "$pid"
}
throttle() {  # PID: stopped 100 ms out of every ~103 ms until killed
  while kill -STOP "$1" 2>/dev/null; do
    sleep 0.1
    kill -CONT "$1" 2>/dev/null || break
    sleep 0.002
  done
}
victim=$(worker_pid "$throttled_rank")
stopped_pid=$victim
throttle "$victim" &
throttle_pid=$!
sweep "--plan quick (6/7, rank $throttled_rank throttled, pid $victim)" --plan quick
sweep "--plan quick (7/7, rank $throttled_rank throttled, pid $victim)" --plan quick
kill "$throttle_pid"
wait "$throttle_pid" 2>/dev/null || true
throttle_pid=""
kill -CONT "$victim"
stopped_pid=""
sweep "ad-hoc ${adhoc[*]}" "${adhoc[@]}"
t=$EPOCHREALTIME
"${cli[@]}" matrix "${matrix[@]}" >"$tmp/matrix.out" 2>&1 ||
  { cat "$tmp/matrix.out" >&2; fail "matrix ${matrix[*]} failed"; }
echo "  matrix ${matrix[*]}: $(grep -c '^#.*<->' "$tmp/matrix.out") node pairs, $(elapsed "$t")"

t=$EPOCHREALTIME
victim=$(worker_pid "$hung_rank")
"${cli[@]}" sweep --output csv "${hung[@]}" >"$tmp/hung.csv" 2>"$tmp/hung.err" &
hang_cli_pid=$!
deadline=$(awk -v t="$EPOCHREALTIME" 'BEGIN {printf "%.6f", t + 60}')
until [ "$(wc -l <"$tmp/hung.csv")" -ge 2 ]; do  # header + the first row
  kill -0 "$hang_cli_pid" 2>/dev/null ||
    { cat "$tmp/hung.err" >&2; fail "the sweep to hang ended before its first row"; }
  awk -v d="$deadline" -v t="$EPOCHREALTIME" 'BEGIN {exit !(t > d)}' &&
    fail "the sweep to hang gave no row within 60 s"
  read -r -t 0.01 <> <(:) || true
done
kill -STOP "$victim"
stopped_pid=$victim
echo "  sweep ${hung[*]}: running; SIGSTOP rank $hung_rank (node-0 worker 1, pid $victim)"
hang_rc=0
wait "$hang_cli_pid" || hang_rc=$?
hang_cli_pid=""
[ "$hang_rc" -ne 0 ] ||
  { cat "$tmp/hung.csv" "$tmp/hung.err" >&2; fail "the hung sweep succeeded (it finished before the stop?)"; }
err=$(grep -v '^$' "$tmp/hung.err" | tail -1)
if ! grep -qE "rank $hung_rank([^0-9]|\$)" <<<"$err" || ! grep -q "node-0" <<<"$err"; then
  fail "the hung sweep's error does not name rank $hung_rank on node-0: $err"
fi
echo "  hung sweep failed (exit $hang_rc) after $(elapsed "$t"): ${err:0:160}"
# The agent kills the stopped worker and starts a new one: the fleet is
# whole again before the checks (the stopped pid is gone).
live wait "$prom" 'sum(fabricpulse_agent_workers_ready) == 4 and sum(fabricpulse_agent_workers) == 4' --timeout 60
kill -0 "$victim" 2>/dev/null &&
  [ "$(awk '{print $3}' "/proc/$victim/stat" 2>/dev/null)" != Z ] &&
  fail "the agent did not kill the stopped worker (pid $victim)"
stopped_pid=""
snapshot final
"${cli[@]}" results >"$tmp/results.out"
echo "  history: $(grep -c succeeded "$tmp/results.out") succeeded, $(grep -c ' failed ' "$tmp/results.out") failed; sweeps took $(elapsed "$t_sweeps")"

# -------------------------------------------------------------------------
step "5. every dashboard query and rule expression against Prometheus"
# The last sweep's series, scraped and then evaluated by the rules at least
# twice more (increase() needs two samples of a series).
t=$EPOCHREALTIME
scraped_after 'fabricpulse_sweeps_total{plan="adhoc",trigger="cli",outcome="failed"}'
echo "scraped and evaluated in $(elapsed "$t")"
# Ad hoc, succeeded: the ad-hoc sweep and the matrix (a sweep of plan adhoc).
for check in \
    'fabricpulse_sweeps_total{plan="quick",trigger="cli",outcome="succeeded"} == 7' \
    'fabricpulse_sweeps_total{plan="quick",trigger="cli",outcome="failed"} == 0' \
    'fabricpulse_sweeps_total{plan="adhoc",trigger="cli",outcome="succeeded"} == 2' \
    'fabricpulse_sweeps_total{plan="adhoc",trigger="cli",outcome="failed"} == 1' \
    'fabricpulse_last_sweep_success{plan="quick"} == 1' \
    'fabricpulse_last_sweep_success{plan="adhoc"} == 0' \
    'fabricpulse_agents{state="alive"} == 2' \
    'sum(fabricpulse_agent_workers) == 4' \
    "fabricpulse_hang_culprit{node=\"node-0\",rank=\"$hung_rank\"} == 1" \
    'count(fabricpulse_hang_culprit) == 1' \
    'fabricpulse_hangs_total{node="node-0"} == 1' \
    'count(fabricpulse_regression{plan="quick",op="all_reduce"} == 1) > 0' \
    'count(fabricpulse_pair_busbw_bytes_per_second) == 3' \
    'count(fabricpulse_pair_flagged) == 3' \
    'count(fabricpulse_build_info{job="fabricpulse-agent",cluster="local"}) == 2' \
    'count(fabricpulse_build_info{job="fabricpulse-coordinator",cluster=""}) == 1'; do
  live wait "$prom" "$check" --timeout 3
done
live empty "$prom" 'fabricpulse_hangs_total{node="node-1"} > 0'
# The fleet's "Last sweep" tile, every plan ("All"): ad-hoc sweeps are left
# out as FabricPulseSweepFailing leaves them out, so the failed (hung)
# ad-hoc sweep does not show; quick's last sweep succeeded.
tile=$(live expr deploy/grafana/fabricpulse-fleet.json "Last sweep" --values "$values,plan=.*")
echo "  fleet \"Last sweep\", plan All: $tile"
live wait "$prom" "count($tile) == 1 and count($tile == 1) == 1" --timeout 3
live empty "$prom" "$tile == 0"
echo "$expectations" >"$tmp/expectations.txt"
live queries "$prom" --expect "$tmp/expectations.txt" --values "$values" \
  --show "$show" --contract docs/metrics.md \
  --dashboards deploy/grafana/*.json \
  --rules deploy/prometheus/recording_rules.yaml deploy/prometheus/alert_rules.yaml

# -------------------------------------------------------------------------
step "6. series stay bounded (fabricpulse_* on each daemon's /metrics)"
echo "coordinator, first -> fifth quick sweep (same plan and sizes):"
live series --before "$tmp/first.coord" --after "$tmp/healthy.coord" \
  --allow-baseline --ranks "$fleet_ranks"
echo "coordinator, fifth quick sweep -> after the throttled, ad-hoc and hung sweeps:"
live series --before "$tmp/healthy.coord" --after "$tmp/final.coord" \
  --allow-plan adhoc --allow-ops "$adhoc_ops" --allow-sizes "$adhoc_sizes" \
  --allow-baseline --allow-hang --allow-pairs --ranks "$fleet_ranks" \
  --same-plan quick --allow-replaced
for a in agent-0 agent-1; do
  echo "$a, first quick sweep -> fifth:"
  live series --before "$tmp/first.$a" --after "$tmp/healthy.$a"
  echo "$a, fifth quick sweep -> final:"
  live series --before "$tmp/healthy.$a" --after "$tmp/final.$a" \
    --allow-agent-ops --allow-ops "$adhoc_ops" --allow-sizes "$adhoc_sizes" \
    --allow-replaced
done

# -------------------------------------------------------------------------
step "7. promtool check metrics"
for f in final.coord final.agent-0 final.agent-1; do
  out=$(promtool check metrics <"$tmp/$f" 2>&1) || { echo "$out" >&2; fail "promtool check metrics: $f"; }
  [ -z "$out" ] || { echo "$out" >&2; fail "promtool check metrics: $f: not clean"; }
  echo "  $f ($(grep -c '^fabricpulse_' "$tmp/$f") fabricpulse_* samples): clean"
done

echo
echo "check_live_metrics: all checks passed in $(elapsed "$t_start")"
