#!/usr/bin/env bash
# Finding a bad link, for real: 4 nodes in network namespaces joined by a
# bridge (in a namespace of its own), one Gloo rank each; the coordinator
# runs beside node-0. Every node's link runs at the same rate both ways
# (tc tbf on its veth and on its bridge port), so that the network, not
# the 2 shared cores, sets each pair's speed. Then:
#   1. all links even: `matrix` measures the 6 pairs and flags none, and
#      `isolate` names nobody (exit 0);
#   2. with node-2's link at a tenth of that rate, `matrix` flags exactly
#      node-2's 3 pairs, --fail-on-flagged exits 5, and `isolate` names
#      node-2 (exit 1), with each measurement as evidence;
#   3. with node-2's rate back, `matrix --fail-on-flagged` passes again.
#
#   tests/integration/bad_link_check.sh BIN_DIR
#
# Needs root (network namespaces, tc): exits 77 (skipped) without. All
# traffic stays inside the namespaces it creates; everything is removed on
# exit.
set -uo pipefail
bin="${1:?usage: bad_link_check.sh BIN_DIR}"
readonly nodes=4 slow=2 rate=200mbit slow_rate=20mbit bytes=512K

if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null || ! command -v tc >/dev/null; then
  echo "bad_link_check: needs root, iproute2 and tc; skipped"
  exit 77
fi
tag=$$
net="10.214.$((tag % 250 + 1))"
br_ns="fp-bl-br-$tag"
dir=$(mktemp -d /tmp/fabricpulse-bad-link-XXXXXX)
pids=()
failures=0
ns_of() { echo "fp-bl-$1-$tag"; }

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
  echo "bad_link_check: cannot create network namespaces here; skipped"
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
for ((i = 0; i < nodes; i++)); do shape "$i" "$rate" || { echo "bad_link_check: tc tbf failed"; exit 1; }; done
ip_of() { echo "$net.$(($1 + 1))"; }

pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
# shellcheck source=tests/integration/netns_lib.sh
source "$(dirname "$0")/netns_lib.sh"
netns_tls agent/node-0 agent/node-1 agent/node-2 agent/node-3

# Started with `ip netns exec` directly, so $! is the daemon itself.
# shellcheck disable=SC2046  # tls_of's words are separate arguments
ip netns exec "$(ns_of 0)" "$bin/fabricpulse-coordinator" --listen "$(ip_of 0):0" \
  --metrics-listen 127.0.0.1:0 --state-dir "$dir/state" --port-file "$dir/coord.ports" \
  $(tls_of coordinator-main) 2>"$dir/coord.log" &
pids+=($!)
wait_for 30 grep -qs '^metrics=' "$dir/coord.ports" || { fail "coordinator did not start"; exit 1; }
coord=$(port_of "$dir/coord.ports")
for ((i = 0; i < nodes; i++)); do
  # shellcheck disable=SC2046
  ip netns exec "$(ns_of "$i")" "$bin/fabricpulse-agent" --coordinator "$coord" \
    --listen "$(ip_of "$i"):0" --metrics-listen 127.0.0.1:0 --node-name "node-$i" \
    --backend gloo --ranks 1 --port-file "$dir/node-$i.ports" $(tls_of "agent-node-$i") \
    --run-dir "$dir" 2>"$dir/node-$i.log" &
  pids+=($!)
done
cli() { ip netns exec "$(ns_of 0)" "$bin/fabricpulse" --coordinator "$coord" "$@"; }
alive() { [ "$(cli agents 2>/dev/null | awk '$2 == "alive" && $6 == 1' | wc -l)" -eq "$nodes" ]; }
wait_for 60 alive || { fail "cluster not ready: $(cli agents 2>&1)"; exit 1; }

matrix=(matrix --bytes "$bytes" --iters 10 --warmup 1 --output csv --progress never)
# flagged_pairs FILE: the flagged pairs of a matrix CSV, "a-b" sorted.
flagged_pairs() { awk -F, 'NR > 1 && $12 == "true" {print $3 "-" $4}' "$1" | sort | tr '\n' ' '; }
pairs_of() { awk -F, 'NR > 1' "$1" | wc -l; }

if cli "${matrix[@]}" --fail-on-flagged >"$dir/even.csv" 2>"$dir/even.err" &&
  [ "$(pairs_of "$dir/even.csv")" -eq 6 ]; then
  pass "all links at $rate: 6 pairs, none flagged"
else
  fail "even matrix: $(cat "$dir/even.err") flagged: $(flagged_pairs "$dir/even.csv")"
fi

isolate=(isolate --bytes "$bytes" --iters 10 --warmup 1 --output json --progress never)
# verdict FILE: "VERDICT CULPRIT..." of an isolate JSON.
verdict() {
  sed -n 's/.*"verdict": "\([a-z]*\)", "culprits": \[\([^]]*\)\].*/\1 \2/p' "$1" | tr -d '",'
}
cli "${isolate[@]}" >"$dir/isolate-even.json" 2>"$dir/isolate-even.err"
rc=$?
if [ "$rc" -eq 0 ] && [ "$(verdict "$dir/isolate-even.json")" = "none " ]; then
  pass "all links at $rate: isolate names nobody"
else
  fail "even isolate: exit $rc, $(verdict "$dir/isolate-even.json"): $(cat "$dir/isolate-even.err")"
fi

shape "$slow" "$slow_rate" || { fail "tc tbf"; exit 1; }
cli "${matrix[@]}" >"$dir/shaped.csv" 2>"$dir/shaped.err"
rc=$?
got=$(flagged_pairs "$dir/shaped.csv")
want="0-2 1-2 2-3 "
if [ "$rc" -eq 0 ] && [ "$got" = "$want" ]; then
  pass "node-2 at $slow_rate: its pairs flagged ($got)"
else
  fail "shaped matrix: exit $rc, flagged '$got', want '$want': $(tail -1 "$dir/shaped.err")"
fi
cli matrix --sweep "$(awk -F, 'NR == 2 {print $1}' "$dir/shaped.csv")" --fail-on-flagged >/dev/null 2>&1
rc=$?
if [ "$rc" -eq 5 ]; then
  pass "--fail-on-flagged exits 5 on the stored matrix"
else
  fail "--fail-on-flagged on the stored matrix: exit $rc, want 5"
fi

cli "${isolate[@]}" >"$dir/isolate.json" 2>"$dir/isolate.err"
rc=$?
rounds=$(grep -o '"role"' "$dir/isolate.json" | wc -l)
if [ "$rc" -eq 1 ] && [ "$(verdict "$dir/isolate.json")" = "node node-2" ]; then
  pass "isolate names node-2 in $rounds measurements: $(cat "$dir/isolate.err")"
else
  fail "shaped isolate: exit $rc, '$(verdict "$dir/isolate.json")': $(cat "$dir/isolate.err")"
fi

shape "$slow" "$rate" || { fail "tc tbf"; exit 1; }
if cli "${matrix[@]}" --fail-on-flagged >"$dir/after.csv" 2>"$dir/after.err"; then
  pass "node-2 back at $rate: none flagged"
else
  fail "node-2 back at $rate: $(cat "$dir/after.err") flagged: $(flagged_pairs "$dir/after.csv")"
fi

echo "== bad link check: $failures failure(s)"
[ "$failures" -eq 0 ]
