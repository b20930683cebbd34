# Shell helpers for scripts that run a coordinator and agents from built
# binaries (benchmarks and GPU checks). Source it; set BIN first.
#   cluster_up AGENTS RANKS BACKEND [ENV=VALUE ...]  -> sets COORD
#   cluster_down            (returns once the agents' workers have exited too)
#   wait_gpus_idle [SECONDS] (no compute process on any GPU, as nvidia-smi
#                            lists them; default 30 s; cluster_up calls it
#                            for nccl, since a sweep refuses busy GPUs)
# Optional: COORD_ARGS (a string, split on whitespace) is appended to the
# coordinator's command line, e.g. COORD_ARGS="--config /tmp/plans.yaml".
# Each cluster's agents keep their run folder (worker sockets, the lock of
# their node name) in the cluster's folder, not in the shared default
# (/tmp/fabricpulse-agent-UID): two clusters at once, from two scripts or
# two checkouts, would otherwise refuse each other's node-0.
# Every link is mutual TLS: cluster_up makes a throwaway CA in the cluster's
# folder (`fabricpulse certs`) and exports FABRICPULSE_TLS_CERT/_KEY/_CA as
# the operator identity, so the script's own `fabricpulse --coordinator
# "$COORD" ...` calls work; cluster_down unsets them.

# bundle_env ROOT: BIN (ROOT/bin of a bundle, else ROOT/build/bin of a
# build tree) and LD_LIBRARY_PATH with the NCCL wheel's lib dir in front
# (NCCL_LIB_DIR, found from python3's nvidia.nccl when unset).
bundle_env() {
  BIN="$1/bin"
  [ -x "$BIN/fabricpulse" ] || BIN="$1/build/bin"
  if [ -z "${NCCL_LIB_DIR:-}" ]; then
    NCCL_LIB_DIR=$(python3 -c "import nvidia.nccl, os; print(os.path.join(nvidia.nccl.__path__[0], 'lib'))" 2>/dev/null)
  fi
  export LD_LIBRARY_PATH="${NCCL_LIB_DIR:-}:${LD_LIBRARY_PATH:-}"
}

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

# shellcheck disable=SC2120  # callers may pass SECONDS
wait_gpus_idle() {
  # A script's previous cluster (or a torch reference) may still be tearing
  # its CUDA contexts down: the agent would count it as a foreign process
  # and refuse on-demand sweeps (exit 4).
  local i apps
  for i in $(seq 1 $((${1:-30} * 20))); do
    apps=$(nvidia-smi --query-compute-apps=pid --format=csv,noheader 2>/dev/null | tr -d ' ' | paste -sd, -)
    [ -z "$apps" ] && return 0
    read -r -t 0.05 <> <(:) || true
  done
  echo "wait_gpus_idle: compute processes still on the GPUs after ${1:-30} s: $apps" >&2
  return 1
}

cluster_up() {
  local agents=$1 ranks=$2 backend=$3
  shift 3
  if [ "$backend" = nccl ]; then wait_gpus_idle || true; fi
  CLUSTER_DIR=$(mktemp -d /tmp/fabricpulse-cluster-XXXXXX)
  local tls="$CLUSTER_DIR/tls" ids="coordinator/local,operator/local" i
  for i in $(seq 0 $((agents - 1))); do ids="$ids,agent/node-$i"; done
  "$BIN/fabricpulse" certs "$tls" --issue "$ids" >/dev/null || return 1
  export FABRICPULSE_TLS_CERT="$tls/operator-local.crt"
  export FABRICPULSE_TLS_KEY="$tls/operator-local.key"
  export FABRICPULSE_TLS_CA="$tls/ca.crt"
  # shellcheck disable=SC2086  # COORD_ARGS is split into arguments on purpose
  "$BIN/fabricpulse-coordinator" --listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0 \
    --state-dir "$CLUSTER_DIR/state" --port-file "$CLUSTER_DIR/coord.ports" \
    --tls-cert "$tls/coordinator-local.crt" --tls-key "$tls/coordinator-local.key" \
    --tls-ca "$tls/ca.crt" ${COORD_ARGS:-} 2>"$CLUSTER_DIR/coord.log" &
  CLUSTER_PIDS+=($!)
  _wait_port_file "$CLUSTER_DIR/coord.ports" || return 1
  COORD=$(sed -n 's/^grpc=//p' "$CLUSTER_DIR/coord.ports")
  local flags
  for i in $(seq 0 $((agents - 1))); do
    if [ "$backend" = nccl ]; then
      flags=(--gpus "$(seq -s, $((i * ranks)) $((i * ranks + ranks - 1)))")
    else
      flags=(--ranks "$ranks")
    fi
    mkdir -p "$CLUSTER_DIR/run-$i"
    env FABRICPULSE_RUN_DIR="$CLUSTER_DIR/run-$i" "$@" \
      "$BIN/fabricpulse-agent" --coordinator "$COORD" --listen 127.0.0.1:0 \
      --metrics-listen 127.0.0.1:0 --node-name "node-$i" --backend "$backend" \
      "${flags[@]}" --port-file "$CLUSTER_DIR/agent-$i.ports" \
      --tls-cert "$tls/agent-node-$i.crt" --tls-key "$tls/agent-node-$i.key" \
      --tls-ca "$tls/ca.crt" \
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
  local p i workers=()
  for p in "${CLUSTER_PIDS[@]}"; do
    # shellcheck disable=SC2207  # pids, one word each
    workers+=($(ps -o pid= --ppid "$p" 2>/dev/null || true))  # none: exit 1
  done
  for p in "${CLUSTER_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${CLUSTER_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  # The workers are the agents' children, not ours: poll until they are
  # gone (up to 30 s), so that the next cluster finds the GPUs free.
  for p in "${workers[@]}"; do
    for i in $(seq 1 600); do
      kill -0 "$p" 2>/dev/null || break
      read -r -t 0.05 <> <(:) || true
    done
  done
  CLUSTER_PIDS=()
  unset FABRICPULSE_TLS_CERT FABRICPULSE_TLS_KEY FABRICPULSE_TLS_CA
  [ -n "${KEEP_LOGS:-}" ] || rm -rf "$CLUSTER_DIR"
}
