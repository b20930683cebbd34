#!/usr/bin/env bash
# Campaigns, for real (issue 28): 10 nodes in network namespaces joined by a
# bridge, one Gloo rank each, every link at the same rate
# (netns_cluster.sh), labelled rack=r0 or r1 (even and odd nodes); plan
# `camp` covers them in pairs across racks (5 pairs: each judged against
# the other 4, the fewest peers a reference is made of), plan `camp-short`
# the same with a 6 s window. all_reduce of 2 MiB: 84 ms a pair at the
# rate, so that the network, not the 2 shared cores, sets each pair's speed
# (at 512 KiB, 21 ms, healthy pairs measured down to 0.3 of their peers on
# a loaded machine: tests/perf/campaign_false_alarms.sh). Then:
#   1. all links even: a campaign measures every node, names nobody
#      (exit 0, 10 pass);
#   2. node-3 busy with another sweep: the campaign skips it, retries it,
#      and covers it once that sweep is aborted (10 measured, 10 pass);
#   3. node-3 busy for the whole window of `camp-short`: it ends untested,
#      nobody is named (a pair that measured low as the window closed
#      stays suspect), and the campaign ends at its window;
#   4. node-5's link at a tenth of the rate: the first pass makes node-5
#      and its partner suspects, the second passes (each with a partner
#      that passed) confirm node-5 `fail` and clear the partner: exactly
#      node-5 is named (exit 1);
#   5. node-5 back at the rate: the next campaign names nobody again.
# The verdicts survive a coordinator restart (checked after 4).
#
#   tests/integration/campaign_check.sh BIN_DIR
#
# Needs root (network namespaces, tc): exits 77 (skipped) without. All
# traffic stays inside the namespaces it creates; everything is removed on
# exit.
set -uo pipefail
bin="${1:?usage: campaign_check.sh BIN_DIR}"
readonly nodes=10 slow=5 busy=3 rate=200mbit slow_rate=20mbit

name=campaign_check
# shellcheck source=tests/integration/netns_cluster.sh
source "$(dirname "$0")/netns_cluster.sh"
agent_flags() { echo "--labels rack=r$(($1 % 2))"; }

cat >"$dir/config.yaml" <<YAML
plans:
  camp:
    ops: [all_reduce]
    min_bytes: 2M
    max_bytes: 2M
    iters: 10
    warmup: 1
    campaign:
      grouping: pairs
      group_by: rack
      window: 120s
      busy_retry: 1s
  camp-short:
    ops: [all_reduce]
    min_bytes: 2M
    max_bytes: 2M
    iters: 10
    warmup: 1
    campaign:
      grouping: pairs
      group_by: rack
      window: 6s
      busy_retry: 1s
YAML
cluster_start --config "$dir/config.yaml"

# verdicts PLAN: "node=verdict ..." of every node, by name.
verdicts() {
  cli nodes --plan "$1" --output csv 2>/dev/null |
    awk -F, 'NR > 1 {printf "%s=%s ", $2, $3}'
}
all_pass() {
  local i out=""
  for ((i = 0; i < nodes; i++)); do out+="node-$i=pass "; done
  echo "$out"
}
# campaign_field PLAN FIELD: the newest campaign's FIELD (JSON).
campaign_field() {
  cli nodes --plan "$1" --output json 2>/dev/null | tr -d ' \n' |
    sed -n "s/.*\"campaigns\":\[{[^]]*\"$2\":\"\{0,1\}\([^,\"}]*\).*/\1/p"
}
measured_is() { [ "$(campaign_field "$1" measured)" = "$2" ]; }
campaign_ended() { [ "$(campaign_field "$1" status)" != "running" ]; }
# busy_sweep: a long sweep on node-$busy alone, in the background ($busy_pid),
# running once this returns.
busy_sweep() {
  cli sweep --nodes "node-$busy" --ops all_reduce --min-bytes 4M --max-bytes 4M \
    --iters 1000000 --warmup 0 --progress never >/dev/null 2>&1 &
  busy_pid=$!
  wait_for 30 sweep_running || { fail "the busy sweep did not start"; exit 1; }
}
# sweep_running: the coordinator has node-$busy reserved for a sweep.
sweep_running() {
  cli agents --output json 2>/dev/null |
    grep -o '"node_name":"[^"]*"\|"reserved_sweep":"[^"]*"' | paste - - |
    grep -q "\"node-$busy\".*\"reserved_sweep\":\"[^\"]"
}
end_busy_sweep() {
  cli abort >/dev/null 2>&1
  wait "$busy_pid" 2>/dev/null
}
# run_campaign PLAN: a campaign of PLAN to its end; its exit code.
run_campaign() { cli campaign --plan "$1" --wait --timeout 150 >"$dir/$1.out" 2>"$dir/$1.err"; }

# verdict_series: "node=verdict ..." from the coordinator's series of plan
# camp (one-hot per node: the 1s).
metrics=$(sed -n 's/^metrics=//p' "$dir/coord.ports")
# scrape: the coordinator's /metrics, over bash's /dev/tcp (no curl needed).
scrape() {
  ip netns exec "$(ns_of 0)" bash -c 'exec 3<>"/dev/tcp/${1%:*}/${1##*:}" &&
    printf "GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n" >&3 && cat <&3' _ "$metrics"
}
verdict_series() {
  scrape | grep '^fabricpulse_node_verdict{' | grep 'plan="camp"' | grep ' 1$' |
    sed 's/.*node="\([^"]*\)".*verdict="\([^"]*\)".*/\1=\2/' | sort | tr '\n' ' '
}
verdict_series_is() { [ "$(verdict_series)" = "$1" ]; }

# 1. Even fabric.
run_campaign camp
rc=$?
got=$(verdicts camp)
if [ "$rc" -eq 0 ] && [ "$got" = "$(all_pass)" ]; then
  pass "even fabric: every node measured, none named ($(cat "$dir/camp.out" | tail -1))"
else
  fail "even fabric: exit $rc, verdicts '$got': $(cat "$dir/camp.out" "$dir/camp.err")"
fi
if wait_for 40 verdict_series_is "$(all_pass)"; then
  pass "fabricpulse_node_verdict: every node pass"
else
  fail "node verdict series '$(verdict_series)' on an even fabric"
fi

# 2. node-3 busy, then free while the campaign waits for it.
busy_sweep
cli campaign --plan camp >"$dir/busy.out" 2>"$dir/busy.err" || fail "campaign start: $(cat "$dir/busy.err")"
if wait_for 60 measured_is camp 9 && [ "$(campaign_field camp status)" = running ]; then
  pass "node-$busy busy: the other 9 nodes measured first"
else
  fail "node-$busy busy: measured '$(campaign_field camp measured)', want 9 while it is busy"
fi
end_busy_sweep
if wait_for 90 campaign_ended camp && [ "$(campaign_field camp measured)" = 10 ] &&
  [ "$(verdicts camp)" = "$(all_pass)" ]; then
  pass "node-$busy freed: retried and covered (10 of 10 measured, all pass)"
else
  fail "node-$busy freed: status $(campaign_field camp status), measured $(campaign_field camp measured), verdicts '$(verdicts camp)'"
fi

# 3. node-3 busy for the whole window of camp-short.
busy_sweep
run_campaign camp-short
rc=$?
end_busy_sweep
# A pair that measured low at the window's end stays a suspect (its second
# pass cannot start any more): not named, and not a failure here.
got=$(verdicts camp-short | sed 's/=suspect /=pass /g')
want=$(all_pass | sed "s/node-$busy=pass/node-$busy=untested/")
if [ "$rc" -eq 0 ] && [ "$got" = "$want" ] &&
  [ "$(campaign_field camp-short untested)" = 1 ]; then
  pass "node-$busy busy for the window: untested, the others pass ($(tail -1 "$dir/camp-short.out"))"
else
  fail "busy for the window: exit $rc, verdicts '$got', want '$want': $(cat "$dir/camp-short.out" "$dir/camp-short.err")"
fi

# 4. node-5 slow: confirmed by the second pass, nobody else named.
shape "$slow" "$slow_rate" || { fail "tc tbf"; exit 1; }
run_campaign camp
rc=$?
got=$(verdicts camp)
want=$(all_pass | sed "s/node-$slow=pass/node-$slow=fail/")
if [ "$rc" -eq 1 ] && [ "$got" = "$want" ] &&
  [ "$(campaign_field camp second_passes)" -ge 1 ]; then
  pass "node-$slow at $slow_rate: confirmed fail by a second pass, nobody else named ($(tail -1 "$dir/camp.out"))"
else
  fail "slow node: exit $rc, verdicts '$got', want '$want': $(cat "$dir/camp.out" "$dir/camp.err")"
fi
cli nodes --plan camp >"$dir/nodes-slow.txt" 2>&1
# The coordinator's series say the same.
if wait_for 40 verdict_series_is "$want"; then
  pass "fabricpulse_node_verdict: node-$slow fail, the others pass"
else
  fail "node verdict series '$(verdict_series)', want '$want'"
fi

# The verdicts survive a restart of the coordinator (same state dir).
kill "${pids[0]}" && wait "${pids[0]}" 2>/dev/null
rm -f "$dir/coord.ports"
# shellcheck disable=SC2046
ip netns exec "$(ns_of 0)" "$bin/fabricpulse-coordinator" --listen "$coord" \
  --metrics-listen 127.0.0.1:0 --state-dir "$dir/state" --port-file "$dir/coord.ports" \
  $(tls_of coordinator-main) --config "$dir/config.yaml" 2>"$dir/coord2.log" &
pids[0]=$!
if wait_for 30 grep -qs '^metrics=' "$dir/coord.ports" && [ "$(verdicts camp)" = "$want" ]; then
  pass "after a coordinator restart: the same verdicts"
else
  fail "after a restart: verdicts '$(verdicts camp)', want '$want'"
fi
wait_for 60 alive || { fail "agents did not re-register: $(cli agents 2>&1)"; exit 1; }

# 5. node-5 back at the rate.
shape "$slow" "$rate" || { fail "tc tbf"; exit 1; }
run_campaign camp
rc=$?
got=$(verdicts camp)
if [ "$rc" -eq 0 ] && [ "$got" = "$(all_pass)" ]; then
  pass "node-$slow back at $rate: one good result clears it, none named"
else
  fail "after repair: exit $rc, verdicts '$got': $(cat "$dir/camp.out" "$dir/camp.err")"
fi

echo "== campaign check: $failures failure(s)"
[ "$failures" -eq 0 ]
