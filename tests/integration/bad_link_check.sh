#!/usr/bin/env bash
# Finding a bad link, for real: 4 nodes in network namespaces joined by a
# bridge, one Gloo rank each, every link at the same rate
# (netns_cluster.sh). Then:
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

name=bad_link_check
# shellcheck source=tests/integration/netns_cluster.sh
source "$(dirname "$0")/netns_cluster.sh"
cluster_start

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
