# Shared by the false-alarm benchmarks on network-namespace fabrics
# (campaign_false_alarms.sh, isolate_false_alarms.sh). Source it first.
#   perf_args "$@"             BIN_DIR OUT_DIR -> bin, out (exit 2 otherwise)
#   whole_numbers VAR...       each variable holds a whole number (else exit 2)
#   start_hogs N               N busy loops, their PIDs added to `pids`
#                              (netns_cluster.sh stops them by PID on exit)

perf_args() {
  [ $# -eq 2 ] || { echo "usage: $0 BIN_DIR OUT_DIR" >&2; exit 2; }
  bin=$1
  out=$2
}

whole_numbers() {
  local v
  for v in "$@"; do
    [[ "${!v}" =~ ^[0-9]+$ ]] || { echo "${v^^}: '${!v}' is not a whole number" >&2; exit 2; }
  done
}

start_hogs() {
  local h
  for ((h = 0; h < $1; h++)); do
    bash -c 'while :; do :; done' &
    pids+=($!)
  done
}
