#!/usr/bin/env bash
# Configures (once) and builds FabricPulse into build/ (binaries in
# build/bin/), then, when clang with libFuzzer is installed, the fuzz
# targets into build-fuzz/ (tests/fuzz). Incremental; uses ccache when
# installed. Extra arguments go to cmake's configure step, e.g.
# scripts/build.sh -DFABRICPULSE_SANITIZER=address
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${FABRICPULSE_BUILD_DIR:-build}"
if [ ! -f "$build_dir/build.ninja" ] || [ $# -gt 0 ]; then
  cmake -S . -B "$build_dir" -G Ninja "$@"
fi
jobs="${FABRICPULSE_JOBS:-$(nproc)}"
cmake --build "$build_dir" -j "$jobs"
FABRICPULSE_JOBS="$jobs" cmake --build "$build_dir" --target fuzz_tree
