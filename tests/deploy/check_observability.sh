#!/usr/bin/env bash
# Checks FabricPulse's observability assets offline, with real tools:
#   - yamllint (strict, default rules) on deploy/prometheus/
#   - promtool check rules on the recording and alert rules
#   - promtool test rules on deploy/prometheus/tests/*_test.yaml
#   - the dashboards are current with deploy/grafana/src/*.jsonnet
#   - dashboard structure and the metrics contract (observability_lint.py)
#   - every dashboard query, variables replaced, parsed by promtool check rules
# Exits non-zero on the first failing step. Needs promtool, jsonnet, yamllint
# and python3 with PyYAML: scripts/install-observability-tools.sh installs
# them (a missing tool is a failure, not a skip).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"

prom=deploy/prometheus
rules=("$prom/recording_rules.yaml" "$prom/alert_rules.yaml")

missing=()
for tool in promtool jsonnet yamllint python3; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "FAIL: ${missing[*]} not installed; run scripts/install-observability-tools.sh" >&2
  exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

step() { echo; echo "== $*"; }

step "yamllint -s (default rules): $prom"
yamllint -s "$prom"
echo "OK"

step "promtool check rules: ${rules[*]}"
promtool check rules "${rules[@]}"

shopt -s nullglob
tests=("$prom"/tests/*_test.yaml)
[ ${#tests[@]} -gt 0 ] || { echo "FAIL: no $prom/tests/*_test.yaml" >&2; exit 1; }
step "promtool test rules: ${tests[*]}"
promtool test rules "${tests[@]}"

step "dashboards generated from deploy/grafana/src/*.jsonnet are current"
scripts/generate-dashboards.sh --check

dashboards=(deploy/grafana/*.json)
[ ${#dashboards[@]} -gt 0 ] || { echo "FAIL: no deploy/grafana/*.json" >&2; exit 1; }
step "dashboard structure and metrics contract (docs/metrics.md)"
python3 tests/deploy/observability_lint.py \
  --contract docs/metrics.md \
  --rules "${rules[@]}" \
  --dashboards "${dashboards[@]}" \
  --queries-out "$tmp/dashboard_queries.yaml"

step "promtool check rules: every dashboard query as a recording rule"
promtool check rules "$tmp/dashboard_queries.yaml"

echo
echo "check_observability: all checks passed"
