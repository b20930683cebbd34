#!/usr/bin/env bash
# Checks the Helm chart (helm/fabricpulse) and the plain manifests rendered
# from it, offline, with real tools (installed into .tools/ by
# scripts/install-deploy-tools.sh, which this runs first):
#   - helm lint and helm template with the default, ci/gpu and ci/monitoring
#     values; tests/deploy/bad-values.yaml and a few --set mistakes refused
#     by values.schema.json (and by the templates' own checks);
#   - every rendered object validated against the Kubernetes / prometheus-
#     operator schemas plus cross-object checks (tests/deploy/validate_k8s.mjs);
#   - ajv (draft-07) validates values.yaml and the ci values against the schema;
#     the shipped coordinator config passes the schema's config part;
#   - the PrometheusRule's rules pass `promtool check rules` and hold every
#     rule of deploy/prometheus/;
#   - deploy/k8s/fabricpulse.yaml and the chart's files/ copies are current;
#   - yamllint on the values files and the rendered manifests.
# Prints each check; exits non-zero at the first failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
chart=helm/fabricpulse
t0=$SECONDS

n=0
check() { n=$((n + 1)); printf '[%2d] %s ... ' "$n" "$*"; }
ok() { echo "ok${1:+ ($1)}"; }
fail() { echo "FAIL"; echo "check_chart: $*" >&2; exit 1; }

scripts/install-deploy-tools.sh --quiet
export PATH="$root/.tools/bin:$root/.tools/node/node_modules/.bin:$PATH"
helm() { command helm "$@"; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Name, values arguments.
declare -A variants=(
  [default]=""
  [gpu]="-f $chart/ci/gpu-values.yaml"
  [monitoring]="-f $chart/ci/monitoring-values.yaml"
)
# Objects each variant must render (kind=count), so a template that silently
# renders nothing is caught.
declare -A expected=(
  [default]="--expect Deployment=1 --expect DaemonSet=1 --expect Service=2 --expect ConfigMap=1 --expect PersistentVolumeClaim=1 --expect ServiceAccount=1 --expect Role=0 --expect ClusterRole=0 --expect NetworkPolicy=0"
  [gpu]="--expect Deployment=1 --expect DaemonSet=1 --expect Service=2 --expect PersistentVolumeClaim=1"
  [monitoring]="--expect ServiceMonitor=2 --expect PrometheusRule=1 --expect NetworkPolicy=2 --expect ConfigMap=$((1 + $(ls $chart/files/grafana/*.json 2>/dev/null | wc -l)))"
)

for v in default gpu monitoring; do
  check "helm lint ($v values)"
  # shellcheck disable=SC2086
  out="$(helm lint --strict "$chart" ${variants[$v]} 2>&1)" || { echo "$out"; fail "helm lint $v"; }
  ok
done

for v in default gpu monitoring; do
  check "helm template ($v values)"
  # shellcheck disable=SC2086
  helm template fabricpulse "$chart" --namespace fabricpulse ${variants[$v]} \
    >"$tmp/$v.yaml" 2>"$tmp/$v.err" || { cat "$tmp/$v.err"; fail "helm template $v"; }
  ok "$(grep -c '^kind:' "$tmp/$v.yaml") objects"
done

check "bad values refused (tests/deploy/bad-values.yaml)"
if helm template fabricpulse "$chart" -f tests/deploy/bad-values.yaml >/dev/null 2>"$tmp/bad.err"; then
  fail "helm template accepted tests/deploy/bad-values.yaml"
fi
if helm lint "$chart" -f tests/deploy/bad-values.yaml >/dev/null 2>&1; then
  fail "helm lint accepted tests/deploy/bad-values.yaml"
fi
for marker in "'replicaCount' not allowed" "/coordinator/grpcPort" "/coordinator/persistence/enabled" \
  "'Nightly'" "plans/Nightly/iters" "missing properties 'plan', 'cron'" "/agent/backend" \
  "/agent/hostNetwork" "'LD_PRELOAD'" "/agent/shm/sizeLimit"; do
  grep -qF -- "$marker" "$tmp/bad.err" || { cat "$tmp/bad.err"; fail "the schema error does not name $marker"; }
done
ok "10 problems named"

check "mistakes refused by the schema and templates (--set)"
refused=0
while IFS='|' read -r args want; do
  [ -n "$args" ] || continue
  # shellcheck disable=SC2086
  if helm template fabricpulse "$chart" $args >/dev/null 2>"$tmp/set.err"; then
    fail "accepted: $args"
  fi
  grep -qF -- "$want" "$tmp/set.err" || { cat "$tmp/set.err"; fail "'$args' refused without naming '$want'"; }
  refused=$((refused + 1))
done <<'EOF'
--set agent.gpu.count=0|/agent/gpu/count
--set-string agent.grpcPort=x|/agent/grpcPort
--set agent.updateStrategy.maxUnavailable=0|/agent/updateStrategy/maxUnavailable
--set metrics.serviceMonitor.interval=30|/metrics/serviceMonitor/interval
--set image.digest=sha256:abc|/image/digest
--set coordinator.config.baseline.threshold=1.5|/coordinator/config/baseline/threshold
--set coordinator.config.plans.p.placement=sideways|/coordinator/config/plans/p/placement
--set coordinator.config.plans.p.typo=1|'typo' not allowed
--set networkPolicy.enabled=true --set agent.hostNetwork=true|networkPolicy.nodeCIDRs
EOF
ok "$refused refused"

for v in default gpu monitoring; do
  check "kubernetes-models validation + cross-object checks ($v)"
  # shellcheck disable=SC2086
  out="$(node tests/deploy/validate_k8s.mjs ${expected[$v]} "$tmp/$v.yaml" 2>&1)" || { echo "$out"; fail "validate_k8s $v"; }
  ok "${out#validate_k8s: ok, }"
done

check "the validator itself rejects broken objects"
cat >"$tmp/broken.yaml" <<'EOF'
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: broken, namespace: x}
spec:
  selector: {matchLabels: {a: b}}
  template:
    metadata: {labels: {a: c}}
    spec:
      containers:
        - name: c
          ports: [{containerPort: "7071"}]
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: broken, namespace: x}
spec: {selector: {}, endpoints: [{port: 9401}]}
EOF
if node tests/deploy/validate_k8s.mjs "$tmp/broken.yaml" >"$tmp/broken.out" 2>&1; then
  fail "validate_k8s.mjs accepted broken objects"
fi
for marker in "containerPort must be integer" "port must be string" "selector does not match"; do
  grep -qF "$marker" "$tmp/broken.out" || { cat "$tmp/broken.out"; fail "validator missed: $marker"; }
done
ok

check "ajv (draft-07): values.yaml and ci values against values.schema.json"
for f in "$chart/values.yaml" "$chart"/ci/*.yaml; do
  out="$(ajv validate --spec=draft7 --strict=false --all-errors -s "$chart/values.schema.json" -d "$f" 2>&1)" \
    || { echo "$out"; fail "ajv: $f"; }
done
if ajv validate --spec=draft7 --strict=false -s "$chart/values.schema.json" -d tests/deploy/bad-values.yaml >/dev/null 2>&1; then
  fail "ajv accepted tests/deploy/bad-values.yaml"
fi
ok "$(ls "$chart"/ci/*.yaml | wc -l) ci files; bad-values refused"

check "shipped coordinator config (files/config/coordinator.yaml) passes the schema"
if [ -f "$chart/files/config/coordinator.yaml" ]; then
  { printf 'coordinator:\n  config:\n'; sed 's/^/    /' "$chart/files/config/coordinator.yaml"; } >"$tmp/shipped-config.yaml"
  out="$(ajv validate --spec=draft7 --strict=false --all-errors -s "$chart/values.schema.json" -d "$tmp/shipped-config.yaml" 2>&1)" \
    || { echo "$out"; fail "deploy/config/coordinator.yaml does not match coordinator.config in values.schema.json"; }
  ok
else
  ok "skipped: no deploy/config/coordinator.yaml yet"
fi

check "PrometheusRule: promtool check rules, every rule of deploy/prometheus/ present"
node tests/deploy/validate_k8s.mjs --rules-out "$tmp/rules.yaml" "$tmp/monitoring.yaml" >/dev/null \
  || fail "no rules in the PrometheusRule"
out="$(promtool check rules "$tmp/rules.yaml" 2>&1)" || { echo "$out"; fail "promtool check rules"; }
got="$(echo "$out" | sed -n 's/.*SUCCESS: \([0-9]*\) rules found.*/\1/p')"
want=0
for f in "$chart"/files/prometheus/*.yaml; do
  c="$(promtool check rules "$f" 2>&1 | sed -n 's/.*SUCCESS: \([0-9]*\) rules found.*/\1/p')"
  want=$((want + ${c:-0}))
done
[ "$got" = "$want" ] || fail "the PrometheusRule has $got rules, files/prometheus/ $want"
ok "$got rules"

check "deploy/k8s/fabricpulse.yaml in sync with the chart"
out="$(HELM="$(command -v helm)" scripts/render-manifests.sh --check 2>&1)" || { echo "$out"; fail "run scripts/render-manifests.sh"; }
ok

check "chart files/ in sync with deploy/ (scripts/sync-chart-assets.sh --check)"
out="$(scripts/sync-chart-assets.sh --check 2>&1)" || { echo "$out"; fail "run scripts/sync-chart-assets.sh"; }
ok "${out#sync-chart-assets: }"

check "yamllint: values, ci values, bad values, deploy/k8s manifests, rendered gpu/monitoring"
lint_conf='{extends: default, rules: {line-length: {max: 120}, indentation: {indent-sequences: whatever}}}'
out="$(yamllint --strict -d "$lint_conf" "$chart/values.yaml" "$chart/Chart.yaml" "$chart"/ci/*.yaml \
  tests/deploy/bad-values.yaml deploy/k8s/fabricpulse.yaml 2>&1)" || { echo "$out"; fail "yamllint"; }
# Rendered variants embed dashboards and rule text written elsewhere: no
# line-length limit there.
lint_conf_rendered='{extends: default, rules: {line-length: disable, indentation: {indent-sequences: whatever}}}'
out="$(yamllint --strict -d "$lint_conf_rendered" "$tmp/gpu.yaml" "$tmp/monitoring.yaml" 2>&1)" \
  || { echo "$out"; fail "yamllint (rendered)"; }
ok

echo
echo "check_chart: $n checks passed in $((SECONDS - t0)) s"
