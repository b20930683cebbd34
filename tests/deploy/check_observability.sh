#!/usr/bin/env bash
# Checks FabricPulse's observability assets offline, with real tools:
#   - yamllint (strict, default rules) on deploy/prometheus/
#   - promtool check rules on the recording and alert rules
#   - promtool test rules on deploy/prometheus/tests/*_test.yaml
#   - every alert has summary, description and a runbook_url under the base
#     alert_rules.yaml names, whose docs/runbooks/ file and section exist;
#     every alert is in the alert table of docs/alerts.md
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

step "alert annotations, runbooks (docs/runbooks/) and the alert table (docs/alerts.md)"
python3 - "$prom/alert_rules.yaml" docs/runbooks docs/alerts.md <<'PY'
import os, re, sys
import yaml

rules_path, runbooks, alert_doc = sys.argv[1:4]
if not os.path.isdir(runbooks):
    sys.exit("FAIL: %s missing" % runbooks)
problems = []
text = open(rules_path).read()
# The base is defined once, as a comment line of its own.
bases = re.findall(r"^# (https://\S+/docs/runbooks/)$", text, re.M)
if len(bases) != 1:
    sys.exit("FAIL: %s: want one comment line '# https://.../docs/runbooks/' "
             "(the runbook base), found %d" % (rules_path, len(bases)))
base = bases[0]


def anchors(path):
    """GitHub's anchors of the file's headings."""
    out = set()
    for line in open(path):
        m = re.match(r"#{1,6}\s+(.*?)\s*$", line)
        if m:
            slug = re.sub(r"[^\w\- ]", "", m.group(1).lower())
            out.add(slug.replace(" ", "-"))
    return out


table = [l for l in open(alert_doc) if l.startswith("|")]
alerts = set()
for group in yaml.safe_load(text)["groups"]:
    gname = group["name"].split(".", 1)[-1]
    for rule in group["rules"]:
        if "alert" not in rule:
            continue
        name = rule["alert"]
        alerts.add(name)
        ann = rule.get("annotations") or {}
        for key in ("summary", "description", "runbook_url"):
            if not str(ann.get(key, "")).strip():
                problems.append("%s: annotation %s missing" % (name, key))
        url = str(ann.get("runbook_url", ""))
        want = "%s%s.md#%s" % (base, gname, name.lower())
        if url and url != want:
            problems.append("%s: runbook_url %s, want %s (group %s)" %
                            (name, url, want, group["name"]))
        path = os.path.join(runbooks, gname + ".md")
        if not os.path.isfile(path):
            problems.append("%s: runbook %s missing" % (name, path))
        elif name.lower() not in anchors(path):
            problems.append("%s: %s has no section '## %s'" %
                            (name, path, name))
        if not any("`%s`" % name in l for l in table):
            problems.append("%s: not in a table of %s" % (name, alert_doc))
# A runbook section for an alert that no longer exists.
for f in sorted(os.listdir(runbooks)):
    for line in open(os.path.join(runbooks, f)):
        m = re.match(r"##\s+(FabricPulse\w+)\s*$", line)
        if m and m.group(1) not in alerts:
            problems.append("%s/%s: section %s: no such alert" %
                            (runbooks, f, m.group(1)))
for p in problems:
    print("FAIL: %s" % p, file=sys.stderr)
if problems:
    sys.exit(1)
print("%d alerts: annotations, runbooks and the docs/alerts.md table OK" % len(alerts))
PY

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
