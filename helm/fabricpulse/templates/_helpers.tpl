{{/* Chart name, truncated to a DNS label. */}}
{{- define "fabricpulse.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Full name: "<release>-<chart>", or the release name alone when it already
contains the chart name. Kept to 50 characters so that "-coordinator" and
"-dashboard-..." suffixes still fit in 63.
*/}}
{{- define "fabricpulse.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 50 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The namespace of every namespaced object: namespaceOverride, else the
release's (helm -n). Objects with a namespace of their own (ServiceMonitors,
PrometheusRule, dashboards, the NPD plugin ConfigMap) default to it too.
*/}}
{{- define "fabricpulse.namespace" -}}
{{- default .Release.Namespace .Values.namespaceOverride }}
{{- end }}

{{- define "fabricpulse.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels common to every object. */}}
{{- define "fabricpulse.labels" -}}
helm.sh/chart: {{ include "fabricpulse.chart" . }}
app.kubernetes.io/name: {{ include "fabricpulse.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: fabricpulse
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Selector of every pod of this release (used by NetworkPolicy). */}}
{{- define "fabricpulse.releaseSelectorLabels" -}}
app.kubernetes.io/name: {{ include "fabricpulse.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Selector labels of one component: include with (dict "ctx" $ "component" "agent"). */}}
{{- define "fabricpulse.selectorLabels" -}}
{{ include "fabricpulse.releaseSelectorLabels" .ctx }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "fabricpulse.componentLabels" -}}
{{ include "fabricpulse.labels" .ctx }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "fabricpulse.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "fabricpulse.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "fabricpulse.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{- define "fabricpulse.coordinatorName" -}}
{{- printf "%s-coordinator" (include "fabricpulse.fullname" .) }}
{{- end }}

{{- define "fabricpulse.agentName" -}}
{{- printf "%s-agent" (include "fabricpulse.fullname" .) }}
{{- end }}

{{/* host:port the agents (and in-cluster CLIs) dial. */}}
{{- define "fabricpulse.coordinatorAddress" -}}
{{- printf "%s.%s.svc.%s:%d" (include "fabricpulse.coordinatorName" .) (include "fabricpulse.namespace" .) .Values.clusterDomain (int .Values.coordinator.grpcPort) }}
{{- end }}

{{/* The coordinator config file's text. */}}
{{- define "fabricpulse.coordinatorConfig" -}}
{{- if .Values.coordinator.config }}
{{- toYaml .Values.coordinator.config }}
{{- else }}
{{- $shipped := .Files.Get "files/config/coordinator.yaml" }}
{{- if $shipped }}
{{- $shipped }}
{{- else }}
{{- /* No default config copied into the chart: an empty config is valid (no plans, no schedules). */}}
{{- "{}" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "fabricpulse.metricsNamespace" -}}
{{- default (include "fabricpulse.namespace" .ctx) .ns }}
{{- end }}

{{/*
"true" when the ServiceMonitors are rendered, else "".
metrics.serviceMonitor.enabled true / false force it; "auto" renders them
when the cluster serves the prometheus-operator's API, as .Capabilities says
(helm install / upgrade ask the API server; helm template knows nothing
unless given --api-versions monitoring.coreos.com/v1, or
monitoring.coreos.com/v1/ServiceMonitor).
*/}}
{{- define "fabricpulse.serviceMonitorEnabled" -}}
{{- $e := .Values.metrics.serviceMonitor.enabled }}
{{- if eq (toString $e) "auto" }}
{{- if or (.Capabilities.APIVersions.Has "monitoring.coreos.com/v1/ServiceMonitor") (.Capabilities.APIVersions.Has "monitoring.coreos.com/v1") }}true{{ end }}
{{- else if $e }}true
{{- end }}
{{- end }}

{{/*
NetworkPolicyPeer list admitted on both daemons' metrics ports, as YAML
("[]" for none), from networkPolicy.metrics (source namespaces | peers | none).
*/}}
{{- define "fabricpulse.metricsPeers" -}}
{{- $m := .Values.networkPolicy.metrics }}
{{- $peers := list }}
{{- if eq $m.source "namespaces" }}
{{- if not $m.namespaces }}
{{- fail "networkPolicy.metrics.namespaces: name the namespace(s) your Prometheus runs in, or set networkPolicy.metrics.source to peers or none" }}
{{- end }}
{{- range $m.namespaces }}
{{- $peer := dict "namespaceSelector" (dict "matchLabels" (dict "kubernetes.io/metadata.name" .)) }}
{{- if $m.podSelector }}
{{- $_ := set $peer "podSelector" $m.podSelector }}
{{- end }}
{{- $peers = append $peers $peer }}
{{- end }}
{{- else if eq $m.source "peers" }}
{{- if not $m.peers }}
{{- fail "networkPolicy.metrics.peers: list the NetworkPolicyPeers that may scrape (source=peers), or set networkPolicy.metrics.source to namespaces or none" }}
{{- end }}
{{- $peers = $m.peers }}
{{- end }}
{{- toYaml $peers }}
{{- end }}

{{/* An env var value from a string, bool or number (integers without an exponent). */}}
{{- define "fabricpulse.envValue" -}}
{{- if and (kindIs "float64" .) (eq (float64 (int64 .)) .) }}
{{- int64 . | toString | quote }}
{{- else }}
{{- toString . | quote }}
{{- end }}
{{- end }}

{{/* A SPIFFE identity: include with (dict "ctx" $ "role" "agent" "name" "node-a"). */}}
{{- define "fabricpulse.spiffeID" -}}
{{- printf "spiffe://%s/%s/%s" .ctx.Values.tls.trustDomain .role .name }}
{{- end }}

{{/*
Refuses values that leave a daemon without TLS material (no silent
plaintext), or that mix plaintext with TLS. Included by the coordinator
Deployment, which every render has.
*/}}
{{- define "fabricpulse.checkTLS" -}}
{{- $t := .Values.tls }}
{{- $cm := $t.certManager }}
{{- $how := "set tls.certManager.enabled=true (with tls.certManager.createCA=true or tls.certManager.issuerRef.name), or bring your own Secrets (tls.coordinator.existingSecret, tls.agent.existingSecret), or set tls.insecure=true for plaintext without authentication (test clusters only); see the chart README, section TLS" }}
{{- if $t.insecure }}
{{- if or $cm.enabled $t.coordinator.existingSecret $t.agent.existingSecret (eq $t.agent.source "hostPath") }}
{{- fail "tls.insecure=true cannot be combined with TLS material (tls.certManager.enabled, tls.coordinator.existingSecret, tls.agent.existingSecret, tls.agent.source=hostPath): choose one" }}
{{- end }}
{{- else }}
{{- if and $cm.enabled (not $cm.createCA) (not $cm.issuerRef.name) }}
{{- fail "tls.certManager.enabled: set tls.certManager.issuerRef.name (an Issuer or ClusterIssuer) or tls.certManager.createCA=true" }}
{{- end }}
{{- if and (not $cm.enabled) (not $t.coordinator.existingSecret) }}
{{- fail (printf "tls: no TLS material for the coordinator: %s" $how) }}
{{- end }}
{{- if and .Values.agent.enabled (eq $t.agent.source "secret") }}
{{- if and $cm.enabled (not $cm.agentNodes) (not $t.agent.existingSecret) }}
{{- fail "tls.certManager.agentNodes: list the node names of the agents (one Certificate each), or set tls.agent.existingSecret, or tls.agent.source=hostPath" }}
{{- end }}
{{- if and (not $cm.enabled) (not $t.agent.existingSecret) }}
{{- fail (printf "tls: no TLS material for the agents: %s" $how) }}
{{- end }}
{{- end }}
{{- end }}
{{- $w := .Values.metrics.webConfig }}
{{- if and $w.tls.enabled (not $w.existingSecret) (not $w.tls.existingSecret) (not $cm.enabled) }}
{{- fail "metrics.webConfig.tls.enabled: set metrics.webConfig.tls.existingSecret (tls.crt, tls.key, ca.crt) or tls.certManager.enabled=true" }}
{{- end }}
{{- end }}

{{/* Secret of the coordinator's certificate. */}}
{{- define "fabricpulse.coordinatorTLSSecret" -}}
{{- if .Values.tls.certManager.enabled }}
{{- printf "%s-tls" (include "fabricpulse.coordinatorName" .) }}
{{- else }}
{{- .Values.tls.coordinator.existingSecret }}
{{- end }}
{{- end }}

{{/* Secret of one agent node's certificate (cert-manager): include with (dict "ctx" $ "node" "node-a"). */}}
{{- define "fabricpulse.agentNodeTLSSecret" -}}
{{- printf "%s-%s" (include "fabricpulse.agentName" .ctx) .node | trunc 253 | trimSuffix "-" | trimSuffix "." }}
{{- end }}

{{/* Secret of the metrics serving certificate, "" when metrics TLS is off. */}}
{{- define "fabricpulse.metricsTLSSecret" -}}
{{- $w := .Values.metrics.webConfig }}
{{- if and $w.tls.enabled (not $w.existingSecret) }}
{{- default (printf "%s-metrics" (include "fabricpulse.fullname" .)) $w.tls.existingSecret }}
{{- end }}
{{- end }}

{{/* Secret holding web-config.yml, "" when /metrics has no web config. */}}
{{- define "fabricpulse.webConfigSecret" -}}
{{- $w := .Values.metrics.webConfig }}
{{- if $w.existingSecret }}
{{- $w.existingSecret }}
{{- else if or $w.basicAuthUsers $w.tls.enabled }}
{{- printf "%s-web-config" (include "fabricpulse.fullname" .) }}
{{- end }}
{{- end }}

{{/* ConfigMap holding the authorization policy, "" for the built-in roles. */}}
{{- define "fabricpulse.authzConfigMap" -}}
{{- if .Values.authz.existingConfigMap }}
{{- .Values.authz.existingConfigMap }}
{{- else if .Values.authz.policy }}
{{- printf "%s-authz" (include "fabricpulse.coordinatorName" .) }}
{{- end }}
{{- end }}

{{/* Env of the TLS settings: include with (dict "ctx" $ "cert" PATH "key" PATH "ca" PATH). */}}
{{- define "fabricpulse.tlsEnv" -}}
{{- if .ctx.Values.tls.insecure }}
- name: FABRICPULSE_INSECURE
  value: "1"
{{- else }}
- name: FABRICPULSE_TLS_CERT
  value: {{ .cert | quote }}
- name: FABRICPULSE_TLS_KEY
  value: {{ .key | quote }}
- name: FABRICPULSE_TLS_CA
  value: {{ .ca | quote }}
- name: FABRICPULSE_TRUST_DOMAIN
  value: {{ .ctx.Values.tls.trustDomain | quote }}
{{- end }}
{{- end }}
