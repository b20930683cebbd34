#!/usr/bin/env bash
# Scale benchmark of the coordinator against simulated fleets (fleet_sim):
# for each fleet size N it starts a fresh real fabricpulse-coordinator and
# FLEET_PROCS fleet_sim processes hosting N agents on 127.0.0.1, then
# measures the coordinator's idle CPU while N agents heartbeat, its memory
# and threads, the per-step control overhead of sweeps (scale_client), the
# end-to-end time of a one-size sweep (scale_client and the real CLI), and
# the size and scrape time of /metrics; and, as the simulator's own floor,
# how long the fleet takes to answer a Describe from every agent at once
# when asked without a thread per agent. A test tool: it reports what it
# measured against the targets, it does not pass or fail on them.
#
#   tests/scale/scale_bench.sh
#
# Env: SIZES ("64 256 1024"), FLEET_PROCS (4), RANKS (1, per agent),
# IDLE_S (20), SWEEPS (20), STEPS (21), E2E_SWEEPS (20), CLI_RUNS (10),
# SCRAPES (5), COLD_TRIES (3), FABRICPULSE_BIN (build/bin), OUT
# (build/scale_bench.json), KEEP_LOGS (keep the work folder), COORD_ENV
# (NAME=VALUE words added to the coordinator's environment, for
# experiments). Needs python3 and curl. The simulated agents speak plaintext
# gRPC, so the coordinator runs --insecure here: these figures leave out the
# cost of TLS and of the authorizer.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${FABRICPULSE_BIN:-build/bin}"
read -r -a sizes <<<"${SIZES:-64 256 1024}"
procs="${FLEET_PROCS:-4}"
ranks="${RANKS:-1}"
idle_s="${IDLE_S:-20}"
sweeps="${SWEEPS:-20}"
steps="${STEPS:-21}"
e2e_sweeps="${E2E_SWEEPS:-20}"
cli_runs="${CLI_RUNS:-10}"
scrapes="${SCRAPES:-5}"
out="${OUT:-build/scale_bench.json}"
for tool in fabricpulse-coordinator fabricpulse fleet_sim scale_client; do
  [ -x "$bin/$tool" ] || { echo "missing $bin/$tool; build it first" >&2; exit 2; }
done
if ! command -v python3 >/dev/null || ! command -v curl >/dev/null; then
  echo "needs python3 and curl" >&2
  exit 2
fi

work=$(mktemp -d /tmp/fabricpulse-scale-bench-XXXXXX)
# shellcheck source=tests/scale/bench_lib.sh
source "$(dirname "$0")/bench_lib.sh"
trap cleanup EXIT
trap 'exit 130' INT TERM

# run_size N: one fleet of N agents against a fresh coordinator; writes
# $work/result-N.json.
run_size() {
  local n=$1 dir="$work/n$1"
  mkdir -p "$dir"
  # Debug logging adds one line per sweep: its phase timings.
  # shellcheck disable=SC2086  # COORD_ENV is split into NAME=VALUE words
  env FABRICPULSE_LOG=debug ${COORD_ENV:-} "$bin/fabricpulse-coordinator" --listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0 \
    --state-dir "$dir/state" --port-file "$dir/coord.ports" --insecure 2>"$dir/coordinator.log" &
  local coord_pid=$!
  PIDS+=("$coord_pid")
  wait_until "the coordinator's port file" 30 has_line "$dir/coord.ports" metrics=
  local coord metrics
  coord=$(sed -n 's/^grpc=//p' "$dir/coord.ports")
  metrics=$(sed -n 's/^metrics=//p' "$dir/coord.ports")

  # N agents over the processes: sim-0000.., contiguous indexes; each
  # process reports how long its agents took to register.
  local fleet_pids reg_s
  start_fleets "$n" "$dir" "$coord" 120 --ranks "$ranks"
  "$bin/scale_client" --coordinator "$coord" --wait-agents "$n" --wait-timeout 60 --sweeps 0

  # Idle: N agents heartbeat, nothing else runs.
  local c0 c1 f0=0 f1=0 t0 t1 pid
  c0=$(cpu_ticks "$coord_pid")
  for pid in "${fleet_pids[@]}"; do f0=$((f0 + $(cpu_ticks "$pid"))); done
  t0=$(now)
  pause "$idle_s"
  c1=$(cpu_ticks "$coord_pid")
  for pid in "${fleet_pids[@]}"; do f1=$((f1 + $(cpu_ticks "$pid"))); done
  t1=$(now)
  local idle_rss idle_threads fleet_rss=0 fleet_threads=0 load0 load1
  idle_rss=$(status_kb "$coord_pid" VmRSS)
  idle_threads=$(status_kb "$coord_pid" Threads)
  for pid in "${fleet_pids[@]}"; do
    fleet_rss=$((fleet_rss + $(status_kb "$pid" VmRSS)))
    fleet_threads=$((fleet_threads + $(status_kb "$pid" Threads)))
  done
  load0=$(cut -d' ' -f1 /proc/loadavg)

  # Peak threads and RSS while sweeps run, sampled every 100 ms.
  local sampler
  start_peak_sampler "$coord_pid" "$dir/peak"

  # The first sweep meets N agents the coordinator never called: it
  # connects to each. Up to COLD_TRIES tries until one succeeds.
  local tries=0 cold_ok=false
  while [ "$tries" -lt "${COLD_TRIES:-3}" ]; do
    tries=$((tries + 1))
    if "$bin/scale_client" --coordinator "$coord" --sweeps 1 --steps 1 --min-bytes 1048576 \
      --label "cold $tries N=$n" >"$dir/cold-$tries.json" 2>>"$dir/client.log"; then
      cold_ok=true
      break
    fi
    echo "N=$n: cold sweep try $tries failed: $(tail -1 "$dir/client.log" | cut -c1-200)" >&2
  done
  local s0 s1 fs0=0 fs1=0 ts0 ts1 phases0 phases1
  s0=$(cpu_ticks "$coord_pid")
  for pid in "${fleet_pids[@]}"; do fs0=$((fs0 + $(cpu_ticks "$pid"))); done
  ts0=$(now)
  phases0=$(grep -c ': plan [0-9]*us' "$dir/coordinator.log" || true)
  "$bin/scale_client" --coordinator "$coord" --sweeps "$sweeps" --steps "$steps" \
    --label "steps N=$n" >"$dir/steps.json" 2>>"$dir/client.log" ||
    echo "N=$n: step sweeps: some failed (see $dir/client.log)" >&2
  phases1=$(grep -c ': plan [0-9]*us' "$dir/coordinator.log" || true)
  s1=$(cpu_ticks "$coord_pid")
  for pid in "${fleet_pids[@]}"; do fs1=$((fs1 + $(cpu_ticks "$pid"))); done
  ts1=$(now)
  grep ': plan [0-9]*us' "$dir/coordinator.log" | sed -n "$((phases0 + 1)),${phases1}p" >"$dir/phases-steps" || true
  "$bin/scale_client" --coordinator "$coord" --sweeps "$e2e_sweeps" --steps 1 \
    --min-bytes 1048576 --label "one-size N=$n" >"$dir/onesize.json" 2>>"$dir/client.log" ||
    echo "N=$n: one-size sweeps: some failed (see $dir/client.log)" >&2
  grep ': plan [0-9]*us' "$dir/coordinator.log" | sed -n "$((phases1 + 1)),\$p" >"$dir/phases-onesize" || true
  local i ta tb cli_fail=0
  : >"$dir/cli_ms"
  for ((i = 0; i < cli_runs; i++)); do
    ta=$(now)
    if ! "$bin/fabricpulse" --coordinator "$coord" --insecure sweep --ops all_reduce --min-bytes 1M \
      --max-bytes 1M --output json >"$dir/cli.out" 2>>"$dir/cli.err"; then
      cli_fail=$((cli_fail + 1))
    fi
    tb=$(now)
    awk -v a="$ta" -v b="$tb" 'BEGIN {printf "%.3f\n", (b - a) * 1000}' >>"$dir/cli_ms"
  done
  stop_pid "$sampler"
  load1=$(cut -d' ' -f1 /proc/loadavg)
  # The simulator's own floor: every agent's Describe at once from one
  # thread (callback API), first on fresh connections, then warm.
  "$bin/scale_client" --coordinator "$coord" --probe-rounds 6 --sweeps 0 \
    --label "probe N=$n" >"$dir/probe.json" 2>>"$dir/client.log" ||
    echo "N=$n: Describe probe failed (see $dir/client.log)" >&2
  local lost
  lost=$(grep -c ' lost: no heartbeat' "$dir/coordinator.log" || true)
  local peak_threads peak_rss
  read -r peak_threads peak_rss <"$dir/peak"
  local rss hwm threads fds
  rss=$(status_kb "$coord_pid" VmRSS)
  hwm=$(status_kb "$coord_pid" VmHWM)
  threads=$(status_kb "$coord_pid" Threads)
  fds=$(find "/proc/$coord_pid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)

  : >"$dir/scrape"
  for ((i = 0; i < scrapes; i++)); do
    curl -sS --max-time 30 -o /dev/null -w '%{size_download} %{time_total}\n' \
      "http://$metrics/metrics" >>"$dir/scrape"
  done

  python3 - "$dir" "$n" <<PY >"$work/result-$n.json"
import json, sys
d, n = sys.argv[1], int(sys.argv[2])
def pct(xs, q):
    xs = sorted(xs)
    if not xs: return 0.0
    import math
    return xs[max(0, math.ceil(q / 100 * len(xs)) - 1)]
import re, statistics
def load(name):
    try:
        text = open(d + "/" + name).read().strip()
        return json.loads(text) if text else None
    except OSError:
        return None
def phases(name):
    # "sweep ID: plan 120us, reserve+history 40us, ...; total 900us" lines:
    # the median of each phase, in ms.
    acc = {}
    try:
        lines = open(d + "/" + name).read().splitlines()
    except OSError:
        return {}
    for line in lines:
        body = line.split(": ", 2)[-1]
        for part in re.split(r"[,;] ", body):
            m = re.match(r"\s*(.+?) (\d+)us$", part.strip())
            if m:
                acc.setdefault(m.group(1), []).append(int(m.group(2)) / 1000)
    return {k: round(statistics.median(v), 3) for k, v in acc.items()}
cli = [float(x) for x in open(d + "/cli_ms").read().split()]
scr = [l.split() for l in open(d + "/scrape").read().splitlines() if l.strip()]
times = [float(t) * 1000 for _, t in scr]
r = {
  "n": n, "fleet_procs": $procs, "ranks_per_agent": $ranks,
  "register_all_s": $reg_s,
  "idle_window_s": round($t1 - $t0, 3),
  "idle_cpu_pct": round(($c1 - $c0) / $clk_tck / ($t1 - $t0) * 100, 2),
  "fleet_idle_cpu_pct": round(($f1 - $f0) / $clk_tck / ($t1 - $t0) * 100, 2),
  "idle_rss_mib": round($idle_rss / 1024, 1),
  "idle_threads": $idle_threads,
  "fleet_rss_mib": round($fleet_rss / 1024, 1),
  "fleet_threads": $fleet_threads,
  "loadavg_before_sweeps": $load0, "loadavg_after_sweeps": $load1,
  "rss_mib": round($rss / 1024, 1),
  "hwm_mib": round($hwm / 1024, 1),
  "peak_sampled_rss_mib": round($peak_rss / 1024, 1),
  "threads_after": $threads,
  "peak_threads": $peak_threads,
  "fds": $fds,
  "cold_tries": $tries, "cold_ok": "$cold_ok" == "true",
  "cold": load("cold-$tries.json"),
  "steps": load("steps.json"),
  "onesize": load("onesize.json"),
  "probe": load("probe.json"),
  "agents_lost_events": $lost,
  "steps_phase_cpu_pct": round(($s1 - $s0) / $clk_tck / ($ts1 - $ts0) * 100, 1),
  "steps_phase_fleet_cpu_pct": round(($fs1 - $fs0) / $clk_tck / ($ts1 - $ts0) * 100, 1),
  "phases_steps_ms": phases("phases-steps"),
  "phases_onesize_ms": phases("phases-onesize"),
  "cli_onesize_ms": {"n": len(cli), "failed": $cli_fail, "p50": pct(cli, 50), "p99": pct(cli, 99), "max": max(cli) if cli else 0},
  "metrics_bytes": int(scr[-1][0]) if scr else 0,
  "scrape_ms_median": sorted(times)[len(times) // 2] if times else 0,
}
print(json.dumps(r))
PY
  # This size's processes go; the next size starts from nothing.
  stop_all
}

for n in "${sizes[@]}"; do
  echo "# N=$n: starting coordinator and $procs fleet_sim process(es)" >&2
  run_size "$n"
done

mkdir -p "$(dirname "$out")"
python3 - "$work" "$out" "${sizes[@]}" <<'PY'
import json, math, sys
work, out, sizes = sys.argv[1], sys.argv[2], [int(s) for s in sys.argv[3:]]
runs = [json.load(open(f"{work}/result-{n}.json")) for n in sizes]

def g(r, path):
    """The figure at `path` ("a.b.c"); None when absent or from no sample."""
    v, parent = r, None
    for k in path.split("."):
        if not isinstance(v, dict):
            return None
        parent, v = v, v.get(k)
    if isinstance(parent, dict) and parent.get("n") == 0:
        return None
    return v

rows = [
  ("agents registered in (s)", "register_all_s"),
  ("idle coordinator CPU (% core)", "idle_cpu_pct"),
  ("idle fleet_sim CPU (% core, all)", "fleet_idle_cpu_pct"),
  ("idle RSS (MiB)", "idle_rss_mib"),
  ("RSS after sweeps (MiB)", "rss_mib"),
  ("VmHWM peak RSS (MiB)", "hwm_mib"),
  ("threads idle", "idle_threads"),
  ("threads peak (sampled)", "peak_threads"),
  ("open fds", "fds"),
  ("fleet_sim RSS, all (MiB)", "fleet_rss_mib"),
  ("fleet_sim threads, all", "fleet_threads"),
  ("load average before sweeps", "loadavg_before_sweeps"),
  ("load average after sweeps", "loadavg_after_sweeps"),
  ("cold 1st sweep tries", "cold_tries"),
  ("cold 1st sweep e2e (ms)", "cold.sweep_e2e_ms.max"),
  ("step overhead p50 (ms)", "steps.step_overhead_ms.p50"),
  ("step overhead p99 (ms)", "steps.step_overhead_ms.p99"),
  ("step overhead max (ms)", "steps.step_overhead_ms.max"),
  ("step sweeps failed", "steps.failed"),
  ("21-step: called->started p50 (ms)", "steps.started_ms.p50"),
  ("21-step: started->1st result p50", "steps.first_result_ms.p50"),
  ("21-step sweep e2e p50 (ms)", "steps.sweep_e2e_ms.p50"),
  ("21-step phase: plan (ms)", "phases_steps_ms.plan"),
  ("21-step phase: record results", "phases_steps_ms.record results"),
  ("21-step phase: run (ms)", "phases_steps_ms.run"),
  ("21-step phase: finish (ms)", "phases_steps_ms.finish"),
  ("21-step coordinator CPU (% core)", "steps_phase_cpu_pct"),
  ("21-step fleet_sim CPU (% core)", "steps_phase_fleet_cpu_pct"),
  ("one-size: called->started p50", "onesize.started_ms.p50"),
  ("one-size: started->result p50", "onesize.first_result_ms.p50"),
  ("one-size e2e p50 (ms)", "onesize.sweep_e2e_ms.p50"),
  ("one-size e2e p99 (ms)", "onesize.sweep_e2e_ms.p99"),
  ("one-size sweeps failed", "onesize.failed"),
  ("CLI one-size p50 (ms)", "cli_onesize_ms.p50"),
  ("CLI one-size p99 (ms)", "cli_onesize_ms.p99"),
  ("CLI one-size failed", "cli_onesize_ms.failed"),
  ("agents declared lost (events)", "agents_lost_events"),
  ("sim floor: Describe all, cold", "probe.describe_cold_ms"),
  ("sim floor: Describe all, warm p50", "probe.describe_warm_ms.p50"),
  ("/metrics size (bytes)", "metrics_bytes"),
  ("/metrics scrape median (ms)", "scrape_ms_median"),
]

def fmt(v, width=12):
    return f"{'-':>{width}}" if v is None else f"{v:>{width}.6g}"

base = runs[0]
ratios = {}
print(f"{'figure':34}" + "".join(f"{'N=' + str(r['n']):>12}" for r in runs) +
      "".join(f"{'N' + str(r['n']) + '/N' + str(base['n']):>12}" for r in runs[1:]))
for label, path in rows:
    vals = [g(r, path) for r in runs]
    line = f"{label:34}" + "".join(fmt(v) for v in vals)
    b = vals[0]
    for r, v in zip(runs[1:], vals[1:]):
        ratio = round(v / b, 3) if (v is not None and b) else None
        ratios.setdefault(str(r["n"]), {})[path] = ratio
        line += fmt(ratio)
    print(line)

big = runs[-1]
targets = [
  ("per-step control overhead p99 <= 50 ms", "steps.step_overhead_ms.p99", 50),
  ("one-size sweep end to end p99 <= 1000 ms (scale_client)", "onesize.sweep_e2e_ms.p99", 1000),
  ("one-size sweep end to end p99 <= 1000 ms (CLI)", "cli_onesize_ms.p99", 1000),
  ("coordinator RSS (VmHWM) <= 256 MiB", "hwm_mib", 256),
  ("idle coordinator CPU <= 5 % of a core", "idle_cpu_pct", 5),
  ("/metrics scrape <= 1000 ms", "scrape_ms_median", 1000),
]
print(f"\ntargets at N={big['n']} (reported, not enforced):")
result_targets = []
for name, path, limit in targets:
    v = g(big, path)
    met = v is not None and v <= limit
    result_targets.append({"target": name, "value": v, "limit": limit, "met": met})
    print(f"  {'met   ' if met else 'MISSED'}  {name}: {'no data' if v is None else f'{v:.4g}'}")
json.dump({"sizes": sizes, "runs": runs, "ratios_vs_first": ratios,
           "targets_at_largest": result_targets}, open(out, "w"), indent=1)
print(f"\nJSON: {out}")
PY
