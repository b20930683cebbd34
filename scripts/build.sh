#!/usr/bin/env bash
# Configures (once) and builds FabricPulse into build/ (binaries in
# build/bin/). Incremental; uses ccache when installed.
#
#   scripts/build.sh          what `fabricpulse local sweep` runs: the CLI,
#                             the coordinator, the agent, the worker and,
#                             with CUDA and NCCL, the worker's NCCL module
#                             (CMake target `product`)
#   scripts/build.sh --all    everything: the above, the test executables
#                             and tools, then, when clang with libFuzzer is
#                             installed, the fuzz targets into build-fuzz/
#                             (tests/fuzz)
#
# Further arguments go to cmake's configure step, e.g.
# scripts/build.sh --all -DFABRICPULSE_SANITIZER=address
set -euo pipefail
cd "$(dirname "$0")/.."
all=0
if [ "${1:-}" = "--all" ]; then
  all=1
  shift
fi
build_dir="${FABRICPULSE_BUILD_DIR:-build}"
if [ ! -f "$build_dir/build.ninja" ] || [ $# -gt 0 ]; then
  cmake -S . -B "$build_dir" -G Ninja "$@"
fi
jobs="${FABRICPULSE_JOBS:-$(nproc)}"
if [ "$all" -eq 0 ]; then
  cmake --build "$build_dir" -j "$jobs" --target product
  exit 0
fi
cmake --build "$build_dir" -j "$jobs"
FABRICPULSE_JOBS="$jobs" cmake --build "$build_dir" --target fuzz_tree
