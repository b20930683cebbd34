#!/usr/bin/env bash
# Network partition, for real: two network namespaces joined by a veth pair.
# Namespace A holds the coordinator and agent node-0, namespace B holds
# agent node-1 (2 Gloo ranks each). Mid-sweep the link goes down: packets
# are dropped, no connection is reset. Then:
#   1. the sweep fails (CLI exit != 0) within the op timeout + 10 s, naming
#      node-1;
#   2. the coordinator marks node-1 lost within its 5 s lease (+ slack);
#   3. node-1's side, cut off from its coordinator, ends the sweep on its own
#      (its workers' ops time out; its sweep lease would end it otherwise)
#      within the op timeout + 4 s;
#   4. a sweep on node-0 alone passes while the link is down;
#   5. with the link back up, node-1 rejoins and a sweep on both passes.
#
#   tests/integration/partition_check.sh BIN_DIR
#
# Needs root (network namespaces): exits 77 (skipped) without. All traffic
# stays inside the two namespaces it creates; everything is removed on exit.
set -uo pipefail
bin="${1:?usage: partition_check.sh BIN_DIR}"
readonly op_timeout=3 lease=5

if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null; then
  echo "partition_check: needs root and iproute2; skipped"
  exit 77
fi
tag=$$
ns_a="fp-part-a-$tag" ns_b="fp-part-b-$tag"
veth_a="fpa$tag" veth_b="fpb$tag"
net="10.213.$((tag % 250 + 1))"
ip_a="$net.1" ip_b="$net.2"
dir=$(mktemp -d /tmp/fabricpulse-partition-XXXXXX)
pids=()
failures=0

cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  ip netns del "$ns_a" 2>/dev/null
  ip netns del "$ns_b" 2>/dev/null
  if [ "$failures" -eq 0 ]; then rm -rf "$dir"; else echo "logs in $dir"; fi
}
trap cleanup EXIT

if ! ip netns add "$ns_a" 2>/dev/null || ! ip netns add "$ns_b" 2>/dev/null; then
  echo "partition_check: cannot create network namespaces here; skipped"
  exit 77
fi
in_a() { ip netns exec "$ns_a" "$@"; }
in_b() { ip netns exec "$ns_b" "$@"; }
ip link add "$veth_a" netns "$ns_a" type veth peer name "$veth_b" netns "$ns_b" || exit 1
in_a ip addr add "$ip_a/30" dev "$veth_a" && in_b ip addr add "$ip_b/30" dev "$veth_b" || exit 1
for ns in "$ns_a" "$ns_b"; do ip -n "$ns" link set lo up || exit 1; done
in_a ip link set "$veth_a" up && in_b ip link set "$veth_b" up || exit 1

pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
# shellcheck source=tests/integration/netns_lib.sh
source "$(dirname "$0")/netns_lib.sh"

# Mutual TLS across the link, from a throwaway CA; the CLI is the operator.
netns_tls agent/node-0 agent/node-1
# Started with `ip netns exec` directly (no function or subshell around it),
# so $! is the daemon itself: ip execs into it.
# shellcheck disable=SC2046  # tls_of's words are separate arguments
ip netns exec "$ns_a" "$bin/fabricpulse-coordinator" --listen "$ip_a:0" --metrics-listen 127.0.0.1:0 \
  --state-dir "$dir/state" --port-file "$dir/coord.ports" $(tls_of coordinator-main) 2>"$dir/coord.log" &
pids+=($!)
wait_for 30 grep -qs '^metrics=' "$dir/coord.ports" || { fail "coordinator did not start"; exit 1; }
coord=$(port_of "$dir/coord.ports")
# shellcheck disable=SC2046  # tls_of's words are separate arguments
start_agent() {  # start_agent NAMESPACE NODE IP
  ip netns exec "$1" "$bin/fabricpulse-agent" --coordinator "$coord" --listen "$3:0" \
    --metrics-listen 127.0.0.1:0 --node-name "$2" --backend gloo --ranks 2 \
    --port-file "$dir/$2.ports" $(tls_of "agent-$2") --run-dir "$dir" 2>"$dir/$2.log" &
  pids+=($!)
}
start_agent "$ns_a" node-0 "$ip_a"
start_agent "$ns_b" node-1 "$ip_b"
cli() { in_a "$bin/fabricpulse" --coordinator "$coord" "$@"; }
# Prints the node's state and ready workers ("alive 2").
node_state() { cli agents 2>/dev/null | awk -v n="$1" '$1 == n {print $2, $6}'; }
node_is() { [ "$(node_state "$1")" = "$2" ]; }
ready() { node_is node-0 "alive 2" && node_is node-1 "alive 2"; }
wait_for 60 ready || { fail "cluster not ready: $(cli agents 2>&1)"; exit 1; }
quick=(sweep --ops "all_reduce,alltoall" --min-bytes 8 --max-bytes 64K --factor 8 --output csv)
if cli "${quick[@]}" >"$dir/first.csv" 2>&1; then
  pass "sweep on both nodes across the link"
else
  fail "first sweep: $(tail -1 "$dir/first.csv")"; exit 1
fi

# A long sweep; rows stream (csv), so the third row means it is under way.
ip netns exec "$ns_a" "$bin/fabricpulse" --coordinator "$coord" \
  sweep --ops all_reduce --min-bytes 64K --max-bytes 64M --factor 2 --iters 50 \
  --no-check --out-of-place --timeout "${op_timeout}s" --output csv \
  >"$dir/long.csv" 2>"$dir/long.err" &
long=$!
pids+=("$long")
rows() { [ "$(grep -c '^[0-9]*,all_reduce,' "$dir/long.csv" 2>/dev/null)" -ge 3 ]; }
wait_for 60 rows || { fail "the long sweep did not start: $(cat "$dir/long.err")"; exit 1; }

in_a ip link set "$veth_a" down
cut=$(now)
cut_clock=$(date -u +%H:%M:%S.%3N)
echo "link down"
# Watches for node-1 turning lost while the sweep ends.
(wait_for $((lease + 10)) node_is node-1 "lost 2" && since "$cut" >"$dir/lost_after") &
poller=$!

wait "$long"
rc=$?
t_fail=$(since "$cut")
err=$(tail -1 "$dir/long.err")
if [ "$rc" -ne 0 ] && awk -v t="$t_fail" -v b=$((op_timeout + 10)) 'BEGIN {exit !(t <= b)}'; then
  pass "the sweep failed (exit $rc) ${t_fail} s after the cut (bound $((op_timeout + 10)) s)"
else
  fail "the sweep: exit $rc after ${t_fail} s: $err"
fi
if [[ "$err" == *node-1* ]]; then
  pass "its error names node-1: $err"
else
  fail "its error does not name node-1: $err"
fi

wait "$poller"
if [ -s "$dir/lost_after" ] &&
  awk -v t="$(cat "$dir/lost_after")" -v b=$((lease + 3)) 'BEGIN {exit !(t <= b)}'; then
  pass "the coordinator marked node-1 lost $(cat "$dir/lost_after") s after the cut (lease $lease s)"
else
  fail "node-1 not marked lost within $((lease + 3)) s: $(cat "$dir/lost_after" 2>/dev/null)"
fi

# node-1's side ended the sweep on its own: the first of its workers'
# failure lines or its lease expiry, timed by its log clock (UTC).
first=$(grep -m1 -E "sweep .* failed|sweep lease expired" "$dir/node-1.log" | awk '{print $2}')
if [ -n "$first" ]; then
  ended=$(awk -v a="$cut_clock" -v b="$first" 'function s(t, p) {split(t, p, ":"); return p[1] * 3600 + p[2] * 60 + p[3]}
    BEGIN {printf "%.2f", s(b) - s(a)}')
fi
if [ -n "$first" ] && awk -v t="$ended" -v b=$((op_timeout + 4)) 'BEGIN {exit !(t <= b)}'; then
  pass "node-1's side ended the sweep on its own ${ended} s after the cut: $(grep -m1 -E "sweep .* failed|sweep lease expired" "$dir/node-1.log" | cut -c1-120)"
else
  fail "node-1's side did not end the sweep within $((op_timeout + 4)) s (${ended:-never})"
fi

if cli "${quick[@]}" --nodes node-0 >"$dir/alone.csv" 2>&1; then
  pass "a sweep on node-0 alone passes while node-1 is cut off"
else
  fail "sweep on node-0: $(tail -1 "$dir/alone.csv")"
fi

in_a ip link set "$veth_a" up
healed=$(now)
echo "link up"
both() { cli "${quick[@]}" >"$dir/after.csv" 2>&1; }
if wait_for 45 ready && wait_for 45 both; then
  pass "node-1 rejoined and a sweep on both passes $(since "$healed") s after the link came back"
else
  fail "after the link came back: $(node_state node-1); $(tail -1 "$dir/after.csv")"
fi

echo "== partition check: $failures failure(s)"
[ "$failures" -eq 0 ]
