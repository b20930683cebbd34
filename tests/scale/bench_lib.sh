# shellcheck shell=bash
# Shared by the scale benchmarks (sourced): processes they start and stop by
# PID only, bounded waits, /proc readings. The sourcing script sets `work`
# (its folder, removed on exit unless KEEP_LOGS is set) before it calls
# anything here.
PIDS=()  # every process the script started, stopped by PID only
# shellcheck disable=SC2034  # read by the sourcing scripts
clk_tck=$(getconf CLK_TCK)

pause() { read -r -t "$1" <> <(:) || true; }  # sleep without a child

# Whether PID is still a child of this script (not a reused PID).
ours() { [ "$(ps -o ppid= -p "$1" 2>/dev/null | tr -d ' ')" = "$$" ]; }

# Stops one process we started: SIGTERM, then SIGKILL after 10 s; reaps it
# and forgets it.
stop_pid() {
  local pid=$1 i rest=()
  if ours "$pid"; then
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 1 200); do
      ours "$pid" || break
      pause 0.05
    done
    if ours "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
  fi
  wait "$pid" 2>/dev/null || true
  for i in "${PIDS[@]}"; do [ "$i" = "$pid" ] || rest+=("$i"); done
  PIDS=("${rest[@]}")
}

stop_all() {
  local i
  # Fleets and samplers first (reverse start order), the coordinator last.
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do stop_pid "${PIDS[$i]}"; done
  PIDS=()
}

# shellcheck disable=SC2154  # work: set by the sourcing script
cleanup() {
  stop_all
  if [ -n "${KEEP_LOGS:-}" ]; then echo "logs kept in $work" >&2; else rm -rf "$work"; fi
}

# wait_until DESCRIPTION SECONDS COMMAND...: polls COMMAND with a capped
# backoff until it succeeds; fails after SECONDS.
wait_until() {
  local what=$1 limit=$2
  shift 2
  local deadline=$((SECONDS + limit)) delay=0.01
  until "$@"; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "timed out after ${limit}s waiting for $what (logs: $work)" >&2
      KEEP_LOGS=1
      return 1
    fi
    pause "$delay"
    delay=$(awk -v d="$delay" 'BEGIN {d *= 2; print (d > 0.2) ? 0.2 : d}')
  done
}

has_line() { [ -s "$1" ] && grep -q "^$2" "$1"; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
status_kb() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }
now() { echo "$EPOCHREALTIME"; }

# start_peak_sampler PID FILE: samples PID's threads and RSS every 100 ms,
# keeping "max_threads max_rss_kb" in FILE; its PID is in $sampler.
start_peak_sampler() {
  local pid=$1 file=$2
  echo "$(status_kb "$pid" Threads) $(status_kb "$pid" VmRSS)" >"$file"
  ( trap 'exit 0' TERM
    max_t=0 max_r=0
    while kill -0 "$pid" 2>/dev/null; do
      t=$(status_kb "$pid" Threads || echo 0)
      r=$(status_kb "$pid" VmRSS || echo 0)
      [ "${t:-0}" -gt "$max_t" ] && max_t=$t
      [ "${r:-0}" -gt "$max_r" ] && max_r=$r
      echo "$max_t $max_r" >"$file.tmp" && mv "$file.tmp" "$file"
      read -r -t 0.1 <> <(:) || true
    done ) &
  sampler=$!
  PIDS+=("$sampler")
}

# start_fleets N DIR COORD TIMEOUT ARGS...: `procs` fleet_sim processes
# hosting N agents (sim-0000.., contiguous indexes), each given ARGS, logs
# and ready files in DIR; waits up to TIMEOUT s for every one to register.
# Sets fleet_pids and reg_s (the slowest process's registration time).
# Uses the sourcing script's `bin` and `procs`.
# shellcheck disable=SC2154,SC2034
start_fleets() {
  local n=$1 dir=$2 coord=$3 limit=$4 p first=0 count
  shift 4
  fleet_pids=()
  for ((p = 0; p < procs; p++)); do
    count=$(((n + p) / procs))
    [ "$count" -gt 0 ] || continue
    "$bin/fleet_sim" --coordinator "$coord" --agents "$count" --first-index "$first" \
      --port-file "$dir/fleet-$p.ready" --register-timeout "$limit" "$@" \
      2>"$dir/fleet-$p.log" &
    fleet_pids+=($!)
    PIDS+=($!)
    first=$((first + count))
  done
  for ((p = 0; p < procs; p++)); do
    [ -e "$dir/fleet-$p.log" ] || continue
    wait_until "fleet $p of N=$n to register" $((limit + 30)) has_line "$dir/fleet-$p.ready" ready=
  done
  reg_s=$(cat "$dir"/fleet-*.ready | sed -n 's/^seconds=//p' | sort -g | tail -1)
}
