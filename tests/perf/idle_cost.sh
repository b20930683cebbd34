#!/usr/bin/env bash
# What FabricPulse costs while idle on a GPU node (issue 14), from a bundle
# (scripts/bundle.sh), one NCCL rank on GPU 0:
#   tests/perf/idle_cost.sh BUNDLE_DIR OUT_DIR [BARE_BIN]
# Side by side in one run:
#   bare     a bare CUDA context, then a bare blocking ncclCommInitRank
#            (bare_nccl_init, from BARE_BIN, default BUNDLE_DIR/bin): seconds
#            and the process's GPU memory (nvidia-smi), 3 runs each;
#   fresh    3 sweeps with --fresh-comm: FabricPulse's comm_init_s (the
#            first, in a new worker, includes the CUDA context);
#   memory   the worker's GPU memory before any sweep and 3 s after
#            all_reduce sweeps up to 8 B, 64 MiB, 1 GiB and 8 GiB, with the
#            figure the agent exports for it
#            (fabricpulse_agent_worker_gpu_memory_bytes, NVML per process),
#            which must be nvidia-smi's (within 1 MiB);
#   idle     CPU of coordinator, agent and worker over IDLE_S (default 60)
#            seconds, with their RSS and threads, and each process's
#            busiest threads (idle-threads.txt);
#   release  (agents with --release-idle-after) how long until the worker
#            holds no GPU memory, then a sweep: its comm_init_s (context
#            included) and that it succeeds.
# Targets (PASS/FAIL lines): idle CPU of the three <= 0.5 % of a core; idle
# GPU memory <= 1.2 x bare context + communicator; the first comm_init_s
# <= 1.2 x bare context + init; 0 MiB after the release. RELEASE (default 90s) is the agent's
# --release-idle-after; it must exceed IDLE_S. OUT_DIR gets a summary
# (summary.txt) and the logs. Needs nvidia-smi and the machine's NCCL
# (LD_LIBRARY_PATH or NCCL_LIB_DIR).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
[ $# -ge 2 ] || { echo "usage: $0 BUNDLE_DIR OUT_DIR [BARE_BIN]" >&2; exit 2; }
BIN="$1/bin"
out=$2
bare_bin="${3:-$BIN}"
idle_s=${IDLE_S:-60}
release=${RELEASE:-90s}
mkdir -p "$out"
summary="$out/summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
failures=0
check() {  # check NAME OK(0/1) TEXT
  if [ "$2" = 1 ]; then say "PASS $1: $3"; else say "FAIL $1: $3"; failures=$((failures + 1)); fi
}
if ! ldconfig -p 2>/dev/null | grep -q libnccl.so.2 && [ -z "${NCCL_LIB_DIR:-}" ]; then
  NCCL_LIB_DIR=$(python3 -c "import nvidia.nccl, os; print(os.path.join(nvidia.nccl.__path__[0], 'lib'))" 2>/dev/null)
fi
export LD_LIBRARY_PATH="${NCCL_LIB_DIR:-}:${LD_LIBRARY_PATH:-}"
# shellcheck source=tests/perf/cluster_lib.sh
. "$here/cluster_lib.sh"

gpu_mib() {  # MiB of GPU memory process $1 holds (0 when not listed)
  nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits |
    awk -F', *' -v p="$1" '$1 == p {m += $2} END {print m + 0}'
}
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "nan"}'; }
wait_line() {  # wait_line FILE TEXT: up to 60 s
  local i
  for i in $(seq 1 1200); do grep -q "$2" "$1" 2>/dev/null && return 0; read -r -t 0.05 <> <(:) || true; done
  return 1
}

# --- bare -----------------------------------------------------------------
for mode in context comm; do
  for run in 1 2 3; do
    log="$out/bare-$mode-$run.txt"
    "$bare_bin/bare_nccl_init" "$mode" 0 >"$log" 2>&1 &
    pid=$!
    wait_line "$log" holding || { cat "$log"; say "FAIL bare $mode: no 'holding'"; kill "$pid"; exit 1; }
    echo "mib $(gpu_mib "$pid")" >>"$log"
    kill "$pid"; wait "$pid" 2>/dev/null
  done
done
bare_ctx_mib=$(cat "$out"/bare-context-*.txt | awk '$1 == "mib" {print $2}' | median)
bare_comm_mib=$(cat "$out"/bare-comm-*.txt | awk '$1 == "mib" {print $2}' | median)
bare_ctx_s=$(cat "$out"/bare-context-*.txt | awk '$1 == "context_s" {print $2}' | median)
bare_init_s=$(cat "$out"/bare-comm-*.txt | awk '$1 == "init_s" {print $2}' | median)
say "bare: context ${bare_ctx_s} s ${bare_ctx_mib} MiB; context + ncclCommInitRank: init ${bare_init_s} s, ${bare_comm_mib} MiB (medians of 3)"

# --- cluster --------------------------------------------------------------
supports_release=0
"$BIN/fabricpulse-agent" --help 2>&1 | grep -q -- --release-idle-after && supports_release=1
cluster_up 1 1 nccl FABRICPULSE_RELEASE_IDLE_AFTER="$release" || { say "FAIL: cluster"; exit 1; }
coord_pid=${CLUSTER_PIDS[0]}
agent_pid=${CLUSTER_PIDS[1]}
worker_pid=$(ps -o pid= --ppid "$agent_pid" | tr -d ' ' | head -1)
F=("$BIN/fabricpulse" --coordinator "$COORD")
agent_metrics=$(sed -n 's/^metrics=//p' "$CLUSTER_DIR/agent-0.ports")
exported_mib() {  # the agent's figure for worker 0, in MiB ("absent" without one)
  python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' \
    "http://$agent_metrics/metrics" 2>/dev/null |
    awk '/^fabricpulse_agent_worker_gpu_memory_bytes\{/ && /worker="0"/ {v = $2; seen = 1}
         END {if (seen) printf "%.1f", v / 1048576; else print "absent"}'
}
exported_checks=0
exported_ok=0
# The agent reads the figure at each busy-GPU poll (every 2 s while idle),
# so it may trail nvidia-smi by one poll: it must match within 5 s.
compare_exported() {  # compare_exported WHEN NVIDIA_SMI_MIB
  local exported waited=0 matched=0
  exported_checks=$((exported_checks + 1))
  while :; do
    exported=$(exported_mib)
    if [ "$exported" != absent ] && awk -v a="$exported" -v b="$2" 'BEGIN {exit !(a - b <= 1 && b - a <= 1)}'; then
      matched=1
      break
    fi
    [ "$waited" -ge 10 ] && break
    sleep 0.5
    waited=$((waited + 1))
  done
  [ "$matched" = 1 ] && exported_ok=$((exported_ok + 1))
  say "  exported $1: ${exported} MiB (nvidia-smi $2 MiB; after $(awk -v w="$waited" 'BEGIN {print w / 2}') s)"
}
sweep_json() {  # sweep_json NAME ARGS...: the sweep's JSON in $out/NAME.json
  local name=$1
  shift
  "${F[@]}" sweep --ops all_reduce --iters 5 --warmup 2 --output json "$@" \
    >"$out/$name.json" 2>"$out/$name.err" || { say "FAIL sweep $name: $(tail -1 "$out/$name.err")"; failures=$((failures + 1)); }
}
# json_field FILE KEY[.KEY]: a field of the document's one sweep (docs/json.md).
json_field() { python3 -c 'import functools,json,sys; print(functools.reduce(lambda d, k: (d or {}).get(k), sys.argv[2].split("."), json.load(open(sys.argv[1]))["sweeps"][0]))' "$1" "$2"; }
say "worker GPU memory before any sweep: $(gpu_mib "$worker_pid") MiB"

# The first sweep of a new worker builds its CUDA context and its
# communicator: that is what a bare process's context + init compares with.
# The two after it build a new communicator in a process where CUDA and
# NCCL are already initialized (no bare counterpart: reported only).
for run in 1 2 3; do
  sweep_json "fresh-$run" --max-bytes 8 --fresh-comm
done
first_s=$(json_field "$out/fresh-1.json" comm.init_seconds)
bare_first_s=$(awk -v a="$bare_ctx_s" -v b="$bare_init_s" 'BEGIN {print a + b}')
say "first communicator of a new worker (context included): comm_init_s ${first_s} s = $(ratio "$first_s" "$bare_first_s") x bare context + init (${bare_first_s} s)"
say "later --fresh-comm inits in the same worker: $(json_field "$out/fresh-2.json" comm.init_seconds) $(json_field "$out/fresh-3.json" comm.init_seconds) s"
check fresh-init "$(awk -v a="$first_s" -v b="$bare_first_s" 'BEGIN {print (a <= 1.2 * b) ? 1 : 0}')" \
  "first comm_init_s ${first_s} s <= 1.2 x bare context + init ${bare_first_s} s"

idle_mib=""
for size in 8 64M 1G 8G; do
  sweep_json "size-$size" --max-bytes "$size"
  read -r -t 3 <> <(:) || true
  mib=$(gpu_mib "$worker_pid")
  say "worker GPU memory 3 s after a sweep up to $size: $mib MiB = $(ratio "$mib" "$bare_comm_mib") x bare context + communicator"
  compare_exported "after $size" "$mib"
  idle_mib="$idle_mib $mib"
done
worst=$(echo "$idle_mib" | tr ' ' '\n' | sed '/^$/d' | sort -g | tail -1)
check idle-gpu-memory "$(awk -v a="$worst" -v b="$bare_comm_mib" 'BEGIN {print (a <= 1.2 * b) ? 1 : 0}')" \
  "largest idle footprint ${worst} MiB <= 1.2 x ${bare_comm_mib} MiB"

# --- idle CPU, RSS, threads ---------------------------------------------------
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
thread_ticks() {  # "TID NAME TICKS" for each thread of process $1
  local t
  for t in /proc/"$1"/task/*; do
    # The name is between the first "(" and the last ")"; utime and stime
    # are the 12th and 13th fields after it.
    awk -v tid="${t##*/}" '{name = $0; sub(/^[^(]*\(/, "", name); sub(/\)[^)]*$/, "", name);
         rest = $0; sub(/^.*\) /, "", rest); split(rest, f, " "); gsub(/ /, "_", name);
         print tid, name, f[12] + f[13]}' "$t/stat" 2>/dev/null
  done
}
declare -A t0
for p in "$coord_pid" "$agent_pid" "$worker_pid"; do
  t0[$p]=$(ticks "$p")
  thread_ticks "$p" >"$out/threads-$p.before"
done
read -r -t "$idle_s" <> <(:) || true
: >"$out/idle-threads.txt"
for name in coordinator:$coord_pid agent:$agent_pid worker:$worker_pid; do
  p=${name#*:}
  thread_ticks "$p" >"$out/threads-$p.after"
  echo "${name%%:*} (pid $p): busiest threads over ${idle_s} s (ticks of 1/$(getconf CLK_TCK) s)" >>"$out/idle-threads.txt"
  awk 'NR == FNR {b[$1] = $3; next} {d = $3 - b[$1]; if (d > 0) print d, $1, $2}' \
    "$out/threads-$p.before" "$out/threads-$p.after" | sort -rn | head -6 |
    sed 's/^/  /' >>"$out/idle-threads.txt"
done
total=0
for name in coordinator:$coord_pid agent:$agent_pid worker:$worker_pid; do
  p=${name#*:}
  pct=$(awk -v a="${t0[$p]}" -v b="$(ticks "$p")" -v hz="$hz" -v s="$idle_s" 'BEGIN {printf "%.3f", 100 * (b - a) / hz / s}')
  total=$(awk -v a="$total" -v b="$pct" 'BEGIN {printf "%.3f", a + b}')
  say "idle ${idle_s} s: ${name%%:*} ${pct} % of a core, RSS $(awk '/VmRSS/ {print $2}' "/proc/$p/status") KiB, $(awk '/Threads/ {print $2}' "/proc/$p/status") threads, GPU $(gpu_mib "$p") MiB"
done
check idle-cpu "$(awk -v a="$total" 'BEGIN {print (a <= 0.5) ? 1 : 0}')" "coordinator + agent + worker ${total} % <= 0.5 % of a core"

# --- release ----------------------------------------------------------------
if [ "$supports_release" = 1 ]; then
  released=""
  for i in $(seq 1 2400); do  # up to 120 s more
    if [ "$(gpu_mib "$worker_pid")" = 0 ] && ! nvidia-smi --query-compute-apps=pid --format=csv,noheader | grep -qw "$worker_pid"; then
      released=yes
      break
    fi
    read -r -t 0.05 <> <(:) || true
  done
  check release "$([ -n "$released" ] && echo 1 || echo 0)" \
    "worker holds $(gpu_mib "$worker_pid") MiB after --release-idle-after $release (listed by nvidia-smi: $(nvidia-smi --query-compute-apps=pid --format=csv,noheader | grep -cw "$worker_pid"))"
  compare_exported "after the release" "$(gpu_mib "$worker_pid")"
  sweep_json after-release --max-bytes 64M
  say "sweep after the release: comm_reused $(json_field "$out/after-release.json" comm.reused), comm_init_s $(json_field "$out/after-release.json" comm.init_seconds) s (context included; bare context + init $(awk -v a="$bare_ctx_s" -v b="$bare_init_s" 'BEGIN {print a + b}') s), status $(json_field "$out/after-release.json" status)"
else
  say "release: this agent has no --release-idle-after (not measured)"
fi
check exported-memory "$([ "$exported_checks" -gt 0 ] && [ "$exported_ok" = "$exported_checks" ] && echo 1 || echo 0)" \
  "the agent's exported worker GPU memory matched nvidia-smi within 1 MiB at $exported_ok of $exported_checks readings"
cat "$out/idle-threads.txt"
KEEP_LOGS=1 cluster_down
cp "$CLUSTER_DIR"/*.log "$out/" 2>/dev/null
say "idle_cost: $failures failure(s)"
[ "$failures" -eq 0 ]
