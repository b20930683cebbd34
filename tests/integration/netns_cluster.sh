# Shared by bad_link_check.sh and auto_isolate_check.sh: `nodes` nodes in
# network namespaces joined by a bridge (in a namespace of its own), one
# Gloo rank each, every node's link at `rate` both ways (tc tbf on its veth
# and on its bridge port), so that the network, not the shared cores, sets
# each pair's speed; the coordinator runs beside node-0. Sourced with `bin`,
# `nodes`, `rate` and `name` (the check's name, for messages) set; sets
# `dir` (a scratch folder, kept when a check failed), `pids`, `failures`
# and the trap that removes everything on exit. Needs root: exits 77
# (skipped) without. All traffic stays inside the namespaces it creates.

if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null || ! command -v tc >/dev/null; then
  echo "$name: needs root, iproute2 and tc; skipped"
  exit 77
fi
tag=$$
net="10.214.$((tag % 250 + 1))"
br_ns="fp-bl-br-$tag"
dir=$(mktemp -d "/tmp/fabricpulse-$name-XXXXXX")
pids=()
failures=0
ns_of() { echo "fp-bl-$1-$tag"; }
ip_of() { echo "$net.$(($1 + 1))"; }
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

cleanup() {
  local p i
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  for ((i = 0; i < nodes; i++)); do ip netns del "$(ns_of "$i")" 2>/dev/null; done
  ip netns del "$br_ns" 2>/dev/null
  if [ "$failures" -eq 0 ]; then rm -rf "$dir"; else echo "logs in $dir"; fi
}
trap cleanup EXIT

if ! ip netns add "$br_ns" 2>/dev/null; then
  echo "$name: cannot create network namespaces here; skipped"
  exit 77
fi
ip -n "$br_ns" link add fpbr type bridge || exit 1
ip -n "$br_ns" link set fpbr up || exit 1
for ((i = 0; i < nodes; i++)); do
  ns=$(ns_of "$i")
  ip netns add "$ns" || exit 1
  ip -n "$ns" link set lo up || exit 1
  # eth0 in the node's namespace, port$i on the bridge.
  ip link add eth0 netns "$ns" type veth peer name "port$i" netns "$br_ns" || exit 1
  ip -n "$ns" addr add "$net.$((i + 1))/24" dev eth0 || exit 1
  ip -n "$ns" link set eth0 up || exit 1
  ip -n "$br_ns" link set "port$i" master fpbr up || exit 1
done
# shape NODE RATE: node NODE's link at RATE both ways.
shape() {
  ip netns exec "$(ns_of "$1")" tc qdisc replace dev eth0 root tbf rate "$2" burst 64kb latency 400ms &&
    ip netns exec "$br_ns" tc qdisc replace dev "port$1" root tbf rate "$2" burst 64kb latency 400ms
}
for ((i = 0; i < nodes; i++)); do shape "$i" "$rate" || { echo "$name: tc tbf failed"; exit 1; }; done

# shellcheck source=tests/integration/netns_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/netns_lib.sh"
agent_ids=()
for ((i = 0; i < nodes; i++)); do agent_ids+=("agent/node-$i"); done
netns_tls "${agent_ids[@]}"

# cluster_start [COORDINATOR FLAG...]: the coordinator (with the flags) and
# one agent per node; returns once every agent is alive with 1 rank. A
# function `agent_flags NODE_INDEX`, when the check defines one, prints more
# flags for that node's agent (e.g. --labels).
cluster_start() {
  local i extra
  # Started with `ip netns exec` directly, so $! is the daemon itself.
  # shellcheck disable=SC2046  # tls_of's words are separate arguments
  ip netns exec "$(ns_of 0)" "$bin/fabricpulse-coordinator" --listen "$(ip_of 0):0" \
    --metrics-listen 127.0.0.1:0 --state-dir "$dir/state" --port-file "$dir/coord.ports" \
    $(tls_of coordinator-main) "$@" 2>"$dir/coord.log" &
  pids+=($!)
  wait_for 30 grep -qs '^metrics=' "$dir/coord.ports" || { fail "coordinator did not start"; exit 1; }
  coord=$(port_of "$dir/coord.ports")
  for ((i = 0; i < nodes; i++)); do
    extra=""
    if declare -F agent_flags >/dev/null; then extra=$(agent_flags "$i"); fi
    # shellcheck disable=SC2046,SC2086
    ip netns exec "$(ns_of "$i")" "$bin/fabricpulse-agent" --coordinator "$coord" \
      --listen "$(ip_of "$i"):0" --metrics-listen 127.0.0.1:0 --node-name "node-$i" \
      --backend gloo --ranks 1 --port-file "$dir/node-$i.ports" $(tls_of "agent-node-$i") \
      --run-dir "$dir" $extra 2>"$dir/node-$i.log" &
    pids+=($!)
  done
  wait_for 60 alive || { fail "cluster not ready: $(cli agents 2>&1)"; exit 1; }
}
cli() { ip netns exec "$(ns_of 0)" "$bin/fabricpulse" --coordinator "$coord" "$@"; }
alive() { [ "$(cli agents 2>/dev/null | awk '$2 == "alive" && $6 == 1' | wc -l)" -eq "$nodes" ]; }
