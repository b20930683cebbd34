#!/usr/bin/env bash
# Checks the Helm chart (helm/fabricpulse) and the plain manifests rendered
# from it, offline, with real tools (installed into .tools/ by
# scripts/install-deploy-tools.sh, which this runs first):
#   - the default values refuse to render (no TLS material) with a message
#     naming the ways out; helm lint and helm template with the ci/ profiles
#     (tls-secrets = the default profile with its own Secrets, gpu,
#     monitoring, kubernetes-integration) and tls.insecure=true;
#     tests/deploy/bad-values.yaml and a few --set mistakes refused by
#     values.schema.json (and by the templates' own checks);
#   - the chart's defaults: ServiceMonitors with enabled=auto rendered with
#     --api-versions monitoring.coreos.com/v1 (the operator's CRDs) and not
#     without it, true / false forcing them; the metrics NetworkPolicy source
#     (default: namespace "monitoring"; namespaces + podSelector, peers,
#     none); the coordinator's PodDisruptionBudget (maxUnavailable 1; 0 with
#     unhealthyPodEvictionPolicy from Kubernetes 1.27; off); namespaceOverride
#     putting every namespaced object in it;
#   - every rendered object validated against the Kubernetes, prometheus-
#     operator and cert-manager schemas plus cross-object checks
#     (tests/deploy/validate_k8s.mjs), and the chart's security wiring (TLS
#     env and mounts, identities, NetworkPolicy peers:
#     tests/deploy/chart_security.mjs);
#   - GPU sharing (tests/deploy/gpu_sharing.mjs): no pod requests a GPU
#     resource; the gpu profile's agent gets every GPU through the NVIDIA
#     runtime (runtimeClassName, NVIDIA_VISIBLE_DEVICES=all,
#     NVIDIA_DRIVER_CAPABILITIES=compute,utility), the others none of it;
#   - node verdicts for Kubernetes (tests/deploy/node_integration.mjs): the
#     NFD NodeFeatureRule of deploy/nfd/ against NFD's documented rule format
#     (a strict schema of the fields it uses), tainting the "fail" verdict
#     only; deploy/npd/fabricpulse-monitor.json as NPD validates it and
#     identical to the chart's ConfigMap; the agent's
#     hostPath folders, init container, per-node labels ConfigMap and uid 0
#     with every capability dropped when on, none of it when off;
#   - Pod Security Standards (tests/deploy/pss_check.mjs, the admission
#     plugin's checks ported, first held to the upstream fixtures):
#     "restricted" for every profile but gpu and kubernetes-integration, at
#     latest and at v1.25 (the chart's oldest Kubernetes); the gpu and
#     kubernetes-integration agents fail "baseline" on exactly the checks
#     their README sections name; mutations of the chart's own pods
#     (privileged, hostNetwork, hostPath, runAsNonRoot missing, capabilities
#     not dropped, seccomp missing, allowPrivilegeEscalation, root) are denied;
#   - ajv (draft-07) validates values.yaml and the ci values against the schema;
#     the shipped coordinator config passes the schema's config part;
#   - the PrometheusRule's rules pass `promtool check rules` and hold every
#     rule of deploy/prometheus/;
#   - deploy/k8s/fabricpulse.yaml and the chart's files/ copies are current;
#   - yamllint on the values files, the rendered manifests and deploy/nfd/.
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

# Name, values arguments. The default values render nothing (no TLS
# material): "secrets" is the default profile with its own TLS Secrets.
declare -A variants=(
  [secrets]="-f $chart/ci/tls-secrets-values.yaml"
  [gpu]="-f $chart/ci/gpu-values.yaml"
  [monitoring]="-f $chart/ci/monitoring-values.yaml"
  [integration]="-f $chart/ci/kubernetes-integration-values.yaml"
  [insecure]="--set tls.insecure=true"
)
names="secrets gpu monitoring integration insecure"
# Objects each variant must render (kind=count), so a template that silently
# renders nothing is caught.
declare -A expected=(
  [secrets]="--expect Deployment=1 --expect DaemonSet=1 --expect Service=2 --expect ConfigMap=1 --expect PersistentVolumeClaim=1 --expect ServiceAccount=1 --expect Role=0 --expect ClusterRole=0 --expect NetworkPolicy=2 --expect PodDisruptionBudget=1 --expect ServiceMonitor=0 --expect Certificate=0 --expect Secret=0"
  [gpu]="--expect Deployment=1 --expect DaemonSet=1 --expect Service=2 --expect PersistentVolumeClaim=1 --expect NetworkPolicy=1 --expect PodDisruptionBudget=1 --expect Certificate=2 --expect Issuer=0"
  [monitoring]="--expect ServiceMonitor=2 --expect PrometheusRule=1 --expect NetworkPolicy=2 --expect PodDisruptionBudget=1 --expect ConfigMap=$((2 + $(ls $chart/files/grafana/*.json 2>/dev/null | wc -l))) --expect Certificate=9 --expect Issuer=2 --expect Secret=1"
  [integration]="--expect Deployment=1 --expect DaemonSet=1 --expect Service=2 --expect ConfigMap=3 --expect NetworkPolicy=2 --expect PodDisruptionBudget=1 --expect Certificate=0 --expect Secret=0"
  [insecure]="--expect Deployment=1 --expect DaemonSet=1 --expect NetworkPolicy=2 --expect PodDisruptionBudget=1 --expect ServiceMonitor=0 --expect Certificate=0 --expect Secret=0"
)
# Secrets the profiles expect the user to create (bring your own).
external="--external-secret fabricpulse-coordinator-tls --external-secret fabricpulse-agent-tls --external-secret fabricpulse-scrape-auth"

check "default values refuse to render without TLS material"
if helm template fabricpulse "$chart" >/dev/null 2>"$tmp/notls.err"; then
  fail "helm template rendered the default values (no TLS material) instead of refusing"
fi
# (helm lint runs templates in lint mode, where `fail` is only logged.)
for marker in "tls: no TLS material for the coordinator" "tls.certManager.enabled=true" \
  "tls.coordinator.existingSecret" "tls.insecure=true"; do
  grep -qF -- "$marker" "$tmp/notls.err" || { cat "$tmp/notls.err"; fail "the refusal does not name $marker"; }
done
ok "$(grep -o 'tls: no TLS material for the coordinator' "$tmp/notls.err")"

for v in $names; do
  check "helm lint ($v values)"
  # shellcheck disable=SC2086
  out="$(helm lint --strict "$chart" ${variants[$v]} 2>&1)" || { echo "$out"; fail "helm lint $v"; }
  ok
done

for v in $names; do
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
  "/agent/hostNetwork" "'LD_PRELOAD'" "/agent/shm/sizeLimit" "/agent/labels" "invalid propertyName 'Rack_A'" \
  "/agent/nodeLabels/node-b" "/agent/nfd/enabled" "/agent/npd/hostDir" "/agent/npd/namespace"; do
  grep -qF -- "$marker" "$tmp/bad.err" || { cat "$tmp/bad.err"; fail "the schema error does not name $marker"; }
done
ok "16 problems named"

check "mistakes refused by the schema and templates (--set)"
refused=0
base="-f $chart/ci/tls-secrets-values.yaml"
while IFS='|' read -r args want; do
  [ -n "$args" ] || continue
  args="${args//BASE/$base}"
  # shellcheck disable=SC2086
  if helm template fabricpulse "$chart" $args >/dev/null 2>"$tmp/set.err"; then
    fail "accepted: $args"
  fi
  grep -qF -- "$want" "$tmp/set.err" || { cat "$tmp/set.err"; fail "'$args' refused without naming '$want'"; }
  refused=$((refused + 1))
done <<'EOF'
--set agent.gpu.count=8|count
--set agent.gpu.runtimeClassName=NVIDIA|/agent/gpu/runtimeClassName
--set agent.gpu.visibleDevices=everything|/agent/gpu/visibleDevices
--set-string agent.grpcPort=x|/agent/grpcPort
--set agent.updateStrategy.maxUnavailable=0|/agent/updateStrategy/maxUnavailable
--set metrics.serviceMonitor.interval=30|/metrics/serviceMonitor/interval
--set image.digest=sha256:abc|/image/digest
--set coordinator.config.baseline.threshold=1.5|/coordinator/config/baseline/threshold
--set coordinator.config.plans.p.placement=sideways|/coordinator/config/plans/p/placement
--set coordinator.config.plans.p.typo=1|'typo' not allowed
BASE --set agent.hostNetwork=true|networkPolicy.nodeCIDRs
--set tls.coordinator.existingSecret=c|tls: no TLS material for the agents
--set tls.insecure=true --set tls.coordinator.existingSecret=c|tls.insecure=true cannot be combined
--set tls.certManager.enabled=true|tls.certManager.issuerRef.name
--set tls.certManager.enabled=true --set tls.certManager.createCA=true|tls.certManager.agentNodes
--set tls.insecure=true --set tls.agent.source=vault|/tls/agent/source
--set tls.insecure=true --set tls.trustDomain=Fabric/Pulse|/tls/trustDomain
--set tls.insecure=true --set tls.certManager.agentNodes[0]=Node_A|/tls/certManager/agentNodes/0
--set tls.insecure=true --set tls.certManager.clients[0].name=x --set tls.certManager.clients[0].role=admin|/tls/certManager/clients/0/role
--set tls.insecure=true --set-string metrics.webConfig.basicAuthUsers.prometheus=hunter2|/metrics/webConfig/basicAuthUsers/prometheus
--set tls.insecure=true --set metrics.webConfig.tls.enabled=true|metrics.webConfig.tls.existingSecret
--set tls.insecure=true --set metrics.serviceMonitor.enabled=true --set metrics.webConfig.tls.enabled=true --set metrics.webConfig.tls.existingSecret=m|metrics.serviceMonitor.tlsSecretName
--set tls.insecure=true --set authz.policy.name=p|missing property 'allow_rules'
BASE --set agent.nodeLabels.node-a=rack=r1 --set agent.nodeLabelsConfigMap=mine|agent.nodeLabels and agent.nodeLabelsConfigMap are mutually exclusive
--set-string agent.nodeLabels.node-a=rack=r1;zone=a|/agent/nodeLabels/node-a
--set agent.nodeLabels.Node_A=rack=r1|invalid propertyName 'Node_A'
--set agent.labels=rack|/agent/labels
--set agent.nfd.featuresDir=/etc/../x|/agent/nfd/featuresDir
--set agent.npd.hostDir=/|/agent/npd/hostDir
--set agent.npd.hostDir=/var/lib/fabric$(id)|/agent/npd/hostDir
--set agent.nodeLabelsConfigMap=Rack_Labels|/agent/nodeLabelsConfigMap
--set agent.npd.typo=1|'typo' not allowed
--set metrics.serviceMonitor.enabled=yes|/metrics/serviceMonitor/enabled
--set coordinator.podDisruptionBudget.maxUnavailable=2|/coordinator/podDisruptionBudget/maxUnavailable
--set coordinator.podDisruptionBudget.minAvailable=1|'minAvailable' not allowed
--set namespaceOverride=Fabric_Pulse|/namespaceOverride
--set networkPolicy.metricsFrom[0].ipBlock.cidr=10.0.0.0/8|'metricsFrom' not allowed
--set networkPolicy.metrics.source=everyone|/networkPolicy/metrics/source
--set networkPolicy.metrics.source=peers|/networkPolicy/metrics/peers
--set networkPolicy.metrics.namespaces=null|missing property 'namespaces'
--set networkPolicy.metrics.namespaces[0]=Monitoring|/networkPolicy/metrics/namespaces/0
--set networkPolicy.metrics.podSelector.app=prometheus|/networkPolicy/metrics/podSelector
--set networkPolicy.metrics.source=peers --set networkPolicy.metrics.peers[0].ipBlock.cidr=10.0.0.0/8 --set networkPolicy.metrics.peers[0].podSelector.matchLabels.app=p|/networkPolicy/metrics/peers/0
EOF
ok "$refused refused"

for v in $names; do
  check "kubernetes-models validation + cross-object checks ($v)"
  # shellcheck disable=SC2086
  out="$(node tests/deploy/validate_k8s.mjs ${expected[$v]} $external "$tmp/$v.yaml" 2>&1)" || { echo "$out"; fail "validate_k8s $v"; }
  ok "${out#validate_k8s: ok, }"
done

for v in $names; do
  check "TLS wiring, identities, NetworkPolicy peers ($v)"
  # shellcheck disable=SC2046
  out="$(node tests/deploy/chart_security.mjs $([ "$v" = insecure ] && echo --insecure) "$tmp/$v.yaml" 2>&1)" \
    || { echo "$out"; fail "chart_security $v"; }
  ok "${out#chart_security: ok, }"
done

for v in $names; do
  check "GPU sharing: no GPU resource requested; the NVIDIA runtime in GPU mode only ($v)"
  # shellcheck disable=SC2046
  out="$(node tests/deploy/gpu_sharing.mjs $([ "$v" = gpu ] && echo --gpu nvidia) "$tmp/$v.yaml" 2>&1)" \
    || { echo "$out"; fail "gpu_sharing $v"; }
  ok "${out#gpu_sharing: ok, }"
done

check "GPU mode on nodes whose default runtime is NVIDIA's (agent.gpu.runtimeClassName \"\")"
helm template fabricpulse "$chart" --namespace fabricpulse -f "$chart/ci/gpu-values.yaml" \
  --set agent.gpu.runtimeClassName= >"$tmp/gpu-default-runtime.yaml" 2>"$tmp/gpu-default-runtime.err" \
  || { cat "$tmp/gpu-default-runtime.err"; fail "helm template with agent.gpu.runtimeClassName=\"\""; }
out="$(node tests/deploy/gpu_sharing.mjs --gpu "" "$tmp/gpu-default-runtime.yaml" 2>&1)" \
  || { echo "$out"; fail "gpu_sharing with the default runtime"; }
ok

check "the GPU-sharing check itself rejects a GPU request and a GPU pod without the runtime"
cat >"$tmp/gpu-bad.yaml" <<'EOF'
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: x}
spec:
  template:
    spec:
      containers:
        - name: agent
          resources: {limits: {nvidia.com/gpu: 8}}
EOF
if node tests/deploy/gpu_sharing.mjs --gpu nvidia "$tmp/gpu-bad.yaml" >"$tmp/gpu-bad.out" 2>&1; then
  fail "gpu_sharing.mjs accepted a pod that requests nvidia.com/gpu"
fi
for marker in 'resources.limits["nvidia.com/gpu"]' 'runtimeClassName is ""' 'NVIDIA_VISIBLE_DEVICES is undefined'; do
  grep -qF -- "$marker" "$tmp/gpu-bad.out" || { cat "$tmp/gpu-bad.out"; fail "gpu_sharing missed: $marker"; }
done
ok

check "node verdicts: deploy/nfd NodeFeatureRule (NFD rule format, taints verdict fail only), deploy/npd monitor (NPD's rules)"
out="$(node tests/deploy/node_integration.mjs static 2>&1)" || { echo "$out"; fail "node_integration static"; }
ok "${out#node_integration: ok, }"

for v in $names; do
  check "node verdicts: the agent's NFD / NPD / per-node labels wiring ($v)"
  if [ "$v" = integration ]; then want="--expect nfd,npd,labels"; else want="--off"; fi
  # shellcheck disable=SC2086
  out="$(node tests/deploy/node_integration.mjs render $want "$tmp/$v.yaml" 2>&1)" \
    || { echo "$out"; fail "node_integration render $v"; }
  ok "${out#node_integration: ok, }"
done

check "node verdicts: default hostDir renders deploy/npd/fabricpulse-monitor.json byte for byte; other folders, own ConfigMap"
# shellcheck disable=SC2086
helm template fabricpulse "$chart" --namespace fabricpulse $base --set agent.npd.enabled=true \
  >"$tmp/npd-default.yaml" 2>"$tmp/npd-default.err" || { cat "$tmp/npd-default.err"; fail "helm template agent.npd.enabled=true"; }
out="$(node tests/deploy/node_integration.mjs render --expect npd --monitor-exact "$tmp/npd-default.yaml" 2>&1)" \
  || { echo "$out"; fail "the chart's NPD ConfigMap differs from deploy/npd/fabricpulse-monitor.json"; }
# shellcheck disable=SC2086
helm template fabricpulse "$chart" --namespace fabricpulse $base --set agent.npd.enabled=true \
  --set agent.npd.hostDir=/srv/fabricpulse --set agent.nfd.enabled=true --set agent.nfd.featuresDir=/srv/nfd/features.d \
  --set agent.nodeLabelsConfigMap=rack-labels >"$tmp/node-custom.yaml" 2>"$tmp/node-custom.err" \
  || { cat "$tmp/node-custom.err"; fail "helm template with other folders"; }
out="$(node tests/deploy/node_integration.mjs render --expect nfd,npd,labels --node-labels-configmap rack-labels \
  "$tmp/node-custom.yaml" 2>&1)" || { echo "$out"; fail "node_integration with other folders"; }
grep -q '"/srv/fabricpulse/bin/fabricpulse"' "$tmp/node-custom.yaml" || fail "hostDir /srv/fabricpulse is not in the NPD ConfigMap"
ok

check "the node-verdict check itself rejects a rule that taints suspect and a monitor NPD would refuse"
mkdir -p "$tmp/nfd-bad"
cat >"$tmp/nfd-bad/nodefeaturerule-taint-failed.yaml" <<'EOF'
apiVersion: nfd.k8s-sigs.io/v1alpha1
kind: NodeFeatureRule
metadata: {name: bad}
spec:
  rules:
    - name: bad
      taints: [{key: nccl-health, value: fail, effect: NoScheduled}]
      matchFeatures:
        - feature: local.label
          matchExpresions: {}
          matchExpressions:
            fabricpulse.io/nccl-health: {op: NotIn, value: [pass]}
EOF
sed -e 's/"args"/"arguments"/' -e 's/"timeout": "10s"$/"timeout": "20s"/' deploy/npd/fabricpulse-monitor.json >"$tmp/monitor-bad.json"
if node tests/deploy/node_integration.mjs --nfd-dir "$tmp/nfd-bad" --monitor "$tmp/monitor-bad.json" static >"$tmp/ni-bad.out" 2>&1; then
  fail "node_integration.mjs accepted a rule tainting suspect nodes and a monitor NPD refuses"
fi
for marker in '{"additionalProperty":"matchExpresions"}' "taint effect NoScheduled" "taint key nccl-health" \
  "verdict suspect is tainted" "verdict fail is not tainted" "unknown field arguments" "greater than the global timeout"; do
  grep -qF -- "$marker" "$tmp/ni-bad.out" || { cat "$tmp/ni-bad.out"; fail "node_integration missed: $marker"; }
done
ok

# q FILE EXPR: EXPR (JavaScript over `docs`, the objects of FILE, and
# byKind(KIND)) evaluated and printed as JSON.
q() {
  node --input-type=module -e '
    const [file, expr] = process.argv.slice(1);
    const { readFileSync } = await import("node:fs");
    const yaml = await import(process.env.FP_JSYAML);
    const docs = yaml.loadAll(readFileSync(file, "utf8")).filter((d) => d);
    const byKind = (k) => docs.filter((d) => d.kind === k);
    console.log(JSON.stringify(eval(expr)));
  ' "$1" "$2"
}
export FP_JSYAML="file://$root/.tools/node/node_modules/js-yaml/dist/js-yaml.mjs"
# same WHAT GOT EXPECTED: fails naming WHAT when they differ.
same() { [ "$2" = "$3" ] || { printf 'want: %s\ngot:  %s\n' "$3" "$2"; fail "$1"; }; }
# render NAME ARGS...: helm template with ARGS into $tmp/NAME.yaml.
render() {
  local name="$1"; shift
  helm template fabricpulse "$chart" "$@" >"$tmp/$name.yaml" 2>"$tmp/$name.err" \
    || { cat "$tmp/$name.err"; fail "helm template $*"; }
}

check "ServiceMonitor: enabled=auto (the default) renders it only where monitoring.coreos.com/v1 is served; true / false force it"
# The test rule: the chart renders with and without the operator's CRDs
# (helm template --api-versions stands in for the API server's discovery).
# NAME|ServiceMonitors wanted|helm template arguments
sm_cases=0
while IFS='|' read -r name count args; do
  [ -n "$name" ] || continue
  # shellcheck disable=SC2086
  render "sm-$name" --namespace fabricpulse $base $args
  # shellcheck disable=SC2086
  out="$(node tests/deploy/validate_k8s.mjs --expect ServiceMonitor="$count" --expect PodDisruptionBudget=1 $external \
    "$tmp/sm-$name.yaml" 2>&1)" || { echo "$out"; fail "ServiceMonitor case $name ($args): want $count ServiceMonitors"; }
  out="$(node tests/deploy/chart_security.mjs "$tmp/sm-$name.yaml" 2>&1)" || { echo "$out"; fail "chart_security, ServiceMonitor case $name"; }
  sm_cases=$((sm_cases + 1))
done <<'EOF'
no-crds|0|
crds|2|--api-versions monitoring.coreos.com/v1
crds-kind|2|--api-versions monitoring.coreos.com/v1/ServiceMonitor
crds-off|0|--api-versions monitoring.coreos.com/v1 --set metrics.serviceMonitor.enabled=false
no-crds-forced|2|--set metrics.serviceMonitor.enabled=true
no-crds-off|0|--set metrics.serviceMonitor.enabled=false
EOF
# Without the CRDs nothing of the operator's API may be rendered: the API
# server would refuse the whole install.
! grep -q '^apiVersion: monitoring.coreos.com/' "$tmp/sm-no-crds.yaml" \
  || fail "the default values without the operator's CRDs render a monitoring.coreos.com object"
# auto with the monitoring profile (basic auth, TLS with client certificates):
# nothing and no refusal without the CRDs; the same ServiceMonitors as
# enabled=true with them.
render sm-mon-auto --namespace fabricpulse -f "$chart/ci/monitoring-values.yaml" --set metrics.serviceMonitor.enabled=auto
same "monitoring profile, enabled=auto without the CRDs" "$(q "$tmp/sm-mon-auto.yaml" 'byKind("ServiceMonitor").length')" 0
render sm-mon-auto-crds --namespace fabricpulse -f "$chart/ci/monitoring-values.yaml" --set metrics.serviceMonitor.enabled=auto \
  --api-versions monitoring.coreos.com/v1
diff <(q "$tmp/sm-mon-auto-crds.yaml" 'byKind("ServiceMonitor")') <(q "$tmp/monitoring.yaml" 'byKind("ServiceMonitor")') >/dev/null \
  || fail "monitoring profile: enabled=auto with the CRDs does not render the ServiceMonitors enabled=true does"
ok "$sm_cases cases; monitoring profile auto = true with the CRDs, nothing without"

check "NetworkPolicy metrics source: default namespace \"monitoring\"; namespaces + podSelector; peers; none"
# The metrics rules' peers of each policy (coordinator, agents).
metrics_from='byKind("NetworkPolicy").map((np) => (np.spec.ingress ?? []).filter((r) => (r.ports ?? []).some((p) => p.port === "metrics")).map((r) => r.from))'
mon='{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"monitoring"}}}'
same "the default admits namespace monitoring only, on both policies' metrics ports" \
  "$(q "$tmp/secrets.yaml" "$metrics_from")" "[[[$mon]],[[$mon]]]"
# shellcheck disable=SC2016  # Markdown backquotes, not a command
grep -qF '`networkPolicy.metrics` (default: `source: namespaces`, `namespaces: [monitoring]`' "$chart/README.md" \
  || fail "the chart README's NetworkPolicy table does not document the metrics source default"
cat >"$tmp/np-namespaces.values.yaml" <<'EOF'
networkPolicy:
  metrics:
    namespaces: [prometheus, observability]
    podSelector:
      matchLabels:
        app.kubernetes.io/name: prometheus
EOF
cat >"$tmp/np-peers.values.yaml" <<'EOF'
networkPolicy:
  metrics:
    source: peers
    peers:
      - ipBlock: {cidr: 10.30.0.0/16}
      - namespaceSelector: {matchLabels: {team: observability}}
EOF
ns_peer() { printf '{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"%s"}},"podSelector":{"matchLabels":{"app.kubernetes.io/name":"prometheus"}}}' "$1"; }
two="[$(ns_peer prometheus),$(ns_peer observability)]"
peers='[{"ipBlock":{"cidr":"10.30.0.0/16"}},{"namespaceSelector":{"matchLabels":{"team":"observability"}}}]'
while IFS='|' read -r name args expected; do
  [ -n "$name" ] || continue
  args="${args//TMP/$tmp}"
  # shellcheck disable=SC2086
  render "np-$name" --namespace fabricpulse $base $args
  expected="${expected//TWO/$two}"
  same "networkPolicy.metrics case $name" "$(q "$tmp/np-$name.yaml" "$metrics_from")" "${expected//PEERS/$peers}"
  # gRPC and agent-to-agent rules are untouched: 1 rule on the coordinator,
  # 2 on the agents, plus the metrics rule unless none.
  rules="$(q "$tmp/np-$name.yaml" 'byKind("NetworkPolicy").map((np) => np.spec.ingress.length)')"
  same "networkPolicy.metrics case $name: rule counts" "$rules" "$([ "$name" = none ] && echo '[1,2]' || echo '[2,3]')"
  out="$(node tests/deploy/chart_security.mjs "$tmp/np-$name.yaml" 2>&1)" || { echo "$out"; fail "chart_security, networkPolicy.metrics case $name"; }
  # shellcheck disable=SC2086
  out="$(node tests/deploy/validate_k8s.mjs --expect NetworkPolicy=2 $external "$tmp/np-$name.yaml" 2>&1)" \
    || { echo "$out"; fail "validate_k8s, networkPolicy.metrics case $name"; }
done <<'EOF'
namespaces|-f TMP/np-namespaces.values.yaml|[[TWO],[TWO]]
peers|-f TMP/np-peers.values.yaml|[[PEERS],[PEERS]]
none|--set networkPolicy.metrics.source=none|[[],[]]
EOF
ok "default: namespace monitoring; namespaces + podSelector, peers, none"

check "PodDisruptionBudget: the coordinator's, maxUnavailable 1 by default (drains move it); 0 waits, AlwaysAllow for an unready pod (1.27+); off"
pdb='byKind("PodDisruptionBudget").map((p) => [p.metadata.namespace + "/" + p.metadata.name, p.spec.maxUnavailable, p.spec.minAvailable ?? null, p.spec.unhealthyPodEvictionPolicy ?? null])'
same "default PodDisruptionBudget" "$(q "$tmp/secrets.yaml" "$pdb")" '[["fabricpulse/fabricpulse-coordinator",1,null,null]]'
# It selects the coordinator's pods, and nothing else of the release.
selects='(() => { const sel = byKind("PodDisruptionBudget")[0].spec.selector.matchLabels; const m = (l) => Object.entries(sel).every(([k, v]) => l?.[k] === v); return [...byKind("Deployment"), ...byKind("DaemonSet")].filter((w) => m(w.spec.template.metadata.labels)).map((w) => w.kind + "/" + w.metadata.name); })()'
same "the PodDisruptionBudget's selector" "$(q "$tmp/secrets.yaml" "$selects")" '["Deployment/fabricpulse-coordinator"]'
while IFS='|' read -r name args expected; do
  [ -n "$name" ] || continue
  # shellcheck disable=SC2086
  render "pdb-$name" --namespace fabricpulse $base $args
  same "PodDisruptionBudget case $name" "$(q "$tmp/pdb-$name.yaml" "$pdb")" "$expected"
  # shellcheck disable=SC2086
  out="$(node tests/deploy/validate_k8s.mjs $external "$tmp/pdb-$name.yaml" 2>&1)" || { echo "$out"; fail "validate_k8s, PodDisruptionBudget case $name"; }
done <<'EOF'
zero|--set coordinator.podDisruptionBudget.maxUnavailable=0|[["fabricpulse/fabricpulse-coordinator",0,null,"AlwaysAllow"]]
zero-1.26|--set coordinator.podDisruptionBudget.maxUnavailable=0 --kube-version 1.26.0|[["fabricpulse/fabricpulse-coordinator",0,null,null]]
default-1.25|--kube-version 1.25.0|[["fabricpulse/fabricpulse-coordinator",1,null,null]]
off|--set coordinator.podDisruptionBudget.enabled=false|[]
EOF
ok

check "namespaceOverride: every namespaced object in it, the release namespace named nowhere"
# Each profile's own per-object namespaces (dashboards, NPD plugin) are
# cleared here: then everything must land in the override.
while IFS='|' read -r name args; do
  [ -n "$name" ] || continue
  # shellcheck disable=SC2086
  render "ns-$name" --namespace helm-release-ns --set namespaceOverride=fp-override $args
  same "namespaceOverride ($name): namespaces of the objects" \
    "$(q "$tmp/ns-$name.yaml" '[...new Set(docs.map((d) => d.metadata?.namespace ?? "(none)"))]')" '["fp-override"]'
  ! grep -n 'helm-release-ns' "$tmp/ns-$name.yaml" || fail "namespaceOverride ($name): the release namespace is still named (above)"
  grep -q 'value: "fabricpulse-coordinator.fp-override.svc.cluster.local:7070"' "$tmp/ns-$name.yaml" \
    || fail "namespaceOverride ($name): the agents do not dial the coordinator in fp-override"
  grep -q 'kubernetes.io/metadata.name: fp-override' "$tmp/ns-$name.yaml" \
    || fail "namespaceOverride ($name): the NetworkPolicy peers are not pinned to fp-override"
  # shellcheck disable=SC2086
  out="$(node tests/deploy/validate_k8s.mjs $external "$tmp/ns-$name.yaml" 2>&1)" || { echo "$out"; fail "validate_k8s, namespaceOverride ($name)"; }
  out="$(node tests/deploy/chart_security.mjs "$tmp/ns-$name.yaml" 2>&1)" || { echo "$out"; fail "chart_security, namespaceOverride ($name)"; }
done <<'EOF'
monitoring|-f helm/fabricpulse/ci/monitoring-values.yaml --set metrics.grafanaDashboards.namespace= --api-versions monitoring.coreos.com/v1
integration|-f helm/fabricpulse/ci/kubernetes-integration-values.yaml --set agent.npd.namespace=
EOF
same "monitoring profile: ServiceMonitors scrape Services of fp-override" \
  "$(q "$tmp/ns-monitoring.yaml" '[...new Set(byKind("ServiceMonitor").flatMap((s) => s.spec.namespaceSelector.matchNames))]')" '["fp-override"]'
# A namespace set for one object still wins over the override.
render ns-npd --namespace helm-release-ns --set namespaceOverride=fp-override -f "$chart/ci/kubernetes-integration-values.yaml"
same "namespaceOverride with agent.npd.namespace=kube-system" \
  "$(q "$tmp/ns-npd.yaml" 'docs.filter((d) => d.metadata.namespace !== "fp-override").map((d) => d.kind + "/" + d.metadata.namespace + "/" + d.metadata.name)')" \
  '["ConfigMap/kube-system/fabricpulse-npd-plugin"]'
ok "monitoring ($(grep -c '^kind:' "$tmp/ns-monitoring.yaml") objects) and kubernetes-integration profiles"

check "the security check itself rejects a label-copyable peer and missing TLS"
cat >"$tmp/np-bad.yaml" <<'EOF'
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: np, namespace: x, labels: {app.kubernetes.io/component: agent}}
spec:
  podSelector: {}
  ingress:
    - ports: [{port: grpc}]
      from: [{podSelector: {matchLabels: {app.kubernetes.io/instance: fabricpulse}}}]
EOF
if node tests/deploy/chart_security.mjs "$tmp/insecure.yaml" "$tmp/np-bad.yaml" >"$tmp/sec.out" 2>&1; then
  fail "chart_security.mjs accepted a plaintext render and a bare pod-selector peer"
fi
for marker in "FABRICPULSE_TLS_CERT is not set" "not pinned to a namespace" "admits more than the coordinator"; do
  grep -qF "$marker" "$tmp/sec.out" || { cat "$tmp/sec.out"; fail "chart_security missed: $marker"; }
done
ok

check "Pod Security checker agrees with the upstream fixtures (tests/deploy/pss-fixtures)"
out="$(node tests/deploy/pss_check.mjs --conformance tests/deploy/pss-fixtures 2>&1)" || { echo "$out"; fail "pss_check conformance"; }
ok "$(echo "$out" | sed -n 's/^pss_check: ok, \([0-9]* of [0-9]*\) .*/\1/p') agree"

for v in secrets monitoring insecure; do
  check "Pod Security restricted, latest and v1.25 ($v)"
  for ver in latest v1.25; do
    out="$(node tests/deploy/pss_check.mjs --level restricted --version $ver "$tmp/$v.yaml" 2>&1)" \
      || { echo "$out"; fail "$v does not pass Pod Security restricted:$ver"; }
  done
  ok "$(echo "$out" | grep -c '^ok ') pod templates"
done

check "Pod Security, kubernetes-integration profile: coordinator restricted; the agent fails baseline as documented"
node tests/deploy/pss_check.mjs --level restricted "$tmp/integration.yaml" >"$tmp/int-pss.out" 2>&1 || true
grep -q '^ok   Deployment/fabricpulse-coordinator ' "$tmp/int-pss.out" \
  || { cat "$tmp/int-pss.out"; fail "the kubernetes-integration coordinator does not pass restricted"; }
if node tests/deploy/pss_check.mjs --level baseline "$tmp/integration.yaml" >"$tmp/int-pss.out" 2>&1; then
  fail "the kubernetes-integration agent passes baseline: update the chart README's Kubernetes integration section and this check"
fi
# helm/fabricpulse/README.md, "Kubernetes integration", explains this one.
want='DENY DaemonSet/fabricpulse-agent (integration.yaml): violates PodSecurity "baseline:latest": hostPath volumes (volumes "nfd-features", "npd-host")'
got="$(grep '^DENY' "$tmp/int-pss.out")"
[ "$got" = "$want" ] || { printf 'want: %s\ngot:  %s\n' "$want" "$got"; fail "the kubernetes-integration agent's baseline violations changed"; }
ok "baseline relaxed: hostPath (nfd-features, npd-host); uid 0 fails restricted only"

check "Pod Security restricted, latest and v1.25, with per-node labels alone (agent.nodeLabels)"
# shellcheck disable=SC2086
helm template fabricpulse "$chart" --namespace fabricpulse $base --set agent.nodeLabels.node-a=rack=r1 \
  >"$tmp/node-labels.yaml" 2>"$tmp/node-labels.err" || { cat "$tmp/node-labels.err"; fail "helm template agent.nodeLabels"; }
for ver in latest v1.25; do
  out="$(node tests/deploy/pss_check.mjs --level restricted --version $ver "$tmp/node-labels.yaml" 2>&1)" \
    || { echo "$out"; fail "agent.nodeLabels does not pass Pod Security restricted:$ver"; }
done
ok

check "Pod Security, gpu profile: coordinator restricted; the agent fails baseline as documented"
node tests/deploy/pss_check.mjs --level restricted "$tmp/gpu.yaml" >"$tmp/gpu-pss.out" 2>&1 || true
grep -q '^ok   Deployment/fabricpulse-coordinator ' "$tmp/gpu-pss.out" \
  || { cat "$tmp/gpu-pss.out"; fail "the gpu coordinator does not pass restricted"; }
if node tests/deploy/pss_check.mjs --level baseline "$tmp/gpu.yaml" >"$tmp/gpu-pss.out" 2>&1; then
  fail "the gpu agent passes baseline: update the chart README's GPU / RDMA section and this check"
fi
# helm/fabricpulse/README.md, "GPU / RDMA profile", explains these three.
want='DENY DaemonSet/fabricpulse-agent (gpu.yaml): violates PodSecurity "baseline:latest": non-default capabilities (container "agent" must not include "IPC_LOCK" in securityContext.capabilities.add), host namespaces (hostNetwork=true), hostPath volumes (volume "tls")'
got="$(grep '^DENY' "$tmp/gpu-pss.out")"
[ "$got" = "$want" ] || { printf 'want: %s\ngot:  %s\n' "$want" "$got"; fail "the gpu agent's baseline violations changed"; }
ok "baseline relaxed: capabilities (IPC_LOCK), host namespaces (hostNetwork), hostPath (tls)"

check "Pod Security denies mutations of the chart's own agent pod"
denied=0
while IFS='|' read -r level args want; do
  [ -n "$level" ] || continue
  # shellcheck disable=SC2086
  helm template fabricpulse "$chart" --namespace fabricpulse $base $args >"$tmp/mut.yaml" 2>"$tmp/mut.err" \
    || { cat "$tmp/mut.err"; fail "helm template $args"; }
  if node tests/deploy/pss_check.mjs --level "$level" "$tmp/mut.yaml" >"$tmp/mut.out" 2>&1; then
    fail "Pod Security $level accepted: $args"
  fi
  grep '^DENY DaemonSet/' "$tmp/mut.out" | grep -qF -- "$want" || { cat "$tmp/mut.out"; fail "'$args' denied without '$want'"; }
  denied=$((denied + 1))
done <<'EOF'
baseline|--set agent.securityContext.privileged=true|privileged (container "agent" must not set securityContext.privileged=true)
baseline|--set agent.hostNetwork=true --set networkPolicy.nodeCIDRs[0]=10.0.0.0/8|host namespaces (hostNetwork=true)
baseline|--set tls.agent.source=hostPath --set tls.agent.existingSecret=|hostPath volumes (volume "tls")
restricted|--set agent.securityContext.runAsNonRoot=null|runAsNonRoot != true (pod or container "agent" must set securityContext.runAsNonRoot=true)
restricted|--set agent.securityContext.capabilities=null|unrestricted capabilities (container "agent" must set securityContext.capabilities.drop=["ALL"])
restricted|--set agent.podSecurityContext.seccompProfile=null|seccompProfile (pod or container "agent" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")
restricted|--set agent.securityContext.allowPrivilegeEscalation=true|allowPrivilegeEscalation != false (container "agent" must set securityContext.allowPrivilegeEscalation=false)
restricted|--set agent.rdma.enabled=true --set agent.rdma.mountDevices=false|runAsUser=0 (container "agent" must not set runAsUser=0)
baseline|--set agent.nfd.enabled=true|hostPath volumes (volume "nfd-features")
restricted|--set agent.nfd.enabled=true|runAsUser=0 (container "agent" must not set runAsUser=0)
restricted|--set agent.npd.enabled=true|runAsNonRoot != true (containers "copy-cli", "agent" must not set securityContext.runAsNonRoot=false)
EOF
ok "$denied denied, each naming its check"

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
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: broken, namespace: x}
spec:
  secretName: s
  uris: [spiffe://fabricpulse/agent/a]
  privateKey: {algorithm: DSA}
  issuerRef: {name: missing, kind: Issuer}
EOF
if node tests/deploy/validate_k8s.mjs "$tmp/broken.yaml" >"$tmp/broken.out" 2>&1; then
  fail "validate_k8s.mjs accepted broken objects"
fi
for marker in "containerPort must be integer" "port must be string" "selector does not match" \
  "Certificate/broken: schema" "Issuer missing is not rendered"; do
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
node tests/deploy/validate_k8s.mjs $external --rules-out "$tmp/rules.yaml" "$tmp/monitoring.yaml" >/dev/null \
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

check "yamllint: values, ci values, bad values, deploy/k8s manifests, deploy/nfd (80 columns), rendered secrets/gpu/monitoring/integration"
lint_conf='{extends: default, rules: {line-length: {max: 120}, indentation: {indent-sequences: whatever}}}'
out="$(yamllint --strict -d "$lint_conf" "$chart/values.yaml" "$chart/Chart.yaml" "$chart"/ci/*.yaml \
  tests/deploy/bad-values.yaml deploy/k8s/fabricpulse.yaml 2>&1)" || { echo "$out"; fail "yamllint"; }
# Rendered variants embed dashboards and rule text written elsewhere: no
# line-length limit there.
lint_conf_rendered='{extends: default, rules: {line-length: disable, indentation: {indent-sequences: whatever}}}'
out="$(yamllint --strict -d "$lint_conf_rendered" "$tmp/secrets.yaml" "$tmp/gpu.yaml" "$tmp/monitoring.yaml" \
  "$tmp/integration.yaml" 2>&1)" || { echo "$out"; fail "yamllint (rendered)"; }
# Shipped for kubectl apply: the project's 80 columns.
out="$(yamllint --strict -d '{extends: default, rules: {line-length: {max: 80}}}' deploy/nfd/*.yaml 2>&1)" \
  || { echo "$out"; fail "yamllint deploy/nfd"; }
ok

echo
echo "check_chart: $n checks passed in $((SECONDS - t0)) s"
