#!/usr/bin/env bash
# The coordinator isolates by itself (issue 15, item 2), for real: the
# 4-node cluster of netns_cluster.sh, and a plan with
# `isolate_on: [regression]` (one all_reduce size, baseline from 1 sweep):
#   1. all links even, the plan runs twice (`sweep --plan`): the second is
#      judged against the first, regresses nowhere, and neither starts an
#      isolation (no `isolation` in their JSON, no isolation sweeps);
#   2. with node-2's link at a tenth of the rate, the plan runs again: it
#      regresses, and the coordinator's own isolation (sweeps with trigger
#      isolation:ID) is stored with it within a deadline and names node-2
#      in `results --sweep ID` (table and JSON) and in
#      fabricpulse_isolations_total{plan="probe",verdict="node"} (1; the
#      plan's other verdicts' series stay at the 0 they start at).
#
#   tests/integration/auto_isolate_check.sh BIN_DIR
#
# Needs root (network namespaces, tc): exits 77 (skipped) without. The
# JSON is also checked against docs/json/sweeps.v1.schema.json when ajv is
# installed (.tools/, or FABRICPULSE_AJV=PATH).
set -uo pipefail
bin="${1:?usage: auto_isolate_check.sh BIN_DIR}"
readonly nodes=4 slow=2 rate=200mbit slow_rate=20mbit

name=auto_isolate_check
# shellcheck source=tests/integration/netns_cluster.sh
source "$(dirname "$0")/netns_cluster.sh"
# threshold 0.5: a tenth of the rate regresses for sure, run-to-run noise
# on even links never does.
cat >"$dir/coordinator.yaml" <<'YAML'
baseline:
  window: 10
  min_sweeps: 1
  threshold: 0.5
plans:
  probe:
    ops: [all_reduce]
    min_bytes: 512K
    max_bytes: 512K
    iters: 10
    warmup: 1
    isolate_on: [regression]
YAML
cluster_start --config "$dir/coordinator.yaml"

# run_plan FILE: runs the plan (JSON in FILE); prints its sweep id.
run_plan() {
  cli sweep --plan probe --output json --progress never >"$1" 2>"$1.err"
  sed -n 's/.*"sweep_id": *"\([^"]*\)".*/\1/p' "$1" | head -1
}
# isolation_sweeps ID: how many sweeps ran as the isolation of sweep ID.
isolation_sweeps() {
  cli results --last 100 --output csv 2>/dev/null | awk -F, -v t="isolation:$1" '$3 == t' | wc -l
}
metrics() {
  local port
  port=$(sed -n 's/^metrics=.*:\([0-9]*\)$/\1/p' "$dir/coord.ports")
  ip netns exec "$(ns_of 0)" curl -s "http://127.0.0.1:$port/metrics"
}

first=$(run_plan "$dir/first.json")
second=$(run_plan "$dir/second.json")
if [ -n "$first" ] && [ -n "$second" ] && grep -q '"baseline_sweeps": *1' "$dir/second.json" &&
  grep -q '"regression": *false' "$dir/second.json"; then
  pass "even links: sweep $second judged against $first, no regression"
else
  fail "even runs: '$first' '$second': $(cat "$dir/second.json.err") $(grep -o '"regression": *[a-z]*' "$dir/second.json")"
fi

shape "$slow" "$slow_rate" || { fail "tc tbf"; exit 1; }
shaped=$(run_plan "$dir/shaped.json")
if [ -n "$shaped" ] && grep -q '"regression": *true' "$dir/shaped.json"; then
  pass "node-2 at $slow_rate: sweep $shaped regressed"
else
  fail "shaped run '$shaped' did not regress: $(cat "$dir/shaped.json.err")"
fi

# isolated ID: the stored isolation of sweep ID has finished.
isolated() {
  cli results --sweep "$1" --output json >"$dir/isolation.json" 2>/dev/null &&
    grep -q '"isolation"' "$dir/isolation.json" &&
    ! grep -q '"verdict": *"running"' "$dir/isolation.json"
}
if wait_for 240 isolated "$shaped"; then
  verdict=$(sed -n 's/.*"verdict": *"\([a-z_]*\)".*/\1/p' "$dir/isolation.json" | head -1)
  culprits=$(tr -d ' \n' <"$dir/isolation.json" | grep -o '"culprits":\[[^]]*\]' | head -1)
  if [ "$verdict" = node ] && [ "$culprits" = '"culprits":["node-2"]' ]; then
    pass "the coordinator's isolation names node-2 ($(isolation_sweeps "$shaped") isolation sweeps)"
  else
    fail "isolation verdict '$verdict' $culprits: $(grep -o '"summary": *"[^"]*"' "$dir/isolation.json")"
  fi
else
  fail "no finished isolation of $shaped within 240 s: $(grep isolation "$dir/coord.log" | tail -3)"
fi
# The document with its isolation keeps the JSON contract (when ajv is
# installed: scripts/install-deps.sh --with-test-tools).
ajv="${FABRICPULSE_AJV:-$(dirname "$0")/../../.tools/node/node_modules/.bin/ajv}"
if [ -x "$ajv" ]; then
  if "$ajv" validate --spec=draft7 --all-errors -s "$(dirname "$0")/../../docs/json/sweeps.v1.schema.json" \
    -d "$dir/isolation.json" >"$dir/ajv.out" 2>&1; then
    pass "results --sweep --output json with its isolation matches docs/json/sweeps.v1.schema.json"
  else
    fail "JSON contract: $(cat "$dir/ajv.out")"
  fi
fi
cli results --sweep "$shaped" >"$dir/isolation.txt" 2>&1
if grep -q '^# isolation: node node-2 ([0-9]* measurements: all ' "$dir/isolation.txt"; then
  pass "results --sweep prints it: $(grep '^# isolation:' "$dir/isolation.txt" | cut -c1-100)..."
else
  fail "results --sweep $shaped: $(grep isolation "$dir/isolation.txt")"
fi

# The even runs started nothing.
cli results --sweep "$second" --output json >"$dir/second-stored.json" 2>&1
if [ "$(isolation_sweeps "$first")" -eq 0 ] && [ "$(isolation_sweeps "$second")" -eq 0 ] &&
  ! grep -q '"isolation"' "$dir/second-stored.json"; then
  pass "the even runs started no isolation"
else
  fail "even runs: $(isolation_sweeps "$second") isolation sweeps; $(grep -o '"isolation".*' "$dir/second-stored.json" | cut -c1-200)"
fi
if command -v curl >/dev/null; then
  # Every verdict's series exists from the start at 0; only node moved.
  series=$(metrics | grep '^fabricpulse_isolations_total' | grep -v ' 0$')
  if [ "$series" = 'fabricpulse_isolations_total{plan="probe",verdict="node"} 1' ] &&
    [ "$(metrics | grep -c '^fabricpulse_isolations_total{plan="probe"')" -eq 7 ]; then
    pass "metrics: $series"
  else
    fail "fabricpulse_isolations_total: '$series'"
  fi
fi

echo "== auto isolate check: $failures failure(s)"
[ "$failures" -eq 0 ]
