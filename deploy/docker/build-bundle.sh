#!/usr/bin/env bash
# Runs in deploy/docker/Dockerfile's build stages (from /src, the repository):
# configures with the given extra CMake arguments, builds the four product
# targets (not the tests), strips them and makes the relocatable bundle
# (scripts/bundle.sh) in /out: bin/, lib/ and share/build-info.
#
#   build-bundle.sh [--with-nccl] [CMAKE_ARG...]
#
# --with-nccl (the `gpu` target): the NCCL backend must be built (the stage
# mounts a CUDA toolkit holding NCCL at /usr/local/cuda), and /out/lib also
# gets the libnccl.so.2 the build linked against, byte for byte (bundle.sh
# leaves NCCL out: bare-metal users bring their own). share/build-info then
# names the NCCL and CUDA runtime versions and their sha256, which
# tests/gpu/gpu_image_check.sh compares with what the worker loaded.
set -euo pipefail
with_nccl=0
if [ "${1:-}" = --with-nccl ]; then
  with_nccl=1
  shift
fi
targets=(fabricpulse fabricpulse-coordinator fabricpulse-agent fabricpulse-worker)

cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build /build -j "${FABRICPULSE_JOBS:-$(nproc)}" --target "${targets[@]}"
# Stripped here; bundle.sh's own strip keeps the symbol table.
for b in "${targets[@]}"; do strip --strip-unneeded "/build/bin/$b"; done
rm -rf dist
FABRICPULSE_BUILD_DIR=/build scripts/bundle.sh
mv dist/fabricpulse-*-linux-x86_64 /out
rm -rf dist /out/tests /out/scripts
# The NCCL backend as a run-time module (lib/libfabricpulse-nccl.so), when
# this tree builds one and bundle.sh has not copied it.
for m in /build/lib/libfabricpulse-*.so; do
  [ -e "$m" ] || continue
  [ -e "/out/lib/${m##*/}" ] || cp -L "$m" /out/lib/
done

cache_value() { awk -v k="$1" 'index($0, k ":") == 1 && !v { sub(/^[^=]*=/, ""); v = $0 } END { print v }' /build/CMakeCache.txt; }
version="$(sed -n 's/^project(fabricpulse VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)"
mkdir -p /out/share
backends="$(/build/bin/fabricpulse-worker --backends)"
{
  echo "fabricpulse_version=$version"
  echo "worker_backends=$backends"
} >/out/share/build-info

if [ "$with_nccl" -eq 1 ]; then
  case " $backends " in
    *" nccl "*) ;;
    *)
      echo "build-bundle: the worker has no NCCL backend ($backends): is a CUDA toolkit with NCCL mounted at /usr/local/cuda?" >&2
      exit 1
      ;;
  esac
  # The libnccl.so.2 the binaries resolve at link time (the worker, or the
  # NCCL module), else the one CMake found.
  nccl="$(ldd /build/bin/fabricpulse-worker /build/lib/*.so 2>/dev/null |
    awk '$1 == "libnccl.so.2" && $3 ~ /^\// && !p { p = $3 } END { print p }' || true)"
  [ -n "$nccl" ] || nccl="$(dirname "$(cache_value NCCL_LIBRARY)")/libnccl.so.2"
  [ -e "$nccl" ] || { echo "build-bundle: no libnccl.so.2 (looked at $nccl)" >&2; exit 1; }
  cp -L "$nccl" /out/lib/libnccl.so.2
  cudart="$(find /out/lib -name 'libcudart.so.*' | sort | sed -n 1p)"
  [ -n "$cudart" ] || { echo "build-bundle: the bundle has no libcudart" >&2; exit 1; }
  header="$(cache_value NCCL_INCLUDE_DIR)/nccl.h"
  nccl_version="$(awk '/^#define NCCL_(MAJOR|MINOR|PATCH) / { v = v (v == "" ? "" : ".") $3 }
    END { print v }' "$header")"
  cuda_version=""
  for dir in "$(dirname "$header")" /usr/local/cuda/include; do
    [ -f "$dir/cuda_runtime_api.h" ] || continue
    cuda_version="$(awk '/^#define CUDART_VERSION / { printf "%d.%d\n", $3 / 1000, ($3 % 1000) / 10 }' \
      "$dir/cuda_runtime_api.h")"
    break
  done
  {
    echo "nccl_version=$nccl_version"
    echo "nccl_sha256=$(sha256sum /out/lib/libnccl.so.2 | cut -d' ' -f1)"
    echo "cuda_runtime_version=${cuda_version:-unknown}"
    echo "cudart=${cudart##*/}"
    echo "cudart_sha256=$(sha256sum "$cudart" | cut -d' ' -f1)"
  } >>/out/share/build-info
fi
echo "bundle: $(cd /out/bin && echo *) + $(find /out/lib -type f | wc -l) libraries; $(tr '\n' ' ' </out/share/build-info)"
