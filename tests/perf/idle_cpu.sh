#!/usr/bin/env bash
# What FabricPulse costs while idle, per process and per thread, on CPUs
# (Gloo ranks; issue 14, item 8):
#   tests/perf/idle_cpu.sh OUT_DIR [LABEL=]ROOT [[LABEL=]ROOT ...]
# e.g. main's binaries against a branch's, side by side in one run:
#   tests/perf/idle_cpu.sh /tmp/idle main=/tmp/main-build build
# ROOT is a build folder or a bundle (ROOT/bin) or a source tree
# (ROOT/build/bin). Each ROOT gets its own cluster (coordinator + 1 agent +
# RANKS workers, default 1, mutual TLS, as tests/perf/cluster_lib.sh starts
# them) and one sweep (all_reduce up to 64 KiB), so that its communicators
# are live; then all the clusters idle through the same IDLE_S (default 60)
# seconds, after SETTLE_S (default 5), so that load from elsewhere on the
# machine falls on them alike. BACKEND=nccl (not run on CPU machines) puts
# each cluster's ranks on GPUs 0..RANKS-1 and sweeps with --allow-busy, since
# the clusters share those GPUs; the GPU memory and release figures are
# tests/perf/idle_cost.sh's.
# Per process (coordinator, agent, each worker), over that window:
#   cpu %      CPU time from /proc/PID/task/*/schedstat (ns), as % of a core;
#   ticks %    the same from /proc/PID/stat utime + stime (10 ms ticks, for
#              comparison with tests/perf/idle_cost.sh);
#   wakeups/s  timeslices run (schedstat's third field) per second;
#   RSS and threads at the end;
# and per thread (with its /proc/PID/task/TID/comm name) the same in
# threads.txt. A thread started in the window counts from 0; one that ended
# in it is listed as gone (its time is in ticks % only).
# The GPU parts of idle_cost.sh (nvidia-smi, GPU memory, the idle release)
# are not measured here. Target line (for information: the issue's target
# is on a GPU node): coordinator + agent + workers <= 0.5 % of a core.
# OUT_DIR gets summary.txt, threads.txt and the clusters' logs. Exit 0 once
# every cluster ran its sweep and was measured (no figure is judged), 1
# when one failed, 2 for bad arguments.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
usage="usage: $0 OUT_DIR [LABEL=]ROOT [[LABEL=]ROOT ...]"
[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
out=$1
shift
idle_s=${IDLE_S:-60}
settle_s=${SETTLE_S:-5}
ranks=${RANKS:-1}
backend=${BACKEND:-gloo}
sweep_flags=()
case "$backend" in
  gloo) ;;
  nccl)
    sweep_flags=(--allow-busy)
    if ! ldconfig -p 2>/dev/null | grep -q libnccl.so.2 && [ -z "${NCCL_LIB_DIR:-}" ]; then
      NCCL_LIB_DIR=$(python3 -c "import nvidia.nccl, os; print(os.path.join(nvidia.nccl.__path__[0], 'lib'))" 2>/dev/null)
    fi
    export LD_LIBRARY_PATH="${NCCL_LIB_DIR:-}:${LD_LIBRARY_PATH:-}"
    ;;
  *) echo "BACKEND: '$backend' is not gloo or nccl" >&2; exit 2 ;;
esac
mkdir -p "$out"
summary="$out/summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
# shellcheck source=tests/perf/cluster_lib.sh
. "$here/cluster_lib.sh"

labels=() bins=()
for arg in "$@"; do
  label=${arg%%=*}
  root=${arg#*=}
  [ "$label" = "$arg" ] && label=$(basename "$root")
  bin=""
  for b in "$root/bin" "$root/build/bin"; do
    [ -z "$bin" ] && [ -x "$b/fabricpulse-agent" ] && bin=$(cd "$b" && pwd)
  done
  [ -n "$bin" ] || { echo "no fabricpulse-agent under $root/bin or $root/build/bin" >&2; exit 2; }
  labels+=("$label")
  bins+=("$bin")
done

# One cluster per ROOT. cluster_lib keeps one cluster's state in globals:
# each is saved here and put back to take it down.
declare -a c_pids c_dirs
roles=()  # "LABEL ROLE PID" for every process measured
cleanup() {
  local i
  for i in "${!c_dirs[@]}"; do
    read -ra CLUSTER_PIDS <<<"${c_pids[$i]}"
    CLUSTER_DIR=${c_dirs[$i]}
    KEEP_LOGS=1 cluster_down
    mkdir -p "$out/logs-$i"
    cp "$CLUSTER_DIR"/*.log "$out/logs-$i/" 2>/dev/null
    rm -rf "$CLUSTER_DIR"
  done
  c_dirs=()
}
trap cleanup EXIT
for i in "${!bins[@]}"; do
  BIN=${bins[$i]}
  CLUSTER_PIDS=()
  cluster_up 1 "$ranks" "$backend"
  up=$?
  # Saved before the check: a cluster half up is taken down too.
  c_pids[i]="${CLUSTER_PIDS[*]}"
  c_dirs[i]=$CLUSTER_DIR
  [ "$up" = 0 ] || { say "FAIL: cluster for ${labels[$i]} (logs in $out/logs-$i)"; exit 1; }
  "$BIN/fabricpulse" --coordinator "$COORD" sweep --ops all_reduce --max-bytes 64K \
    --iters 5 --warmup 2 "${sweep_flags[@]}" --output json >"$out/sweep-$i.json" 2>"$out/sweep-$i.err" ||
    { say "FAIL: sweep for ${labels[$i]}: $(tail -1 "$out/sweep-$i.err")"; exit 1; }
  roles+=("${labels[$i]} coordinator ${CLUSTER_PIDS[0]}" "${labels[$i]} agent ${CLUSTER_PIDS[1]}")
  w=0
  for p in $(ps -o pid= --ppid "${CLUSTER_PIDS[1]}" | sort -n); do
    roles+=("${labels[$i]} worker-$w $p")
    w=$((w + 1))
  done
  [ "$w" = "$ranks" ] || { say "FAIL: ${labels[$i]}: $w worker(s), expected $ranks"; exit 1; }
  unset FABRICPULSE_TLS_CERT FABRICPULSE_TLS_KEY FABRICPULSE_TLS_CA
done

snapshot() {  # one line per thread: LABEL ROLE PID TID COMM RUN_NS SLICES TICKS
  local r label role pid t comm
  for r in "${roles[@]}"; do
    read -r label role pid <<<"$r"
    for t in /proc/"$pid"/task/*; do
      comm=$(tr ' ' '_' <"$t/comm" 2>/dev/null) || continue
      awk -v l="$label" -v r="$role" -v p="$pid" -v t="${t##*/}" -v c="$comm" \
        'NR == 1 {ns = $1; sl = $3} END {if (NR) print l, r, p, t, c, ns, sl}' "$t/schedstat" 2>/dev/null
    done
  done
}
process_ticks() { awk '{sub(/^.*\) /, ""); print $12 + $13}' "/proc/$1/stat"; }

read -r -t "$settle_s" <> <(:) || true
declare -A ticks0
for r in "${roles[@]}"; do
  read -r _ _ pid <<<"$r"
  ticks0[$pid]=$(process_ticks "$pid")
done
snapshot >"$out/threads.before"
read -r -t "$idle_s" <> <(:) || true
snapshot >"$out/threads.after"
hz=$(getconf CLK_TCK)

say "idle_cpu: ${#bins[@]} cluster(s) of coordinator + 1 agent + $ranks $backend worker(s), after one sweep, idle ${idle_s} s (after ${settle_s} s), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in "${!labels[@]}"; do say "  ${labels[$i]}: ${bins[$i]}"; done
# Per thread: the delta of run time and timeslices.
awk -v s="$idle_s" 'NR == FNR {ns[$4] = $6; sl[$4] = $7; next}
     {seen[$4] = 1; d = $6 - ns[$4]; w = $7 - sl[$4]
      printf "%s %s %s %s %s %.3f %.2f %s\n", $1, $2, $3, $4, $5, d / 1e6, w / s, ($4 in ns) ? "" : "(new)"}
     END {}' "$out/threads.before" "$out/threads.after" >"$out/threads.delta"
awk 'NR == FNR {now[$4] = 1; next} !($4 in now) {print $1, $2, $3, $4, $5, "gone"}' \
  "$out/threads.after" "$out/threads.before" >"$out/threads.gone"
printf '%-12s %-12s %8s %8s %10s %9s %8s\n' label process "cpu %" "ticks %" wakeups/s "RSS KiB" threads | tee -a "$summary"
declare -A total
for r in "${roles[@]}"; do
  read -r label role pid <<<"$r"
  read -r ms wk < <(awk -v p="$pid" '$3 == p {ms += $6; wk += $7} END {printf "%.3f %.2f\n", ms, wk}' "$out/threads.delta")
  pct=$(awk -v ms="$ms" -v s="$idle_s" 'BEGIN {printf "%.3f", ms / 10 / s}')
  tpct=$(awk -v a="${ticks0[$pid]}" -v b="$(process_ticks "$pid")" -v hz="$hz" -v s="$idle_s" \
    'BEGIN {printf "%.3f", 100 * (b - a) / hz / s}')
  total[$label]=$(awk -v a="${total[$label]:-0}" -v b="$pct" 'BEGIN {printf "%.3f", a + b}')
  printf '%-12s %-12s %8s %8s %10s %9s %8s\n' "$label" "$role" "$pct" "$tpct" "$wk" \
    "$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")" "$(awk '/Threads/ {print $2}' "/proc/$pid/status")" |
    tee -a "$summary"
done
for label in "${labels[@]}"; do
  say "$label: coordinator + agent + workers ${total[$label]} % of a core (target on a GPU node: <= 0.5 %)"
done

{
  echo "Per thread over ${idle_s} s: CPU ms, wakeups/s (timeslices), busiest first"
  for r in "${roles[@]}"; do
    read -r label role pid <<<"$r"
    echo "$label $role (pid $pid):"
    awk -v p="$pid" '$3 == p && ($6 > 0 || $7 > 0) {printf "  %9.3f ms %7.2f/s  %-20s tid %s %s\n", $6, $7, $5, $4, $8}' \
      "$out/threads.delta" | sort -k1,1 -rn
    awk -v p="$pid" '$3 == p {printf "  %-20s tid %s ended in the window\n", $5, $4}' "$out/threads.gone"
    awk -v p="$pid" '$3 == p && $6 == 0 && $7 == 0 {n++} END {if (n) printf "  (%d idle thread(s) that never ran)\n", n}' \
      "$out/threads.delta"
  done
} >"$out/threads.txt"
cat "$out/threads.txt"
# Every process was read at both ends of the window.
for r in "${roles[@]}"; do
  read -r label role pid <<<"$r"
  grep -q "^$label $role $pid " "$out/threads.delta" ||
    { say "FAIL: $label $role (pid $pid) not measured (did it exit?)"; exit 1; }
done
