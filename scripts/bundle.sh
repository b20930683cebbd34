#!/usr/bin/env bash
# Builds a relocatable bundle (the release tarball for bare-metal users):
#   dist/fabricpulse-<version>-linux-x86_64/{bin,lib,tests,config}
#   dist/fabricpulse-<version>-linux-x86_64.tar.gz
# bin/ holds the four binaries (and the GPU test binary when built) with an
# $ORIGIN/../lib RUNPATH; lib/ holds the NCCL module the worker loads
# (libfabricpulse-nccl.so, when built) and every shared library they need
# except glibc's own, the GPU driver's libcuda, and libnccl (use the machine's NCCL
# of the same version: e.g. the nvidia-nccl wheel's lib dir on
# LD_LIBRARY_PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${FABRICPULSE_BUILD_DIR:-build}"
version="$(sed -n 's/^project(fabricpulse VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)"
name="fabricpulse-${version}-linux-x86_64"
out="dist/$name"

if ! command -v patchelf >/dev/null; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get install -y -qq patchelf >/dev/null
fi

rm -rf "$out" && mkdir -p "$out/bin" "$out/lib" "$out/tests" "$out/config"
bins=(fabricpulse fabricpulse-coordinator fabricpulse-agent fabricpulse-worker)
for extra in nccl_backend_test nccl_allreduce_floor bare_nccl_init loop_shape_bias fabricpulse_cli_dynamic moe_splits; do
  [ -x "$build_dir/bin/$extra" ] && bins+=("$extra")
done
for b in "${bins[@]}"; do
  [ -x "$build_dir/bin/$b" ] || { echo "bundle: $build_dir/bin/$b missing; run scripts/build.sh" >&2; exit 1; }
  cp "$build_dir/bin/$b" "$out/bin/"
done

# The NCCL module (only in a build with NCCL): the worker loads it from
# lib/ at run time; it is the only file that needs libcudart and libnccl.
module="$build_dir/lib/libfabricpulse-nccl.so"
deps=()
if [ -f "$module" ]; then
  cp "$module" "$out/lib/"
  deps+=("$out/lib/libfabricpulse-nccl.so")
fi

skip='^(linux-vdso|ld-linux|libc\.so|libm\.so|libpthread|libdl\.so|librt\.so|libcuda\.so|libnccl\.so)'
for b in "${bins[@]}"; do deps+=("$out/bin/$b"); done
for f in "${deps[@]}"; do
  ldd "$f" | awk '/=> \// {print $1, $3}' | while read -r soname path; do
    [[ "$soname" =~ $skip ]] && continue
    [ -e "$out/lib/$soname" ] || cp -L "$path" "$out/lib/$soname"
  done
done
strip --strip-debug "$out"/bin/* "$out"/lib/*
for f in "$out"/bin/*; do patchelf --set-rpath '$ORIGIN/../lib' "$f"; done
for f in "$out"/lib/*; do patchelf --set-rpath '$ORIGIN' "$f" 2>/dev/null || true; done

cp -r tests/gpu tests/perf "$out/tests/"
# The shipped coordinator config (its plans: tests/perf/adaptive_iters.sh).
cp deploy/config/coordinator.yaml "$out/config/"
rm -f "$out/tests/gpu/CMakeLists.txt" "$out/tests/gpu/"*.cc
tar -C dist -czf "dist/$name.tar.gz" "$name"
du -sh "$out" "dist/$name.tar.gz"
