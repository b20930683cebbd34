#!/usr/bin/env bash
# Configures (once) and builds the fuzz tree: the libFuzzer targets of
# tests/fuzz with clang, AddressSanitizer and UBSan, and only the code they
# link. Run by the main build's target fuzz_tree (scripts/build.sh --all).
#   build_tree.sh SOURCE_DIR FUZZ_BUILD_DIR CLANGXX
set -euo pipefail
src="$1" dir="$2" cxx="$3"
if [ ! -f "$dir/build.ninja" ]; then
  cmake -S "$src" -B "$dir" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" \
    -DFABRICPULSE_FUZZ=ON -DFABRICPULSE_WERROR=OFF -DFABRICPULSE_WITH_NCCL=OFF
fi
cmake --build "$dir" ${FABRICPULSE_JOBS:+-j "$FABRICPULSE_JOBS"}
