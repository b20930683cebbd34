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
{{- printf "%s.%s.svc.%s:%d" (include "fabricpulse.coordinatorName" .) .Release.Namespace .Values.clusterDomain (int .Values.coordinator.grpcPort) }}
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
{{- default .ctx.Release.Namespace .ns }}
{{- end }}

{{/* An env var value from a string, bool or number (integers without an exponent). */}}
{{- define "fabricpulse.envValue" -}}
{{- if and (kindIs "float64" .) (eq (float64 (int64 .)) .) }}
{{- int64 . | toString | quote }}
{{- else }}
{{- toString . | quote }}
{{- end }}
{{- end }}
