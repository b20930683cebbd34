#!/usr/bin/env bash
# Node verdicts published on the node (issue 30), for real: a coordinator
# and 3 agents (2 Gloo ranks each) on 127.0.0.1 over mutual TLS, each agent
# with --nfd-features-dir and --verdict-file of its own; node-2's rank 0
# enters every op 100 ms late (FABRICPULSE_FAULT_LATE_RANK), far below the
# plan's expected busbw. Plan `camp` judges each node alone (grouping node),
# verdicts valid 30 s. Then:
#   1. before any campaign: every node's feature file says untested, and
#      `fabricpulse node-check` answers unknown (exit 2);
#   2. a campaign: node-0 and node-1 pass, node-2 fail (confirmed by a
#      repeat); each file holds NFD's format (expiry directive, fabricpulse.io
#      labels) with the expiry one validity after the test; node-check
#      answers 0, 0 and 1 (a line of at most 80 characters);
#   3. a second campaign renews the files (a later test, a later expiry);
#   4. the coordinator gone: the files stay while their verdict holds, then
#      each agent removes its file once its expiry has passed (never
#      before), and node-check answers unknown (expired);
#   5. an agent stopped: its verdict file goes, node-check answers unknown.
#
#   tests/integration/node_publish_check.sh BIN_DIR
#
# Everything stays on loopback; the folder it makes is removed on success.
set -uo pipefail
bin="${1:?usage: node_publish_check.sh BIN_DIR}"
readonly nodes=3 slow=2 validity=30
dir=$(mktemp -d /tmp/fabricpulse-node-publish-XXXXXX)
pids=()
failures=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  if [ "$failures" -eq 0 ]; then rm -rf "$dir"; else echo "logs in $dir"; fi
}
trap cleanup EXIT
# shellcheck source=tests/integration/netns_lib.sh
source "$(dirname "$0")/netns_lib.sh"
ids=()
for ((i = 0; i < nodes; i++)); do ids+=("agent/node-$i"); done
netns_tls "${ids[@]}"

cat >"$dir/config.yaml" <<YAML
plans:
  camp:
    ops: [all_reduce]
    min_bytes: 512K
    max_bytes: 512K
    iters: 10
    warmup: 1
    campaign:
      grouping: node
      window: 120s
      busy_retry: 1s
      validity: ${validity}s
      expected_busbw_gbps: 0.05
      warn_fraction: 0.5
      critical_fraction: 0.4
YAML
start_coordinator() {
  rm -f "$dir/coord.ports"
  # shellcheck disable=SC2046  # tls_of's words are separate arguments
  "$bin/fabricpulse-coordinator" --listen "${1:-127.0.0.1:0}" --metrics-listen 127.0.0.1:0 \
    --state-dir "$dir/state" --port-file "$dir/coord.ports" --config "$dir/config.yaml" \
    $(tls_of coordinator-main) 2>>"$dir/coord.log" &
  pids[0]=$!
  wait_for 30 grep -qs '^metrics=' "$dir/coord.ports" || { fail "coordinator did not start"; exit 1; }
  coord=$(port_of "$dir/coord.ports")
}
start_coordinator
for ((i = 0; i < nodes; i++)); do
  mkdir -p "$dir/features.d-$i"
  fault=""
  if [ "$i" -eq "$slow" ]; then fault="0:100ms"; fi
  # shellcheck disable=SC2046
  FABRICPULSE_FAULT_LATE_RANK="$fault" "$bin/fabricpulse-agent" --coordinator "$coord" \
    --listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0 --node-name "node-$i" \
    --backend gloo --ranks 2 --port-file "$dir/node-$i.ports" $(tls_of "agent-node-$i") \
    --run-dir "$dir" --nfd-features-dir "$dir/features.d-$i" \
    --verdict-file "$dir/verdict-$i.json" 2>"$dir/node-$i.log" &
  pids+=($!)
done
cli() { "$bin/fabricpulse" --coordinator "$coord" "$@"; }
alive() { [ "$(cli agents 2>/dev/null | awk '$2 == "alive" && $6 == 2' | wc -l)" -eq "$nodes" ]; }
wait_for 60 alive || { fail "cluster not ready: $(cli agents 2>&1)"; exit 1; }

feature() { cat "$dir/features.d-$1/fabricpulse" 2>/dev/null; }
health() { feature "$1" | sed -n 's|^fabricpulse.io/nccl-health=||p'; }
tested() { feature "$1" | sed -n 's|^fabricpulse.io/nccl-tested=||p'; }
expiry() { feature "$1" | sed -n 's|^# +expiry-time=||p'; }
healths() {
  local i out=""
  for ((i = 0; i < nodes; i++)); do out+="node-$i=$(health "$i") "; done
  echo "$out"
}
healths_are() { [ "$(healths)" = "$1" ]; }
# node_check I: "EXIT MESSAGE" of node-check on node-I's verdict file.
node_check() {
  local out rc
  out=$("$bin/fabricpulse" node-check --verdict-file "$dir/verdict-$1.json")
  rc=$?
  echo "$rc $out"
}
# nfd_format I: the file as NFD reads it: an RFC 3339 expiry directive, then
# only fabricpulse.io/ labels with label values (NFD's rules).
nfd_format() {
  local f="$dir/features.d-$1/fabricpulse"
  grep -Eq '^# \+expiry-time=[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$' "$f" &&
    ! grep -v '^#' "$f" | grep -Evq '^fabricpulse\.io/nccl-(health|tested|plan)=([A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?)?$' &&
    [ ! -e "$dir/features.d-$1/.fabricpulse.tmp" ]
}
epoch_of() { date -u -d "$1" +%s; }
compact_epoch() { date -u -d "$(echo "$1" | sed 's/^\(....\)\(..\)\(..\)T\(..\)\(..\)\(..\)Z$/\1-\2-\3 \4:\5:\6/')" +%s; }

# 1. Before any campaign.
untested="node-0=untested node-1=untested node-2=untested "
if wait_for 30 healths_are "$untested" && [ "$(node_check 0 | cut -d' ' -f1)" = 2 ]; then
  pass "before any campaign: every node untested; node-check: $(node_check 0)"
else
  fail "before any campaign: '$(healths)', node-check '$(node_check 0)'"
fi

# 2. A campaign.
cli campaign --plan camp --wait --timeout 120 >"$dir/camp1.out" 2>&1
rc=$?
want="node-0=pass node-1=pass node-2=fail "
if [ "$rc" -eq 1 ] && wait_for 30 healths_are "$want"; then
  pass "campaign: $(healths)($(tail -1 "$dir/camp1.out"))"
else
  fail "campaign: exit $rc, files '$(healths)', want '$want': $(cat "$dir/camp1.out"; cli nodes --plan camp)"
fi
echo "verdicts and evidence after the first campaign:"
cli nodes --plan camp 2>&1 | sed 's/^/  /'
format_ok=1
for ((i = 0; i < nodes; i++)); do
  nfd_format "$i" || format_ok=0
  t=$(compact_epoch "$(tested "$i")") e=$(epoch_of "$(expiry "$i")")
  [ $((e - t)) -eq "$validity" ] || { format_ok=0; echo "node-$i: tested $t expiry $e"; }
done
if [ "$format_ok" -eq 1 ]; then
  pass "NFD format: expiry = tested + ${validity}s; $(feature 2 | tr '\n' ' ')"
else
  fail "NFD format: $(for i in 0 1 2; do feature "$i"; done)"
fi
checks="$(node_check 0 | cut -c1) $(node_check 1 | cut -c1) $(node_check 2 | cut -c1)"
line=$(node_check 2 | cut -d' ' -f2-)
if [ "$checks" = "0 0 1" ] && [ "${#line}" -le 80 ]; then
  pass "node-check: exit $checks; node-2: $line"
else
  fail "node-check: exit '$checks', want '0 0 1'; $(node_check 2)"
fi

# results sums the campaign's group sweeps up (covered, untested, failed).
camp_line=$(cli results --last 20 | grep '^# campaign ')
if [[ "$camp_line" == *" of camp (node) finished: 3 of 3 node(s) measured; pass 2, degraded 0, fail 1, suspect 0, untested 0; 1 second pass(es)"* ]]; then
  pass "results: $camp_line"
else
  fail "results lacks the campaign's summary: '$camp_line'"
fi

# 3. A second campaign renews the files.
before=$(tested 0)
before_expiry=$(expiry 0)
cli campaign --plan camp --wait --timeout 120 >"$dir/camp2.out" 2>&1
renewed() { [ "$(tested 0)" != "$before" ] && [ "$(health 0)" = pass ]; }
if wait_for 30 renewed && [ "$(epoch_of "$(expiry 0)")" -gt "$(epoch_of "$before_expiry")" ]; then
  pass "renewed: node-0 tested $before -> $(tested 0), expiry $(expiry 0)"
else
  fail "not renewed: tested $before -> $(tested 0), expiry $before_expiry -> $(expiry 0)"
fi

# 4. The coordinator gone.
kill "${pids[0]}" && wait "${pids[0]}" 2>/dev/null
gone_expiry=$(epoch_of "$(expiry 0)")
if [ "$(health 0)" = pass ] && [ "$(node_check 0 | cut -c1)" = 0 ]; then
  pass "coordinator gone: node-0's pass stays while it holds (until $(expiry 0))"
else
  fail "coordinator gone: file '$(feature 0)', node-check '$(node_check 0)'"
fi
# Every agent removes its file once the expiry written in it has passed.
removed() { [ ! -e "$dir/features.d-0/fabricpulse" ] && [ ! -e "$dir/features.d-2/fabricpulse" ]; }
early=0
# Poll by hand, to catch a removal before the expiry.
until removed; do
  if [ "$(date +%s)" -gt $((gone_expiry + 10)) ]; then break; fi
  read -r -t 0.1 <> <(:) || true
done
seen=$(date +%s)
if [ -e "$dir/features.d-0/fabricpulse" ]; then early=-1; fi
if [ "$early" -eq 0 ] && [ "$seen" -ge "$gone_expiry" ]; then
  pass "expired: the files removed at $(date -u -d "@$seen" +%T), expiry $(date -u -d "@$gone_expiry" +%T); node-check: $(node_check 0)"
else
  fail "expiry: removed at $seen, expiry $gone_expiry, file '$(feature 0)'"
fi
if [ "$(node_check 0 | cut -c1)" = 2 ] && [ "$(node_check 2 | cut -c1)" = 2 ]; then
  pass "node-check after expiry: unknown ($(node_check 2))"
else
  fail "node-check after expiry: $(node_check 0); $(node_check 2)"
fi

# An agent stopped: its verdict file goes, node-check answers unknown at
# once; a --max-age out of range is unknown too, naming the flag.
kill "${pids[2]}" && wait "${pids[2]}" 2>/dev/null
out=$(node_check 1)
if [ "${out%% *}" = 2 ] && [ ! -e "$dir/verdict-1.json" ]; then
  pass "agent stopped: node-check $out"
else
  fail "agent stopped: node-check '$out'"
fi
out=$("$bin/fabricpulse" node-check --verdict-file "$dir/verdict-0.json" --max-age 5s)
rc=$?
if [ "$rc" -eq 2 ] && [ "$out" = "--max-age: '5s' is out of range; allowed: 2m to 24h" ]; then
  pass "node-check --max-age 5s: exit 2, $out"
else
  fail "node-check --max-age 5s: exit $rc, '$out'"
fi

echo "node_publish_check: $failures failure(s)"
[ "$failures" -eq 0 ]
