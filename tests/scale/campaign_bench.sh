#!/usr/bin/env bash
# Campaigns at fleet scale, with mutual TLS as in production (issue 28): for
# each fleet size N and each mode (tls, plain) it starts a fresh real
# fabricpulse-coordinator and FLEET_PROCS fleet_sim processes hosting N
# simulated agents (RANKS GPU ranks each; under TLS each agent has its own
# certificate agent/<node> from the benchmark's CA, and the coordinator
# authorizes every call), every sweep taking SWEEP_S seconds. Then, side by
# side in the same run:
#   - idle: the coordinator's CPU while N agents heartbeat, RSS, threads;
#   - a campaign of single-node groups (plan `nodes`) and one of pairs
#     (`pairs`), with every BUSY_EVERY-th node busy (a foreign process on
#     its GPUs) until BUSY_S seconds after the campaign starts: the
#     campaign's time (the coordinator's own start and finish), its
#     coverage, its group sweeps' called->started (plan + reserve phases
#     from the coordinator's debug log) while the others run, and the
#     coordinator's CPU, peak RSS and threads meanwhile;
#   - then today's plan: one-size sweeps over the whole fleet
#     (scale_client), all nodes idle, with their peak RSS and threads; and
#     the same with every BUSY_EVERY-th node busy (refused: a fleet that is
#     never idle all at once).
# A test tool: it reports what it measured against the targets, it does not
# pass or fail on them.
#
#   tests/scale/campaign_bench.sh
#
# Env: SIZES ("1024 4096"), MODES ("tls plain"), FLEET_PROCS (4), RANKS (2),
# SWEEP_S (1), BUSY_EVERY (10: 10 % of the nodes), BUSY_S (20), IDLE_S (20),
# FLEET_SWEEPS (5), GROUPS_AT_ONCE (128, the plans' max_concurrent_groups),
# FLEET_SHARE (0.5, their max_fleet_fraction), BUSY_RETRY (5s),
# SHARED_CONNECTION (1: in plain mode each fleet_sim process's agents send
# their calls over one connection, for a fleet the open-file limit leaves
# no room for at two connections per agent in the coordinator; TLS modes
# are then skipped, a TLS agent needing a connection of its own),
# FABRICPULSE_BIN (build/bin), OUT (build/campaign_bench.json), KEEP_LOGS.
# Needs python3.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${FABRICPULSE_BIN:-build/bin}"
read -r -a sizes <<<"${SIZES:-1024 4096}"
read -r -a modes <<<"${MODES:-tls plain}"
procs="${FLEET_PROCS:-4}"
ranks="${RANKS:-2}"
sweep_s="${SWEEP_S:-1}"
busy_every="${BUSY_EVERY:-10}"
busy_s="${BUSY_S:-20}"
idle_s="${IDLE_S:-20}"
fleet_sweeps="${FLEET_SWEEPS:-5}"
groups_at_once="${GROUPS_AT_ONCE:-128}"
fleet_share="${FLEET_SHARE:-0.5}"
busy_retry="${BUSY_RETRY:-5s}"
out="${OUT:-build/campaign_bench.json}"
for tool in fabricpulse-coordinator fabricpulse fleet_sim scale_client; do
  [ -x "$bin/$tool" ] || { echo "missing $bin/$tool; build it first" >&2; exit 2; }
done
command -v python3 >/dev/null || { echo "needs python3" >&2; exit 2; }
for mode in "${modes[@]}"; do
  case "$mode" in tls | plain) ;; *) echo "MODES: '$mode' is not tls or plain" >&2; exit 2 ;; esac
done
shared=()
if [ "${SHARED_CONNECTION:-0}" = 1 ]; then
  shared=(--shared-connection)
  read -r -a modes <<<"plain"
fi

# Two connections per agent at the coordinator, three per agent in fleet_sim.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
nofile=$(ulimit -n)
work=$(mktemp -d /tmp/fabricpulse-campaign-bench-XXXXXX)
# shellcheck source=tests/scale/bench_lib.sh
source "$(dirname "$0")/bench_lib.sh"
trap cleanup EXIT
trap 'exit 130' INT TERM

"$bin/fabricpulse" certs "$work/pki" --issue coordinator/main --issue operator/bench >/dev/null
pki="$work/pki"

plan() {  # plan NAME GROUPING
  cat <<YAML
  $1:
    ops: [all_reduce]
    min_bytes: 1M
    max_bytes: 1M
    iters: 1
    warmup: 1
    campaign:
      grouping: $2
      max_concurrent_groups: $groups_at_once
      max_fleet_fraction: $fleet_share
      window: 10m
      busy_retry: $busy_retry
YAML
}
# A fleet over the default bound of 4,096 agents raises it.
max_n=4096
for n in "${sizes[@]}"; do [ "$n" -gt "$max_n" ] && max_n=$n; done
{ printf 'agents:\n  max: %s\n' "$max_n"; echo "plans:"; plan nodes node; plan pairs pairs; } \
  >"$work/config.yaml"

# run_one N MODE: one fleet against a fresh coordinator; writes
# $work/result-N-MODE.json.
run_one() {
  local n=$1 mode=$2 dir="$work/n$1-$2"
  mkdir -p "$dir"
  local coord_tls=(--insecure) fleet_tls=() client_tls=(--insecure) scale_tls=()
  if [ "$mode" = tls ]; then
    coord_tls=(--tls-cert "$pki/coordinator-main.crt" --tls-key "$pki/coordinator-main.key"
      --tls-ca "$pki/ca.crt")
    fleet_tls=(--tls-ca-cert "$pki/ca.crt" --tls-ca-key "$pki/ca.key")
    client_tls=(--tls-cert "$pki/operator-bench.crt" --tls-key "$pki/operator-bench.key"
      --tls-ca "$pki/ca.crt")
    scale_tls=("${client_tls[@]}")
  fi
  # Debug logging adds one line per sweep: its phase timings.
  FABRICPULSE_LOG=debug "$bin/fabricpulse-coordinator" --listen 127.0.0.1:0 \
    --metrics-listen 127.0.0.1:0 --state-dir "$dir/state" --port-file "$dir/coord.ports" \
    --config "$work/config.yaml" "${coord_tls[@]}" 2>"$dir/coordinator.log" &
  local coord_pid=$!
  PIDS+=("$coord_pid")
  wait_until "the coordinator's port file" 30 has_line "$dir/coord.ports" metrics=
  local coord
  coord=$(sed -n 's/^grpc=//p' "$dir/coord.ports")
  cli() { "$bin/fabricpulse" --coordinator "$coord" "${client_tls[@]}" "$@"; }

  local busy_file="$dir/busy" fleet_pids reg_s
  start_fleets "$n" "$dir" "$coord" 300 --ranks "$ranks" --sweep-seconds "$sweep_s" \
    --busy-every "$busy_every" --busy-while "$busy_file" "${fleet_tls[@]}" "${shared[@]}"
  "$bin/scale_client" --coordinator "$coord" "${scale_tls[@]}" --wait-agents "$n" \
    --wait-timeout 120 --sweeps 0

  # Idle: N agents heartbeat, nothing else runs.
  local c0 c1 t0 t1
  c0=$(cpu_ticks "$coord_pid")
  t0=$(now)
  pause "$idle_s"
  c1=$(cpu_ticks "$coord_pid")
  t1=$(now)
  local idle_rss idle_threads
  idle_rss=$(status_kb "$coord_pid" VmRSS)
  idle_threads=$(status_kb "$coord_pid" Threads)

  # busy_is N: the coordinator has heard (the simulated agents heartbeat
  # at once) that N nodes have busy GPUs.
  local want_busy=$(((n + busy_every - 1) / busy_every))
  busy_count() {
    cli agents --output json 2>/dev/null | python3 -c '
import json, sys
agents = json.load(sys.stdin).get("agents", [])
print(sum(any(w.get("gpu_busy") for w in a.get("workers", [])) for a in agents))'
  }
  busy_is() { [ "$(busy_count)" = "$1" ]; }

  # The campaigns first, on a coordinator that has not called the agents
  # yet, so that their memory is theirs (glibc keeps what a 4,096-member
  # sweep freed). campaign PLAN: the BUSY_EVERY-th nodes busy until BUSY_S
  # seconds after it starts.
  local sampler plan s0 s1 ts0 ts1
  start_peak_sampler "$coord_pid" "$dir/peak"
  for plan in nodes pairs; do
    : >"$busy_file"
    wait_until "$want_busy busy nodes (N=$n $mode)" 60 busy_is "$want_busy"
    s0=$(cpu_ticks "$coord_pid")
    ts0=$(now)
    cli campaign --plan "$plan" --wait --timeout 600 >"$dir/campaign-$plan.out" \
      2>"$dir/campaign-$plan.err" &
    local waiter=$!
    PIDS+=("$waiter")
    ( pause "$busy_s"; rm -f "$busy_file" ) &
    local freer=$!
    PIDS+=("$freer")
    wait "$waiter" || echo "N=$n $mode: campaign $plan exited $? ($(tail -1 "$dir/campaign-$plan.err"))" >&2
    stop_pid "$waiter"
    stop_pid "$freer"
    s1=$(cpu_ticks "$coord_pid")
    ts1=$(now)
    echo "$((s1 - s0)) $ts0 $ts1" >"$dir/campaign-$plan.cpu"
    cli nodes --plan "$plan" --output json >"$dir/nodes-$plan.json" 2>>"$dir/client.log" || true
  done
  stop_pid "$sampler"

  # Today's plan: the whole fleet in one sweep, every node idle; then with
  # the busy nodes busy again (refused: the fleet is never idle at once).
  rm -f "$busy_file"
  wait_until "no busy node (N=$n $mode)" 60 busy_is 0
  start_peak_sampler "$coord_pid" "$dir/peak-fleet"
  "$bin/scale_client" --coordinator "$coord" "${scale_tls[@]}" --sweeps "$fleet_sweeps" \
    --steps 1 --min-bytes 1048576 --label "fleet N=$n $mode" >"$dir/fleet.json" \
    2>>"$dir/client.log" || echo "N=$n $mode: fleet-wide sweeps: some failed" >&2
  stop_pid "$sampler"
  : >"$busy_file"
  wait_until "$want_busy busy nodes (N=$n $mode)" 60 busy_is "$want_busy"
  local refused=false
  if ! "$bin/scale_client" --coordinator "$coord" "${scale_tls[@]}" --sweeps 1 --steps 1 \
    --min-bytes 1048576 --label "fleet busy N=$n" >/dev/null 2>"$dir/fleet-busy.err"; then
    grep -qi "busy" "$dir/fleet-busy.err" && refused=true
  fi
  grep -E 'sweep [0-9-]+-[0-9a-f]+ \((nodes|pairs), campaign:' "$dir/coordinator.log" |
    sed -E 's/.*sweep ([0-9a-f-]+) \(([a-z]+), .*/\1 \2/' | sort -u >"$dir/campaign-sweeps" || true
  grep ': plan [0-9]*us' "$dir/coordinator.log" >"$dir/phases" || true
  local peak_threads peak_rss hwm fleet_peak_threads fleet_peak_rss
  read -r peak_threads peak_rss <"$dir/peak"
  read -r fleet_peak_threads fleet_peak_rss <"$dir/peak-fleet"
  hwm=$(status_kb "$coord_pid" VmHWM)
  local lost
  lost=$(grep -c ' lost: no heartbeat' "$dir/coordinator.log" || true)

  python3 - "$dir" <<PY >"$work/result-$n-$mode.json"
import json, math, re, sys
d = sys.argv[1]
def pct(xs, q):
    xs = sorted(xs)
    return xs[max(0, math.ceil(q / 100 * len(xs)) - 1)] if xs else None
def load(name):
    try:
        text = open(f"{d}/{name}").read().strip()
        return json.loads(text) if text else None
    except (OSError, ValueError):
        return None
plan_of = {}
for line in open(f"{d}/campaign-sweeps").read().splitlines():
    sweep, plan = line.split()
    plan_of[sweep] = plan
# "sweep ID: plan 120us, reserve+history 40us, ...": called->started is
# the phases before the run.
started = {"nodes": [], "pairs": []}
describe = {"nodes": [], "pairs": []}
for line in open(f"{d}/phases").read().splitlines():
    m = re.search(r"sweep ([0-9a-f-]+): (.*)", line)
    if not m or m.group(1) not in plan_of:
        continue
    phases = dict((k.strip(), int(v)) for k, v in re.findall(r"([a-z+ ]+) (\d+)us", m.group(2)))
    ms = (phases.get("plan", 0) + phases.get("reserve+history", 0)) / 1000
    started[plan_of[m.group(1)]].append(ms)
    if "of which describe" in phases:
        describe[plan_of[m.group(1)]].append(phases["of which describe"] / 1000)
campaigns = {}
for plan in ("nodes", "pairs"):
    nodes = load(f"nodes-{plan}.json") or {}
    info = (nodes.get("campaigns") or [{}])[0]
    cpu = open(f"{d}/campaign-{plan}.cpu").read().split()
    ticks, ta, tb = int(cpu[0]), float(cpu[1]), float(cpu[2])
    t0, t1 = info.get("started_unix_seconds"), info.get("finished_unix_seconds")
    xs = started[plan]
    campaigns[plan] = {
        "status": info.get("status"),
        "seconds": round(t1 - t0, 1) if t0 and t1 else None,
        "fleet": info.get("fleet"), "measured": info.get("measured", 0),
        "pass": info.get("pass", 0), "untested": info.get("untested", 0),
        "degraded": info.get("degraded", 0), "fail": info.get("fail", 0),
        "suspect": info.get("suspect", 0),
        "second_passes": info.get("second_passes", 0),
        "group_sweeps": len(xs),
        "called_started_ms": {"n": len(xs), "p50": pct(xs, 50), "p99": pct(xs, 99),
                              "max": max(xs) if xs else None},
        "describe_ms": {"n": len(describe[plan]), "p50": pct(describe[plan], 50),
                        "p99": pct(describe[plan], 99)},
        "coordinator_cpu_pct": round(ticks / $clk_tck / (tb - ta) * 100, 1),
    }
fleet = load("fleet.json")
r = {
    "n": $n, "mode": "$mode", "fleet_procs": $procs, "nofile": "$nofile",
    "shared_connection": ${#shared[@]} > 0,
    "cpus": $(nproc), "loadavg_at_end": "$(cut -d' ' -f1-3 /proc/loadavg)", "ranks_per_agent": $ranks,
    "sweep_s": $sweep_s, "busy_every": $busy_every, "busy_s": $busy_s,
    "register_all_s": $reg_s,
    "idle_cpu_pct": round(($c1 - $c0) / $clk_tck / ($t1 - $t0) * 100, 2),
    "idle_rss_mib": round($idle_rss / 1024, 1), "idle_threads": $idle_threads,
    "fleet_sweep_peak_rss_mib": round($fleet_peak_rss / 1024, 1),
    "fleet_sweep_peak_threads": $fleet_peak_threads,
    "peak_rss_mib": round($peak_rss / 1024, 1), "hwm_mib": round($hwm / 1024, 1),
    "peak_threads": $peak_threads,
    "fleet_sweep": fleet,
    "fleet_sweep_refused_when_busy": "$refused" == "true",
    "campaigns": campaigns,
    "agents_lost_events": $lost,
}
print(json.dumps(r))
PY
  stop_all
}

for n in "${sizes[@]}"; do
  for mode in "${modes[@]}"; do
    echo "# N=$n $mode: coordinator and $procs fleet_sim process(es)" >&2
    run_one "$n" "$mode"
  done
done

mkdir -p "$(dirname "$out")"
python3 - "$work" "$out" "${#modes[@]}" "${modes[@]}" "${sizes[@]}" <<'PY'
import json, sys
work, out, nm = sys.argv[1], sys.argv[2], int(sys.argv[3])
modes, sizes = sys.argv[4:4 + nm], [int(s) for s in sys.argv[4 + nm:]]
runs = [json.load(open(f"{work}/result-{n}-{m}.json")) for n in sizes for m in modes]

def g(r, path):
    v = r
    for k in path.split("."):
        if not isinstance(v, dict):
            return None
        v = v.get(k)
    return v

rows = [
    ("agents registered in (s)", "register_all_s"),
    ("idle coordinator CPU (% core)", "idle_cpu_pct"),
    ("idle RSS (MiB)", "idle_rss_mib"),
    ("peak RSS, fleet sweeps (MiB)", "fleet_sweep_peak_rss_mib"),
    ("peak RSS, campaigns (MiB)", "peak_rss_mib"),
    ("VmHWM, whole run (MiB)", "hwm_mib"),
    ("threads idle", "idle_threads"),
    ("threads peak, fleet sweeps", "fleet_sweep_peak_threads"),
    ("threads peak, campaigns", "peak_threads"),
    ("fleet sweep: called->started p50", "fleet_sweep.started_ms.p50"),
    ("fleet sweep e2e p50 (ms)", "fleet_sweep.sweep_e2e_ms.p50"),
    ("fleet sweep e2e max (ms)", "fleet_sweep.sweep_e2e_ms.max"),
    ("fleet sweeps failed", "fleet_sweep.failed"),
    ("fleet sweep refused, 10% busy", "fleet_sweep_refused_when_busy"),
]
for plan in ("nodes", "pairs"):
    rows += [
        (f"{plan}: campaign time (s)", f"campaigns.{plan}.seconds"),
        (f"{plan}: measured of fleet", f"campaigns.{plan}.measured"),
        (f"{plan}: fleet", f"campaigns.{plan}.fleet"),
        (f"{plan}: untested", f"campaigns.{plan}.untested"),
        (f"{plan}: named fail/degraded", None),
        (f"{plan}: group sweeps", f"campaigns.{plan}.group_sweeps"),
        (f"{plan}: called->started p50 (ms)", f"campaigns.{plan}.called_started_ms.p50"),
        (f"{plan}: called->started p99 (ms)", f"campaigns.{plan}.called_started_ms.p99"),
        (f"{plan}: called->started max (ms)", f"campaigns.{plan}.called_started_ms.max"),
        (f"{plan}:   of which Describe p50", f"campaigns.{plan}.describe_ms.p50"),
        (f"{plan}:   of which Describe p99", f"campaigns.{plan}.describe_ms.p99"),
        (f"{plan}: coordinator CPU (% core)", f"campaigns.{plan}.coordinator_cpu_pct"),
    ]
rows.append(("agents declared lost (events)", "agents_lost_events"))

def cell(r, label, path):
    if path is None:
        plan = label.split(":")[0]
        c = g(r, f"campaigns.{plan}") or {}
        return c.get("fail", 0) + c.get("degraded", 0)
    return g(r, path)

def fmt(v):
    if v is None:
        return f"{'-':>14}"
    if isinstance(v, bool):
        return f"{'yes' if v else 'no':>14}"
    return f"{v:>14.6g}" if isinstance(v, (int, float)) else f"{str(v):>14}"

heads = [f"{r['mode']} N={r['n']}" for r in runs]
ratio_cols = []
if "tls" in modes and "plain" in modes:
    ratio_cols = [(n, f"tls/plain {n}") for n in sizes]
print(f"{'figure':36}" + "".join(f"{h:>14}" for h in heads) + "".join(f"{h:>16}" for _, h in ratio_cols))
by = {(r["n"], r["mode"]): r for r in runs}
for label, path in rows:
    line = f"{label:36}" + "".join(fmt(cell(r, label, path)) for r in runs)
    for n, _ in ratio_cols:
        a, b = cell(by[(n, "tls")], label, path), cell(by[(n, "plain")], label, path)
        ok = isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) and b
        line += f"{(round(a / b, 3) if ok else '-'):>16}"
    print(line)

big = max(sizes)
r = by.get((big, "tls")) or by[(big, modes[0])]
print(f"\ntargets at N={big}, {r['mode']} (reported, not enforced):")
targets = [
    ("group sweep called->started p99 <= 50 ms (nodes)", "campaigns.nodes.called_started_ms.p99", 50),
    ("group sweep called->started p99 <= 50 ms (pairs)", "campaigns.pairs.called_started_ms.p99", 50),
    ("campaign of single nodes <= 120 s", "campaigns.nodes.seconds", 120),
    ("campaign of pairs <= 120 s", "campaigns.pairs.seconds", 120),
    ("coordinator RSS during the campaigns <= 512 MiB", "peak_rss_mib", 512),
    ("idle coordinator CPU <= 5 % of a core", "idle_cpu_pct", 5),
]
met_list = []
for name, path, limit in targets:
    v = g(r, path)
    met = v is not None and v <= limit
    met_list.append({"target": name, "value": v, "limit": limit, "met": met})
    print(f"  {'met   ' if met else 'MISSED'}  {name}: {'no data' if v is None else f'{v:.4g}'}")
json.dump({"sizes": sizes, "modes": modes, "runs": runs, "targets": met_list},
          open(out, "w"), indent=1)
print(f"\nJSON: {out}")
PY
