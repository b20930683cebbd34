# Shell helpers for scripts that run a coordinator and agents from built
# binaries (benchmarks and GPU checks). Source it; set BIN first.
#   cluster_up AGENTS RANKS BACKEND [ENV=VALUE ...]  -> sets COORD
#   cluster_down
# Optional: COORD_ARGS (a string, split on whitespace) is appended to the
# coordinator's command line, e.g. COORD_ARGS="--config /tmp/plans.yaml".

CLUSTER_PIDS=()
CLUSTER_DIR=""

_wait_port_file() {
  local i
  for i in $(seq 1 600); do
    [ -s "$1" ] && grep -q '^metrics=' "$1" && return 0
    read -r -t 0.05 <> <(:) || true
  done
  echo "timed out waiting for $1" >&2
  return 1
}

cluster_up() {
  local agents=$1 ranks=$2 backend=$3
  shift 3
  CLUSTER_DIR=$(mktemp -d /tmp/fabricpulse-cluster-XXXXXX)
  # shellcheck disable=SC2086  # COORD_ARGS is split into arguments on purpose
  "$BIN/fabricpulse-coordinator" --listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0 \
    --state-dir "$CLUSTER_DIR/state" --port-file "$CLUSTER_DIR/coord.ports" \
    ${COORD_ARGS:-} 2>"$CLUSTER_DIR/coord.log" &
  CLUSTER_PIDS+=($!)
  _wait_port_file "$CLUSTER_DIR/coord.ports" || return 1
  COORD=$(sed -n 's/^grpc=//p' "$CLUSTER_DIR/coord.ports")
  local i flags
  for i in $(seq 0 $((agents - 1))); do
    if [ "$backend" = nccl ]; then
      flags=(--gpus "$(seq -s, $((i * ranks)) $((i * ranks + ranks - 1)))")
    else
      flags=(--ranks "$ranks")
    fi
    env "$@" "$BIN/fabricpulse-agent" --coordinator "$COORD" --listen 127.0.0.1:0 \
      --metrics-listen 127.0.0.1:0 --node-name "node-$i" --backend "$backend" \
      "${flags[@]}" --port-file "$CLUSTER_DIR/agent-$i.ports" \
      2>"$CLUSTER_DIR/agent-$i.log" &
    CLUSTER_PIDS+=($!)
    _wait_port_file "$CLUSTER_DIR/agent-$i.ports" || return 1
  done
  # Ready when every agent shows all its workers ready.
  for i in $(seq 1 600); do
    local ready
    ready=$("$BIN/fabricpulse" --coordinator "$COORD" agents 2>/dev/null |
      awk -v r="$ranks" '$2 == "alive" && $6 == r' | wc -l)
    [ "$ready" -ge "$agents" ] && return 0
    read -r -t 0.05 <> <(:) || true
  done
  echo "cluster not ready; logs in $CLUSTER_DIR" >&2
  return 1
}

cluster_down() {
  local p
  for p in "${CLUSTER_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${CLUSTER_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  CLUSTER_PIDS=()
  [ -n "${KEEP_LOGS:-}" ] || rm -rf "$CLUSTER_DIR"
}
