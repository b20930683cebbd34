#!/usr/bin/env bash
# Fault check: SIGSTOP one worker mid all_reduce sweep.
#   tests/gpu/sigstop_check.sh [DIR] [OUT_DIR] [BACKEND]
# DIR: a bundle (scripts/bundle.sh) or a build folder, holding bin/ (default:
# the repository's build/). BACKEND: nccl (default; GPU machine) or gloo
# (CPU: the same check without the GPU-memory part).
# Env: AGENTS (1) x RANKS (2) workers (AGENTS=2 RANKS=1: one GPU per node);
# VICTIM rank (default the last); MIN_BYTES MAX_BYTES STEP_BYTES ITERS
# WARMUP OP_TIMEOUT (the faulty sweep; sizes in bytes, timeout in seconds);
# BOUND_S (how soon the CLI must fail after the stop), OTHERS_BOUND_S (how
# soon the other ranks must give up); MEM_TOL_MIB (64); TOTAL_LIMIT_S (175);
# STOP_AFTER_S: stop the victim this long after the sweep started instead of
# after its first row (for one long step, e.g. AGENTS=1 RANKS=1
# MIN_BYTES=MAX_BYTES=STEP_BYTES=1G ITERS=100000 OP_TIMEOUT=5 BOUND_S=10:
# the sweep's only rank, stopped inside a step of 100,000 iterations, must
# end it within the op timeout + 5 s, issue 29 item 1).
#
# 1. Cluster up; GPU memory per GPU (before any sweep); a warm sweep builds
#    the communicator; GPU memory again: the pre-sweep level.
# 2. A sweep of many short all_reduce steps (--output csv: rows stream) in
#    the background; once its first row is out (every rank is in the
#    sweep), SIGSTOP the victim worker: t0.
# 3. Timed from t0: the CLI fails naming the victim's rank and node; the
#    other ranks give up (their "sweep ... failed" log line); the agent
#    kills the stopped worker and respawns it; every GPU's memory is back at
#    or below its pre-sweep level; every worker is ready again.
# 4. `diagnose` names the victim; the next sweep passes (#wrong 0, exit 0).
# Raw outputs and the daemons' logs go to OUT_DIR. Exits non-zero if any
# check fails.
#
# The deadline: Gloo bounds every op by OP_TIMEOUT. The NCCL backend bounds
# a step's timed loop as a whole by OP_TIMEOUT x (WARMUP + ITERS) from the
# step's start, so the faulty sweep is many short steps, and BOUND_S
# defaults to that step deadline + 10 s (2 s stuck grace, up to 1 s to kill,
# diagnosis, slack).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${1:-$(cd "$here/../.." && pwd)}"
out="${2:-$(mktemp -d /tmp/sigstop-check-XXXXXX)}"
backend="${3:-nccl}"
mkdir -p "$out"
BIN="$root/bin"
[ -x "$BIN/fabricpulse" ] || BIN="$root/build/bin"
if [ ! -x "$BIN/fabricpulse" ]; then
  echo "no fabricpulse binary under $root/bin or $root/build/bin" >&2
  exit 2
fi
# The binaries load libnccl even on Gloo.
if ! ldconfig -p | grep -q libnccl.so.2 && [ -z "${NCCL_LIB_DIR:-}" ]; then
  NCCL_LIB_DIR=$(python3 -c "import nvidia.nccl, os; print(os.path.join(nvidia.nccl.__path__[0], 'lib'))" 2>/dev/null)
fi
export LD_LIBRARY_PATH="${NCCL_LIB_DIR:-}:${LD_LIBRARY_PATH:-}"
# shellcheck source=tests/perf/cluster_lib.sh
source "$here/../perf/cluster_lib.sh"

agents="${AGENTS:-1}"
ranks="${RANKS:-2}"
nranks=$((agents * ranks))
victim="${VICTIM:-$((nranks - 1))}"
if [ "$backend" = nccl ]; then
  min_bytes="${MIN_BYTES:-$((256 << 20))}"
  max_bytes="${MAX_BYTES:-$((1 << 30))}"
  step_bytes="${STEP_BYTES:-$((16 << 20))}"
  iters="${ITERS:-10}"
  warmup="${WARMUP:-1}"
  op_timeout="${OP_TIMEOUT:-1}"
  # One deadline for a step's whole timed loop.
  deadline_s=$(awk -v t="$op_timeout" -v n=$((warmup + iters)) 'BEGIN {print t * n}')
else
  min_bytes="${MIN_BYTES:-$((256 << 10))}"
  max_bytes="${MAX_BYTES:-$((4 << 20))}"
  step_bytes="${STEP_BYTES:-$((64 << 10))}"
  iters="${ITERS:-20}"
  warmup="${WARMUP:-1}"
  op_timeout="${OP_TIMEOUT:-2}"
  deadline_s="$op_timeout"  # per op
fi
gpu=0  # the GPU-memory checks
[ "$backend" = nccl ] && gpu=1
if [ "$gpu" = 1 ] && ! command -v nvidia-smi >/dev/null; then
  echo "nvidia-smi not found (needed for the GPU-memory checks)" >&2
  exit 2
fi
bound_s="${BOUND_S:-$(awk -v d="$deadline_s" 'BEGIN {print d + 10}')}"
# The ranks that were not stopped must give up within the deadline (+ the
# communicator abort).
others_bound_s="${OTHERS_BOUND_S:-$(awk -v d="$deadline_s" 'BEGIN {print d + 2}')}"
mem_tol="${MEM_TOL_MIB:-64}"
if [ "$victim" -lt 0 ] || [ "$victim" -ge "$nranks" ]; then
  echo "VICTIM=$victim: not a rank of $agents x $ranks" >&2
  exit 2
fi

failures=0
summary="$out/summary.txt"
: > "$summary"
say() { echo "$*" | tee -a "$summary"; }
pass() { say "PASS $*"; }
fail() { say "FAIL $*"; failures=$((failures + 1)); }
now() { echo "$EPOCHREALTIME"; }
since() { awk -v a="$1" -v b="${2:-$EPOCHREALTIME}" 'BEGIN {printf "%.2f", b - a}'; }
within() { awk -v a="$1" -v b="$EPOCHREALTIME" -v l="$2" 'BEGIN {exit !(b - a < l)}'; }
pause() { read -r -t "$1" <> <(:) || true; }
fp() { timeout "${FP_TIMEOUT:-60}" "$BIN/fabricpulse" --coordinator "$COORD" "$@"; }

# GPU memory in MiB, "index used" per line.
gpu_mem() {
  nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits |
    tr -d ' ' | tr ',' ' '
}
mem_of() { awk -v g="$2" '$1 == g {print $2}' <<< "$1"; }

cli_pid=""
victim_pid=""
watchdog=""
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
  [ -n "$cli_pid" ] && kill "$cli_pid" 2>/dev/null
  [ -n "$victim_pid" ] && kill -CONT "$victim_pid" 2>/dev/null
  if [ -n "$CLUSTER_DIR" ] && [ -d "$CLUSTER_DIR" ]; then
    KEEP_LOGS=1 cluster_down
    cp "$CLUSTER_DIR"/*.log "$out/" 2>/dev/null
    rm -rf "$CLUSTER_DIR"
  fi
  [ -n "$watchdog" ] && kill "$watchdog" 2>/dev/null
}
trap cleanup EXIT
trap 'say "FAIL interrupted, or over TOTAL_LIMIT_S (${TOTAL_LIMIT_S:-175} s)"; exit 124' INT TERM
# The whole check must end within 3 minutes, whatever hangs.
{ sleep "${TOTAL_LIMIT_S:-175}"; kill -TERM $$; } >/dev/null 2>&1 &
watchdog=$!

say "== SIGSTOP check: $agents agent(s) x $ranks $backend rank(s), victim rank $victim"
say "   faulty sweep: all_reduce $min_bytes..$max_bytes B step $step_bytes, out-of-place, --iters $iters --warmup $warmup --timeout ${op_timeout}s (step deadline ${deadline_s}s); CLI must fail within ${bound_s}s of the stop"
[ "$gpu" = 1 ] && mem_idle=$(gpu_mem)
t_up=$(now)
if ! cluster_up "$agents" "$ranks" "$backend" FABRICPULSE_LOG=debug; then
  fail "cluster up (logs in $out)"
  exit 1
fi
say "cluster up in $(since "$t_up") s"
[ "$gpu" = 1 ] && mem_start=$(gpu_mem)

# Which node and local worker hold the victim rank: ranks go in the order
# the coordinator lists the agents, then by local index.
fp agents > "$out/agents-before.txt"
read -r victim_node victim_local victim_restarts0 < <(awk -v v="$victim" '
  NR > 1 && $1 !~ /^#/ { if (v >= seen && v < seen + $5) print $1, v - seen, $7; seen += $5 }' \
  "$out/agents-before.txt")
if [ -z "${victim_node:-}" ]; then
  fail "rank $victim not found in 'fabricpulse agents'"
  exit 1
fi
victim_agent=${victim_node#node-}
victim_gpu=$((victim_agent * ranks + victim_local))
agent_pid=${CLUSTER_PIDS[$((1 + victim_agent))]}
worker_pid() {  # agent-pid local-index
  pgrep -P "$1" -f "local-index $2( |\$)" | head -1
}

# Warm sweep: builds the communicator that the faulty sweep reuses.
warm_args=(--ops all_reduce --min-bytes 8 --max-bytes 64K --iters 5 --warmup 1)
fp sweep --output json "${warm_args[@]}" > "$out/warm.json" 2> "$out/warm.err"
rc=$?
line=$(python3 "$here/check_sweep_json.py" "warm sweep" "$nranks" "${warm_args[@]}" < "$out/warm.json")
if [ "$rc" -eq 0 ] && [[ "$line" == PASS* ]]; then
  pass "${line#PASS }"
else
  fail "warm sweep (exit $rc): ${line#FAIL } $(cat "$out/warm.err")"
  exit 1
fi
if [ "$gpu" = 1 ]; then
  mem_warm=$(gpu_mem)
  {
    echo "# GPU memory (MiB): GPU before-cluster cluster-up(no sweep) after-warm-sweep(pre-sweep level)"
    for g in $(seq 0 $((nranks - 1))); do
      echo "$g $(mem_of "$mem_idle" "$g") $(mem_of "$mem_start" "$g") $(mem_of "$mem_warm" "$g")"
    done
  } > "$out/gpu_mem_before.txt"
fi

victim_pid=$(worker_pid "$agent_pid" "$victim_local")
if [ -z "$victim_pid" ]; then
  fail "no worker process for $victim_node local index $victim_local (agent pid $agent_pid)"
  exit 1
fi
say "victim: rank $victim = $victim_node worker $victim_local, pid $victim_pid$([ "$gpu" = 1 ] && echo ", GPU $victim_gpu")"

# Log offsets: only lines written after the stop count.
declare -A log_off
for i in $(seq 0 $((agents - 1))); do
  log_off[$i]=$(stat -c %s "$CLUSTER_DIR/agent-$i.log")
done

# The faulty sweep. CSV, not JSON: rows stream as steps finish (JSON comes
# whole at the end), and the first row says every rank is in the sweep.
: > "$out/faulty.csv"
FP_TIMEOUT=150 fp sweep --output csv --ops all_reduce --min-bytes "$min_bytes" \
  --max-bytes "$max_bytes" --step "$step_bytes" --iters "$iters" --warmup "$warmup" \
  --out-of-place --no-check --timeout "${op_timeout}s" \
  > "$out/faulty.csv" 2> "$out/faulty.err" &
cli_pid=$!
t_start=$(now)
started=""
while within "$t_start" 60 && kill -0 "$cli_pid" 2>/dev/null; do
  if [ -n "${STOP_AFTER_S:-}" ]; then
    if ! within "$t_start" "$STOP_AFTER_S"; then
      started=1
      break
    fi
  elif [ "$(wc -l < "$out/faulty.csv")" -ge 2 ]; then
    started=1
    break
  fi
  pause 0.01
done
if [ -z "$started" ]; then
  fail "faulty sweep gave no result row (CLI: $(tail -2 "$out/faulty.err"))"
  exit 1
fi
kill -STOP "$victim_pid"
t0=$(now)
t0_sod=$(awk -v t="$t0" 'BEGIN {printf "%.3f", t - 86400 * int(t / 86400)}')
say "sweep running after $(since "$t_start" "$t0") s; SIGSTOP rank $victim (pid $victim_pid) at t0"
sleep 0.1
state=$(awk '{print $3}' "/proc/$victim_pid/stat" 2>/dev/null)
[ "$state" = T ] || say "note: victim state after SIGSTOP is '$state' (expected T)"

# Watch, timing each event from t0.
t_cli="" t_gone="" t_ready="" t_mem="" cli_rc=""
declare -A t_mem_gpu  # per GPU: back at or below its pre-sweep level
mem_back_gpus=0
mem_peak=""
while within "$t0" 90; do
  if [ -z "$t_cli" ] && ! kill -0 "$cli_pid" 2>/dev/null; then
    wait "$cli_pid"
    cli_rc=$?
    t_cli=$(since "$t0")
    cli_pid=""
  fi
  if [ -z "$t_gone" ] && { ! kill -0 "$victim_pid" 2>/dev/null ||
      [ "$(awk '{print $3}' "/proc/$victim_pid/stat" 2>/dev/null)" = Z ]; }; then
    t_gone=$(since "$t0")
  fi
  if [ -n "$t_gone" ] && [ -z "$t_ready" ]; then
    # The victim's slot restarted and every worker is ready again.
    if fp agents 2>/dev/null | awk -v r="$ranks" -v vn="$victim_node" -v r0="$victim_restarts0" '
        NR > 1 && $1 !~ /^#/ && $0 !~ /^ / { n++; if ($2 == "alive" && $6 == r) ok++; if ($1 == vn && $7 > r0) restarted = 1 }
        END { exit !(n > 0 && ok == n && restarted) }'; then
      t_ready=$(since "$t0")
    fi
  fi
  if [ "$gpu" = 1 ] && [ -z "$t_mem" ]; then
    m=$(gpu_mem)
    mem_peak=$(awk 'NR == FNR {p[$1] = $2; next} {print $1, ($2 > p[$1] ? $2 : p[$1])}' \
      <(echo "${mem_peak:-$m}") <(echo "$m"))
    for g in $(seq 0 $((nranks - 1))); do
      if [ -z "${t_mem_gpu[$g]:-}" ] &&
          [ "$(mem_of "$m" "$g")" -le $(($(mem_of "$mem_warm" "$g") + mem_tol)) ]; then
        t_mem_gpu[$g]=$(since "$t0")
        mem_back_gpus=$((mem_back_gpus + 1))
      fi
    done
    if [ "$mem_back_gpus" -eq "$nranks" ]; then
      t_mem=$(since "$t0")
      mem_after=$m
    fi
  fi
  [ -n "$t_cli" ] && [ -n "$t_ready" ] && { [ "$gpu" != 1 ] || [ -n "$t_mem" ]; } && break
  pause 0.1
done

# Log lines after t0, timed by their own stamps (UTC HH:MM:SS.mmm).
log_after() { tail -c +$((log_off[$1] + 1)) "$CLUSTER_DIR/agent-$1.log"; }
log_time() {  # agent regex -> seconds from t0 of the first matching line
  log_after "$1" | grep -E -m1 "$2" | awk -v t0="$t0_sod" '{
    split($2, h, ":"); s = h[1] * 3600 + h[2] * 60 + h[3] - t0
    if (s < -43200) s += 86400
    printf "%.2f", s }'
}
t_others=""
for r in $(seq 0 $((nranks - 1))); do
  [ "$r" -eq "$victim" ] && continue
  a=$((r / ranks)) l=$((r % ranks))
  t=$(log_time "$a" "worker $l: sweep [^ ]+ failed")
  say "rank $r (node-$a worker $l) gave up at: ${t:-never} s $(log_after "$a" | grep -E -m1 "worker $l: sweep [^ ]+ failed" | cut -c1-220)"
  if [ -z "$t" ]; then
    t_others="never"
  elif [ "$t_others" != never ]; then
    t_others=$(awk -v a="${t_others:-0}" -v b="$t" 'BEGIN {print (b > a ? b : a)}')
  fi
done
t_kill=$(log_time "$victim_agent" "worker $victim_local \\(pid $victim_pid\\): killing")
t_exit=$(log_time "$victim_agent" "worker $victim_local (killed by signal|exited with code).*restarting")
t_respawned=$(log_time "$victim_agent" "worker $victim_local ready, pid")

if [ -n "$victim_pid" ] && kill -0 "$victim_pid" 2>/dev/null &&
    [ "$(awk '{print $3}' "/proc/$victim_pid/stat" 2>/dev/null)" != Z ]; then
  fail "the agent did not kill the stopped worker (pid $victim_pid) within 90 s; sending SIGCONT"
  kill -CONT "$victim_pid"
fi

# Checks.
err_line=$(grep -v '^$' "$out/faulty.err" | tail -1)
sweep_id=$(sed -n 's/.*sweep \([^ ]*\) failed.*/\1/p' "$out/faulty.err" | head -1)
if [ -z "$t_cli" ]; then
  fail "CLI did not exit within 90 s of the stop"
elif [ "$cli_rc" -eq 0 ]; then
  fail "CLI exited 0: the sweep finished before the stop took effect (make it longer: MAX_BYTES/ITERS)"
else
  pass "CLI failed (exit $cli_rc) ${t_cli} s after the stop"
fi
if [ -n "$t_cli" ] && awk -v t="$t_cli" -v b="$bound_s" 'BEGIN {exit !(t <= b)}'; then
  pass "failure within the bound: ${t_cli} s <= ${bound_s} s"
else
  fail "failure within the bound: ${t_cli:-never} s > ${bound_s} s"
fi
if grep -qE "rank ${victim}([^0-9]|\$)" <<< "$err_line" && grep -qE "${victim_node}([^0-9]|\$)" <<< "$err_line"; then
  pass "CLI names the culprit (rank $victim, $victim_node): $err_line"
else
  fail "CLI does not name rank $victim on $victim_node: $err_line"
fi
if [ "$nranks" -eq 1 ]; then
  say "n/a the other ranks: the victim is the sweep's only rank"
elif [ -z "$t_others" ] || [ "$t_others" = never ]; then
  fail "some other rank never gave up (no 'sweep ... failed' line in the agent logs)"
elif awk -v t="$t_others" -v b="$others_bound_s" 'BEGIN {exit !(t <= b)}'; then
  pass "the other ranks gave up within the deadline: ${t_others} s after the stop <= ${others_bound_s} s"
else
  fail "the other ranks gave up late: ${t_others} s after the stop > ${others_bound_s} s"
fi
if [ -n "$t_gone" ]; then
  pass "stopped worker killed by the agent ${t_gone} s after the stop (kill logged at ${t_kill:-?} s, exit at ${t_exit:-?} s)"
else
  fail "stopped worker not killed"
fi
if [ -n "$t_ready" ]; then
  pass "worker respawned and all workers ready ${t_ready} s after the stop (respawned worker ready at ${t_respawned:-?} s)"
else
  fail "workers not all ready again within 90 s"
fi
if [ "$gpu" = 1 ]; then
  if [ -n "$t_mem" ]; then
    pass "GPU memory back at or below the pre-sweep level (+${mem_tol} MiB) on every GPU ${t_mem} s after the stop"
  else
    fail "GPU memory not back at the pre-sweep level within 90 s: $(gpu_mem | tr '\n' ' ')"
    mem_after=$(gpu_mem)
  fi
fi

fp diagnose ${sweep_id:+--sweep "$sweep_id"} > "$out/diagnose.txt" 2>&1
if grep -qE "rank ${victim}([^0-9]|\$)" "$out/diagnose.txt"; then
  pass "diagnose names rank $victim: $(grep -E -m1 "rank ${victim}([^0-9]|\$)" "$out/diagnose.txt" | sed 's/^ *//' | cut -c1-200)"
else
  fail "diagnose does not name rank $victim (see $out/diagnose.txt)"
fi

# The next sweep passes.
next_args=(--ops "all_reduce,alltoall" --min-bytes 8 --max-bytes 1M --iters 5 --warmup 1)
fp sweep --output json "${next_args[@]}" > "$out/next.json" 2> "$out/next.err"
rc=$?
line=$(python3 "$here/check_sweep_json.py" "next sweep" "$nranks" "${next_args[@]}" < "$out/next.json")
if [ "$rc" -eq 0 ] && [[ "$line" == PASS* ]]; then
  pass "${line#PASS }"
else
  fail "next sweep (exit $rc): ${line#FAIL } $(cat "$out/next.err")"
fi
fp agents > "$out/agents-after.txt" 2>&1

say "== timings (s from the SIGSTOP)"
say "CLI exit (failed):                  ${t_cli:-never}   (bound ${bound_s}; step deadline ${deadline_s})"
say "other ranks gave up (last):         ${t_others:-never}"
say "agent kills stopped worker:         ${t_kill:-?} (logged), gone ${t_gone:-never}"
say "respawned worker ready (logged):    ${t_respawned:-?}; all ready (agents): ${t_ready:-never}"
if [ "$gpu" = 1 ]; then
  say "GPU memory back at pre-sweep level: ${t_mem:-never} (every GPU; per GPU below)"
  mem_next=$(gpu_mem)
  say "== GPU memory (MiB): before cluster / cluster up / pre-sweep (warm) / peak in fault / when back / after next sweep"
  for g in $(seq 0 $((nranks - 1))); do
    tag=""
    [ "$g" -eq "$victim_gpu" ] && tag="  <- victim"
    say "GPU $g: $(mem_of "$mem_idle" "$g") / $(mem_of "$mem_start" "$g") / $(mem_of "$mem_warm" "$g") / $(mem_of "${mem_peak:-}" "$g") / $(mem_of "${mem_after:-}" "$g") / $(mem_of "$mem_next" "$g"); back at ${t_mem_gpu[$g]:-never} s$tag"
  done
fi
say "== SIGSTOP check: $failures failure(s); raw outputs in $out"
exit $((failures > 0))
