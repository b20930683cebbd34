#!/usr/bin/env bash
# The busy-GPU check, end to end, on a machine with an NVIDIA GPU (one is
# enough), from a bundle (scripts/bundle.sh):
#   tests/gpu/busy_gpu_check.sh BUNDLE_DIR OUT_DIR
# 1. A coordinator whose schedule `every-minute` runs plan `tiny` at every
#    full minute (cron has minute granularity: there is no faster clock), and
#    1 agent x 1 GPU (GPU 0) on NCCL.
# 2. An on-demand sweep (never held back), so that our worker holds its CUDA
#    context as it does between sweeps; the agent must still report GPU 0
#    free (fabricpulse_agent_gpu_busy{gpu="0"} 0): its own worker is not
#    "another process".
# 3. A python3 process allocates memory on GPU 0 with torch and sleeps: the
#    agent reports GPU 0 busy, `fabricpulse agents` lists it, and the next
#    firing is held back: the coordinator logs it and counts
#    fabricpulse_schedule_deferred_total{reason="gpu_busy"}; no scheduled
#    sweep starts while it is busy.
# 4. The torch process is killed: GPU 0 turns free and the held-back firing
#    runs and succeeds.
# Prints PASS/FAIL lines with timings; exits non-zero on any failure. Takes
# 1.5 to 2.5 minutes (mostly waiting for the next full minute). OUT_DIR gets
# the config, the daemons' logs and the scrapes.
# Needs python3 with torch (CUDA) and nvidia-smi. NCCL: the machine's
# libnccl.so.2, else the nvidia-nccl wheel's lib folder (NCCL_LIB_DIR).
#
# Dry run without a GPU: BUSY_GPU_DRY_RUN=gloo runs only what does not need
# one (cluster, on-demand sweep, no gpu_busy series, the schedule firing and
# succeeding) on the Gloo backend.
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
elif [ "$mode" != gloo ]; then
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
cleanup() {
  trap - EXIT INT TERM
  if [ -n "$hog_pid" ]; then
    kill "$hog_pid" 2>/dev/null
    wait "$hog_pid" 2>/dev/null
  fi
  if [ -n "${CLUSTER_DIR:-}" ] && [ -d "$CLUSTER_DIR" ]; then
    cp "$CLUSTER_DIR"/*.log "$out/" 2>/dev/null
  fi
  cluster_down >/dev/null 2>&1
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- 1. cluster --------------------------------------------------------------
export KEEP_LOGS=1  # cluster_down keeps CLUSTER_DIR; cleanup copies its logs
COORD_ARGS="--config $out/coordinator.yaml"
cluster_up 1 1 "$mode" FABRICPULSE_LOG=debug || abort "cluster did not start (logs in $out)"
pass "cluster up: coordinator $COORD, 1 agent x 1 $mode rank"
agent_metrics=$(sed -n 's/^metrics=//p' "$CLUSTER_DIR/agent-0.ports")
coord_metrics=$(sed -n 's/^metrics=//p' "$CLUSTER_DIR/coord.ports")

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
# scheduled STATUS|any: how many sweeps schedule every-minute has started
# (history records a sweep when it starts), or only those with STATUS.
scheduled() {
  "$BIN/fabricpulse" --coordinator "$COORD" results --last 200 --output json 2>/dev/null |
    python3 -c '
import json, sys
want = sys.argv[1]
rows = json.load(sys.stdin)
print(sum(1 for r in rows if r["trigger"] == "schedule:every-minute"
          and (want == "any" or r["status"] == want)))' "$1"
}
scheduled_more_than() {  # scheduled_more_than N STATUS
  local n
  n=$(scheduled "$2") && [ -n "$n" ] && [ "$n" -gt "$1" ]
}
agents_busy_column_is() {  # the BUSY-GPUS column of node-0 in `fabricpulse agents`
  [ "$("$BIN/fabricpulse" --coordinator "$COORD" agents 2>/dev/null |
    awk '$1 == "node-0" {print $NF}')" = "$1" ]
}

# --- 2. our own worker is not "another process" -------------------------------
if "$BIN/fabricpulse" --coordinator "$COORD" sweep --ops all_reduce --min-bytes 1K \
  --max-bytes 1K --iters 2 --warmup 1 >"$out/on-demand-sweep.txt" 2>&1; then
  pass "on-demand sweep succeeded (the worker now holds its CUDA context)"
else
  fail "on-demand sweep failed: $(tail -n 1 "$out/on-demand-sweep.txt")"
fi

if [ "$mode" = gloo ]; then
  scrape "$agent_metrics" >"$out/agent-metrics.txt" || abort "cannot scrape the agent at $agent_metrics"
  if grep -q '^fabricpulse_agent_gpu_busy{' "$out/agent-metrics.txt"; then
    fail "gloo agent exports fabricpulse_agent_gpu_busy (it has no GPU)"
  else
    pass "gloo agent exports no fabricpulse_agent_gpu_busy series (no GPU to probe)"
  fi
  if deferred_at_least 0; then
    pass "coordinator exports fabricpulse_schedule_deferred_total{schedule=\"every-minute\",reason=\"gpu_busy\"} from the start"
  else
    fail "fabricpulse_schedule_deferred_total for every-minute is missing"
  fi
  before=$(scheduled any)
  if wait_for 75 scheduled_more_than "${before:-0}" succeeded; then
    pass "a scheduled sweep ran and succeeded (nothing busy)"
  else
    fail "no scheduled sweep succeeded within 75 s"
  fi
  if agents_busy_column_is "-"; then
    pass "fabricpulse agents: BUSY-GPUS is -"
  else
    fail "fabricpulse agents: BUSY-GPUS column is not '-'"
  fi
  echo "== busy-GPU check (dry run, $mode): $failures failure(s) in $(elapsed); logs in $out"
  exit $((failures > 0))
fi

if wait_for 15 gpu_busy_is 0; then
  pass "agent reports GPU 0 free: fabricpulse_agent_gpu_busy{gpu=\"0\"} 0 with our own worker on it"
else
  grep -i "busy-GPU check\|GPU 0" "$CLUSTER_DIR/agent-0.log" | tail -n 5
  abort "fabricpulse_agent_gpu_busy{gpu=\"0\"} is not 0 (see agent-metrics.txt, agent-0.log)"
fi
nvidia-smi --query-compute-apps=pid,used_memory --format=csv >"$out/nvidia-smi-ours.csv" 2>&1

# --- 3. another process on GPU 0 -----------------------------------------------
# Deferrals for gpu_busy can only come after this point.
deferred_before=$(deferred_gpu_busy)
[ -n "$deferred_before" ] || abort "cannot read fabricpulse_schedule_deferred_total from the coordinator at $coord_metrics"
t_hog=$EPOCHREALTIME
python3 - "$out/hog.ready" >"$out/hog.log" 2>&1 <<'PY' &
import os, sys, time
import torch
x = torch.empty(512 * 1024 * 1024, dtype=torch.uint8, device="cuda:0")
x.fill_(1)
torch.cuda.synchronize()
with open(sys.argv[1], "w") as f:
    f.write(str(os.getpid()))
time.sleep(600)
PY
hog_pid=$!
if wait_for 60 test -s "$out/hog.ready"; then
  pass "torch process $hog_pid holds 512 MiB on GPU 0"
else
  abort "the torch process did not allocate on GPU 0 within 60 s (see hog.log)"
fi
nvidia-smi --query-compute-apps=pid,used_memory --format=csv >"$out/nvidia-smi-busy.csv" 2>&1
if wait_for 15 gpu_busy_is 1; then
  pass "agent reports GPU 0 busy $(awk -v a="$t_hog" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.1f", b - a}') s after the torch process started"
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
kill "$hog_pid" 2>/dev/null
wait "$hog_pid" 2>/dev/null
hog_pid=""
t_free=$EPOCHREALTIME
if wait_for 15 gpu_busy_is 0; then
  pass "agent reports GPU 0 free again $(awk -v a="$t_free" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.1f", b - a}') s after the torch process ended"
else
  fail "fabricpulse_agent_gpu_busy{gpu=\"0\"} did not return to 0 within 15 s"
fi
if wait_for 30 scheduled_more_than "$started_now" succeeded; then
  pass "the held-back scheduled sweep ran and succeeded $(awk -v a="$t_free" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.1f", b - a}') s after the GPU was freed"
else
  fail "no scheduled sweep succeeded within 30 s of the GPU being freed (history: $(scheduled any) started, $(scheduled succeeded) succeeded)"
fi
"$BIN/fabricpulse" --coordinator "$COORD" results --last 20 >"$out/results.txt" 2>&1

total=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN {printf "%d", b - a}')
if [ "$total" -ge 180 ]; then
  fail "took ${total}s (limit 180 s)"
fi
echo "== busy-GPU check: $failures failure(s) in $(elapsed); logs in $out"
exit $((failures > 0))
