#!/usr/bin/env bash
# Installs the tools tests/deploy/check_observability.sh needs, from Debian 12, and nothing
# when all are already on PATH (however they got there). Run as root (or with sudo available).
#
#   promtool  <- prometheus (2.42; --no-install-recommends keeps the web console libs out,
#                the service is not started by the package in a container)
#   jsonnet   <- jsonnet   (dashboards are generated from deploy/grafana/src/*.jsonnet)
#   yamllint  <- yamllint  (rule and test files are kept lint-clean)
#   python3   <- python3, python3-yaml (tests/deploy/observability_lint.py: dashboard
#                structure, dashboard queries, the metrics contract)
set -euo pipefail

declare -A package_for=(
  [promtool]=prometheus
  [jsonnet]=jsonnet
  [yamllint]=yamllint
  [python3]=python3
)

missing=()
for tool in promtool jsonnet yamllint python3; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    missing+=("${package_for[$tool]}")
  fi
done

has_pyyaml() { command -v python3 >/dev/null 2>&1 && python3 -c 'import yaml' 2>/dev/null; }
has_pyyaml || missing+=(python3-yaml)

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-observability-tools: promtool, jsonnet, yamllint, python3 + PyYAML all present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "install-observability-tools: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"

for tool in promtool jsonnet yamllint python3; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "install-observability-tools: $tool still not on PATH after install" >&2
    exit 1
  }
done
has_pyyaml || {
  echo "install-observability-tools: $(command -v python3) cannot import yaml;" \
    "install PyYAML for it (python3-yaml serves Debian's /usr/bin/python3)" >&2
  exit 1
}
echo "install-observability-tools: done ($(promtool --version 2>&1 | head -n 1))"
