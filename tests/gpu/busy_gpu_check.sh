#!/usr/bin/env bash
# The busy-GPU check, end to end, on a machine with an NVIDIA GPU (one is
# enough), from a bundle (scripts/bundle.sh):
#   tests/gpu/busy_gpu_check.sh BUNDLE_DIR OUT_DIR
# 1. A coordinator whose schedule `every-minute` runs plan `tiny` at every
#    full minute (cron has minute granularity: there is no faster clock), and
#    1 agent x 1 GPU (GPU 0) on NCCL.
# 2. An on-demand sweep, so that our worker holds its CUDA context as it
#    does between sweeps; the agent must still report GPU 0 free
#    (fabricpulse_agent_gpu_busy{gpu="0"} 0): its own worker is not
#    "another process".
# 3. A python3 process allocates memory on GPU 0 with torch and sleeps: the
#    agent reports GPU 0 busy and `fabricpulse agents` lists it; an
#    on-demand sweep is refused (exit 4, one line naming node, GPU and
#    process count, nothing recorded) and runs with --allow-busy; the next
#    firing is held back: the coordinator logs it and counts
#    fabricpulse_schedule_deferred_total{reason="gpu_busy"}; no scheduled
#    sweep starts while it is busy.
# 4. The torch process is killed: GPU 0 turns free and the held-back firing
#    runs and succeeds.
# 5. Mid-sweep yield: a long on-demand sweep runs, and a torch process takes
#    GPU 0: the sweep ends `preempted` (exit 4, one line naming node and
#    GPU), timed from the moment the process had its CUDA context to the
#    CLI's exit (the yield bound: 100 ms fast poll + 100 ms relay poll + the
#    abort); stored as preempted, no failed sweep and no worker restart
#    counted; once the process ends the next sweep succeeds.
# Prints PASS/FAIL lines with timings; exits non-zero on any failure. Takes
# 2 to 3 minutes (mostly waiting for the next full minute). OUT_DIR gets
# the config, the daemons' logs and the scrapes.
# Needs python3 with torch (CUDA) and nvidia-smi. NCCL: the machine's
# libnccl.so.2, else the nvidia-nccl wheel's lib folder (NCCL_LIB_DIR).
#
# Dry run without a GPU: BUSY_GPU_DRY_RUN=gloo runs every step on one Gloo
# rank, with the stand-in NVML of the build tree
# (BUNDLE_DIR/tests/integration/fake_nvml/libnvidia-ml.so.1, or
# FAKE_NVML_DIR; tests/fakes/fake_libnvidia_ml.cc) and the agent's test seam
# --gloo-probe-gpus 0 (the rank is accounted to GPU 0); a `sleep` process,
# written into the stand-in's state file beside our worker's pid, plays the
# torch process.
# Functions below run through wait_for and traps (SC2317 cannot see that).
# shellcheck disable=SC2317
set -uo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
if [ $# -ne 2 ]; then
  echo "usage: $0 BUNDLE_DIR OUT_DIR" >&2
  exit 2
fi
bundle=$1
out=$2
mode=${BUSY_GPU_DRY_RUN:-nccl}
BIN="$bundle/bin"
[ -x "$BIN/fabricpulse" ] || BIN="$bundle/build/bin"
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)

t0=$EPOCHREALTIME
failures=0
elapsed() { awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN {printf "%6.1fs", b - a}'; }
pass() { echo "PASS [$(elapsed)] $*"; }
fail() { echo "FAIL [$(elapsed)] $*"; failures=$((failures + 1)); }
# Fatal: nothing after it can be checked.
abort() {
  fail "$*"
  echo "== busy-GPU check: $failures failure(s); logs in $out"
  exit 1
}

# wait_for SECONDS COMMAND...: true once COMMAND succeeds, false after
# SECONDS (polled every 0.5 s).
wait_for() {
  local limit=$1
  shift
  local end
  end=$(awk -v n="$EPOCHREALTIME" -v s="$limit" 'BEGIN {printf "%.3f", n + s}')
  while true; do
    "$@" && return 0
    awk -v n="$EPOCHREALTIME" -v e="$end" 'BEGIN {exit !(n >= e)}' && return 1
    sleep 0.5
  done
}

[ -x "$BIN/fabricpulse-agent" ] || abort "no fabricpulse-agent in $bundle/bin (or build/bin)"
if [ "$mode" = nccl ]; then
  if ! ldconfig -p 2>/dev/null | grep -q libnccl.so.2 && [ -z "${NCCL_LIB_DIR:-}" ]; then
    NCCL_LIB_DIR=$(python3 -c "import nvidia.nccl, os; print(os.path.join(nvidia.nccl.__path__[0], 'lib'))" 2>/dev/null)
  fi
  export LD_LIBRARY_PATH="${NCCL_LIB_DIR:-}:${LD_LIBRARY_PATH:-}"
  command -v nvidia-smi >/dev/null || abort "nvidia-smi not found: no NVIDIA driver here"
  python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null ||
    abort "python3 cannot use torch with CUDA (pip install torch)"
  nvidia-smi --query-compute-apps=pid,used_memory --format=csv >"$out/nvidia-smi-before.csv" 2>&1
  if [ "$(grep -vc '^pid' "$out/nvidia-smi-before.csv")" -gt 0 ]; then
    fail "GPU compute processes before the test (see $out/nvidia-smi-before.csv): results may be off"
  fi
elif [ "$mode" = gloo ]; then
  fake_nvml_dir=${FAKE_NVML_DIR:-$bundle/tests/integration/fake_nvml}
  [ -e "$fake_nvml_dir/libnvidia-ml.so.1" ] ||
    abort "dry run: no stand-in libnvidia-ml.so.1 in $fake_nvml_dir (build the fake_nvidia_ml target, or set FAKE_NVML_DIR)"
else
  abort "BUSY_GPU_DRY_RUN=$mode: only gloo is a dry-run mode"
fi

# shellcheck source=tests/perf/cluster_lib.sh
source "$here/../perf/cluster_lib.sh"

cat >"$out/coordinator.yaml" <<'EOF'
timezone: UTC
plans:
  tiny:
    ops: [all_reduce]
    min_bytes: 1K
    max_bytes: 64K
    factor: 4
    iters: 3
    warmup: 1
schedules:
  - name: every-minute
    plan: tiny
    cron: "* * * * *"
    allow_busy_gpus: false
EOF

hog_pid=""
cli_pid=""
cleanup() {
  trap - EXIT INT TERM
  local p
  for p in "$hog_pid" "$cli_pid"; do
    [ -n "$p" ] || continue
    kill "$p" 2>/dev/null
    wait "$p" 2>/dev/null
  done
  if [ -n "${CLUSTER_DIR:-}" ] && [ -d "$CLUSTER_DIR" ]; then
    cp "$CLUSTER_DIR"/*.log "$out/" 2>/dev/null
  fi
  cluster_down >/dev/null 2>&1
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The stand-in NVML's view in the dry run: GPU 0's compute pids.
nvml_state="$out/fake-nvml-state"
set_nvml_pids() {  # set_nvml_pids PID... (none: no process)
  echo "$*" >"$nvml_state.next" && mv "$nvml_state.next" "$nvml_state"
}
agent_env=(FABRICPULSE_LOG=debug)
if [ "$mode" = gloo ]; then
  set_nvml_pids
  agent_env+=("LD_LIBRARY_PATH=$fake_nvml_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    "FAKE_NVML_STATE_FILE=$nvml_state" FABRICPULSE_GLOO_PROBE_GPUS=0)
fi

# --- 1. cluster --------------------------------------------------------------
export KEEP_LOGS=1  # cluster_down keeps CLUSTER_DIR; cleanup copies its logs
COORD_ARGS="--config $out/coordinator.yaml"
cluster_up 1 1 "$mode" "${agent_env[@]}" || abort "cluster did not start (logs in $out)"
pass "cluster up: coordinator $COORD, 1 agent x 1 $mode rank$([ "$mode" = gloo ] && echo ', accounted to GPU 0 of a stand-in NVML')"
agent_metrics=$(sed -n 's/^metrics=//p' "$CLUSTER_DIR/agent-0.ports")
coord_metrics=$(sed -n 's/^metrics=//p' "$CLUSTER_DIR/coord.ports")
agent_pid=${CLUSTER_PIDS[1]}

scrape() {  # scrape HOST:PORT -> the /metrics text on stdout
  python3 - "$1" <<'PY'
import sys, urllib.request
with urllib.request.urlopen("http://%s/metrics" % sys.argv[1], timeout=5) as r:
    sys.stdout.write(r.read().decode())
PY
}
# value METRICS_TEXT_FILE NAME LABEL=VALUE...: the value of the one series of
# NAME carrying those labels (any order), or nothing.
value() {
  local file=$1 name=$2
  shift 2
  python3 - "$file" "$name" "$@" <<'PY'
import re, sys
path, name, want = sys.argv[1], sys.argv[2], sys.argv[3:]
for line in open(path):
    m = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)\{(.*)\} (\S+)$', line.strip())
    if not m or m.group(1) != name:
        continue
    labels = dict(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="([^"]*)"', m.group(2)))
    if all(labels.get(k) == v for k, v in (w.split("=", 1) for w in want)):
        print(m.group(3))
        break
PY
}
gpu_busy_is() {  # gpu_busy_is 0|1
  scrape "$agent_metrics" >"$out/agent-metrics.txt" 2>/dev/null || return 1
  [ "$(value "$out/agent-metrics.txt" fabricpulse_agent_gpu_busy gpu=0 node=node-0)" = "$1" ]
}
deferred_gpu_busy() {  # the gpu_busy deferral count of every-minute
  scrape "$coord_metrics" >"$out/coordinator-metrics.txt" 2>/dev/null || return 1
  value "$out/coordinator-metrics.txt" fabricpulse_schedule_deferred_total \
    schedule=every-minute reason=gpu_busy | awk '{printf "%d", $1}'
}
deferred_at_least() { local n; n=$(deferred_gpu_busy) && [ -n "$n" ] && [ "$n" -ge "$1" ]; }
# history FILTER: how many of the newest 200 sweeps match FILTER, a python
# expression over the sweep `r` (results --output json: docs/json.md).
history() {
  "$BIN/fabricpulse" --coordinator "$COORD" results --last 200 --output json 2>/dev/null |
    python3 -c '
import json, sys
rows = json.load(sys.stdin)["sweeps"]
print(sum(1 for r in rows if eval(sys.argv[1])))' "$1"
}
# scheduled STATUS|any: how many sweeps schedule every-minute has started
# (history records a sweep when it starts), or only those with STATUS.
scheduled() {
  if [ "$1" = any ]; then
    history 'r["trigger"] == "schedule:every-minute"'
  else
    history "r[\"trigger\"] == \"schedule:every-minute\" and r[\"status\"] == \"$1\""
  fi
}
scheduled_more_than() {  # scheduled_more_than N STATUS
  local n
  n=$(scheduled "$2") && [ -n "$n" ] && [ "$n" -gt "$1" ]
}
cli_running() { [ "$(history 'r["trigger"] == "cli" and r["status"] == "running"')" = 1 ]; }
agents_column() {  # agents_column N: column N of node-0 in `fabricpulse agents`
  "$BIN/fabricpulse" --coordinator "$COORD" agents 2>/dev/null | awk -v n="$1" '$1 == "node-0" {print $n}'
}
agents_busy_column_is() { [ "$(agents_column 9)" = "$1" ]; }  # BUSY-GPUS
# Our worker's pid: NVML lists it once it has a CUDA context (dry run: we
# list it, as NVML would).
worker_pids() { ps -o pid= --ppid "$agent_pid" | tr -d ' ' | tr '\n' ' '; }

# start_hog NAME: another compute process on GPU 0; its pid in hog_pid, and
# OUT/NAME.ready holds "PID UNIX_TIME" once NVML can list it (torch: after
# its CUDA context and allocation exist).
start_hog() {
  rm -f "$out/$1.ready"
  if [ "$mode" = nccl ]; then
    python3 - "$out/$1.ready" >"$out/$1.log" 2>&1 <<'PY' &
import os, sys, time
import torch
x = torch.empty(512 * 1024 * 1024, dtype=torch.uint8, device="cuda:0")
x.fill_(1)
torch.cuda.synchronize()
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d %.6f" % (os.getpid(), time.time()))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(600)
PY
    hog_pid=$!
  else
    sleep 600 &
    hog_pid=$!
    set_nvml_pids "$(worker_pids)" "$hog_pid"
    echo "$hog_pid $EPOCHREALTIME" >"$out/$1.ready"
  fi
}
stop_hog() {
  kill "$hog_pid" 2>/dev/null
  wait "$hog_pid" 2>/dev/null
  hog_pid=""
  [ "$mode" = gloo ] && set_nvml_pids "$(worker_pids)"
  return 0
}
hog_name() { [ "$mode" = nccl ] && echo "torch process" || echo "process (sleep, in the stand-in NVML)"; }

# --- 2. our own worker is not "another process" -------------------------------
if "$BIN/fabricpulse" --coordinator "$COORD" sweep --ops all_reduce --min-bytes 1K \
  --max-bytes 1K --iters 2 --warmup 1 >"$out/on-demand-sweep.txt" 2>&1; then
  pass "on-demand sweep succeeded (the worker now holds its CUDA context)"
else
  fail "on-demand sweep failed: $(tail -n 1 "$out/on-demand-sweep.txt")"
fi
[ "$mode" = gloo ] && set_nvml_pids "$(worker_pids)"
if deferred_at_least 0; then
  pass "coordinator exports fabricpulse_schedule_deferred_total{schedule=\"every-minute\",reason=\"gpu_busy\"} from the start"
else
  fail "fabricpulse_schedule_deferred_total for every-minute is missing"
fi

if wait_for 15 gpu_busy_is 0; then
  pass "agent reports GPU 0 free: fabricpulse_agent_gpu_busy{gpu=\"0\"} 0 with our own worker on it"
else
  grep -i "busy-GPU check\|GPU 0" "$CLUSTER_DIR/agent-0.log" | tail -n 5
  abort "fabricpulse_agent_gpu_busy{gpu=\"0\"} is not 0 (see agent-metrics.txt, agent-0.log)"
fi
[ "$mode" = nccl ] && nvidia-smi --query-compute-apps=pid,used_memory --format=csv >"$out/nvidia-smi-ours.csv" 2>&1

# --- 3. another process on GPU 0 -----------------------------------------------
# Deferrals for gpu_busy can only come after this point.
deferred_before=$(deferred_gpu_busy)
[ -n "$deferred_before" ] || abort "cannot read fabricpulse_schedule_deferred_total from the coordinator at $coord_metrics"
t_hog=$EPOCHREALTIME
start_hog hog
if wait_for 60 test -s "$out/hog.ready"; then
  pass "$(hog_name) $hog_pid holds GPU 0"
else
  abort "the $(hog_name) did not start on GPU 0 within 60 s (see hog.log)"
fi
[ "$mode" = nccl ] && nvidia-smi --query-compute-apps=pid,used_memory --format=csv >"$out/nvidia-smi-busy.csv" 2>&1
if wait_for 15 gpu_busy_is 1; then
  pass "agent reports GPU 0 busy $(awk -v a="$t_hog" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.1f", b - a}') s after the $(hog_name) started"
else
  grep -i "busy-GPU check\|GPU 0" "$CLUSTER_DIR/agent-0.log" | tail -n 5
  abort "fabricpulse_agent_gpu_busy{gpu=\"0\"} did not become 1 within 15 s (see agent-metrics.txt, nvidia-smi-busy.csv)"
fi
# Once `agents` shows it, the coordinator has it: no scheduled sweep may start
# from here on while the GPU stays busy.
if wait_for 10 agents_busy_column_is 0; then
  pass "fabricpulse agents lists GPU 0 of node-0 as busy"
else
  fail "fabricpulse agents does not list GPU 0 of node-0 as busy within 10 s"
fi

# On demand: refused while busy, with one line, nothing recorded.
sweeps_before=$(history True)
"$BIN/fabricpulse" --coordinator "$COORD" sweep --ops all_reduce --min-bytes 1K --max-bytes 1K \
  --iters 2 --warmup 1 >"$out/refused-sweep.txt" 2>"$out/refused-sweep.err"
rc=$?
if [ "$rc" = 4 ] && [ "$(wc -l <"$out/refused-sweep.err")" = 1 ] &&
  grep -q "GPUs busy: node node-0 GPU 0 (1 other process)" "$out/refused-sweep.err"; then
  pass "on-demand sweep refused, exit 4: $(cat "$out/refused-sweep.err")"
else
  fail "on-demand sweep on the busy GPU: exit $rc, stderr: $(cat "$out/refused-sweep.err")"
fi
if [ "$(history True)" = "$sweeps_before" ]; then
  pass "the refused sweep was not recorded ($sweeps_before sweeps in the history, as before)"
else
  fail "the refused sweep was recorded ($sweeps_before -> $(history True) sweeps)"
fi
if "$BIN/fabricpulse" --coordinator "$COORD" sweep --allow-busy --ops all_reduce --min-bytes 1K \
  --max-bytes 1K --iters 2 --warmup 1 >"$out/allow-busy-sweep.txt" 2>&1; then
  pass "--allow-busy: the on-demand sweep ran on the busy GPU and succeeded"
else
  fail "--allow-busy sweep failed: $(tail -n 1 "$out/allow-busy-sweep.txt")"
fi

started_before=$(scheduled any)
[ -n "$started_before" ] || abort "cannot read the sweep history (fabricpulse results)"
# The next full minute fires the schedule (if it has not since the GPU
# turned busy); it must be held back.
if wait_for 75 deferred_at_least $((deferred_before + 1)); then
  pass "the schedule's firing was held back: fabricpulse_schedule_deferred_total{schedule=\"every-minute\",reason=\"gpu_busy\"} $(deferred_gpu_busy)"
else
  fail "no gpu_busy deferral counted within 75 s (see coordinator-metrics.txt)"
fi
if grep -q "schedule every-minute: GPUs busy: node node-0 GPU 0" "$CLUSTER_DIR/coord.log"; then
  pass "coordinator log: $(grep -m 1 'schedule every-minute: GPUs busy' "$CLUSTER_DIR/coord.log" | sed 's/^.*schedule every-minute/schedule every-minute/')"
else
  fail "coordinator log has no 'schedule every-minute: GPUs busy: node node-0 GPU 0' line"
fi
# Two more retries (every 5 s) while busy: still no scheduled sweep.
sleep 11
started_now=$(scheduled any)
if [ "$started_now" = "$started_before" ]; then
  pass "no scheduled sweep started while GPU 0 was busy ($started_now in the history, as before)"
else
  fail "a scheduled sweep started while GPU 0 was busy ($started_before -> $started_now)"
fi

# --- 4. GPU free again: the held-back firing runs -------------------------------
stop_hog
t_free=$EPOCHREALTIME
if wait_for 15 gpu_busy_is 0; then
  pass "agent reports GPU 0 free again $(awk -v a="$t_free" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.1f", b - a}') s after the $(hog_name) ended"
else
  fail "fabricpulse_agent_gpu_busy{gpu=\"0\"} did not return to 0 within 15 s"
fi
if wait_for 30 scheduled_more_than "$started_now" succeeded; then
  pass "the held-back scheduled sweep ran and succeeded $(awk -v a="$t_free" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.1f", b - a}') s after the GPU was freed"
else
  fail "no scheduled sweep succeeded within 30 s of the GPU being freed (history: $(scheduled any) started, $(scheduled succeeded) succeeded)"
fi

# --- 5. a process appears mid-sweep: the sweep yields ---------------------------
# Long enough to outlast the process's start (torch: several seconds).
if [ "$mode" = nccl ]; then
  long=(--min-bytes 256M --max-bytes 256M)
else
  long=(--min-bytes 8 --max-bytes 64M)
fi
"$BIN/fabricpulse" --coordinator "$COORD" sweep --ops all_reduce "${long[@]}" --iters 1000000 \
  --warmup 1 --no-check --out-of-place --timeout 60s --output json >"$out/preempted-sweep.json" \
  2>"$out/preempted-sweep.err" &
cli_pid=$!
cli_done() { ! kill -0 "$cli_pid" 2>/dev/null; }
running_or_done() { cli_running || cli_done; }
if ! wait_for 30 running_or_done || cli_done; then
  abort "the long sweep is not running within 30 s: $(cat "$out/preempted-sweep.err")"
fi
pass "a long on-demand sweep is running"
start_hog hog2
wait_for 60 test -s "$out/hog2.ready" || abort "the $(hog_name) did not start within 60 s (see hog2.log)"
if ! wait_for 30 cli_done; then
  fail "the sweep did not end within 30 s of the $(hog_name) starting"
  kill "$cli_pid" 2>/dev/null
fi
wait "$cli_pid"
rc=$?
cli_pid=""
# The coordinator's end of the sweep (its history) against the moment the
# process was on the GPU: the yield.
ended=$("$BIN/fabricpulse" --coordinator "$COORD" results --last 200 --output json 2>/dev/null |
  python3 -c '
import json, sys
rows = [r for r in json.load(sys.stdin)["sweeps"] if r["trigger"] == "cli" and r["status"] == "preempted"]
print(rows[0]["finished_unix_seconds"] if rows else "")')
yield_s=$(awk -v a="$(cut -d' ' -f2 "$out/hog2.ready")" -v b="${ended:-0}" 'BEGIN {printf "%.3f", b - a}')
if [ "$rc" = 4 ] && [ "$(wc -l <"$out/preempted-sweep.err")" = 1 ] &&
  grep -q " preempted: node node-0 GPU 0: " "$out/preempted-sweep.err"; then
  pass "the sweep yielded ${yield_s} s after the $(hog_name) was on GPU 0, exit 4: $(cat "$out/preempted-sweep.err")"
else
  fail "the long sweep after the $(hog_name) started: exit $rc, stderr: $(cat "$out/preempted-sweep.err")"
fi
if awk -v y="$yield_s" 'BEGIN {exit !(y < 3)}'; then
  pass "yield within 3 s (${yield_s} s: fast poll 0.1 s + relay poll 0.1 s + the abort)"
else
  fail "the yield took ${yield_s} s (limit 3 s)"
fi
if [ "$(history 'r["trigger"] == "cli" and r["status"] == "preempted"')" = 1 ]; then
  pass "the history lists the sweep as preempted"
else
  fail "no preempted sweep in the history"
fi
scrape "$coord_metrics" >"$out/coordinator-metrics.txt" 2>/dev/null
failed=$(value "$out/coordinator-metrics.txt" fabricpulse_sweeps_total plan=adhoc trigger=cli outcome=failed)
preempted=$(value "$out/coordinator-metrics.txt" fabricpulse_sweeps_total plan=adhoc trigger=cli outcome=preempted)
if [ "${failed:-x}" = 0 ] && [ "${preempted:-x}" = 1 ] &&
  ! awk '/^fabricpulse_hangs_total\{/ && $NF != 0 {f = 1} END {exit !f}' "$out/coordinator-metrics.txt"; then
  pass "not a failure: fabricpulse_sweeps_total{outcome=\"failed\"} 0, {outcome=\"preempted\"} 1, no hang"
else
  fail "coordinator metrics: failed=${failed:-none} preempted=${preempted:-none} (see coordinator-metrics.txt)"
fi
scrape "$agent_metrics" >"$out/agent-metrics.txt" 2>/dev/null
restarts=$(value "$out/agent-metrics.txt" fabricpulse_agent_worker_restarts_total node=node-0)
if [ "${restarts:-x}" = 0 ] && [ "$(agents_column 7)" = 0 ]; then
  pass "no worker restart counted (fabricpulse_agent_worker_restarts_total 0, RESTARTS 0)"
else
  fail "worker restarts after the yield: metric ${restarts:-none}, RESTARTS $(agents_column 7)"
fi
stop_hog
wait_for 15 gpu_busy_is 0 || fail "GPU 0 not free within 15 s of the $(hog_name) ending"
if "$BIN/fabricpulse" --coordinator "$COORD" sweep --ops all_reduce --min-bytes 1K \
  --max-bytes 1K --iters 2 --warmup 1 >"$out/after-yield-sweep.txt" 2>&1; then
  pass "the next sweep succeeded"
else
  fail "the sweep after the yield failed: $(tail -n 1 "$out/after-yield-sweep.txt")"
fi
"$BIN/fabricpulse" --coordinator "$COORD" results --last 20 >"$out/results.txt" 2>&1

total=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN {printf "%d", b - a}')
if [ "$total" -ge 240 ]; then
  fail "took ${total}s (limit 240 s)"
fi
echo "== busy-GPU check$([ "$mode" = gloo ] && echo " (dry run, $mode)"): $failures failure(s) in $(elapsed); logs in $out"
exit $((failures > 0))
