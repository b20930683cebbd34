#!/usr/bin/env bash
# Builds the GPU image (deploy/docker/Dockerfile, --target gpu) with podman on
# the debootstrapped Debian base of tests/deploy/check_image.sh, from the CUDA
# toolkit and NCCL on this machine (nothing is downloaded but the Debian
# packages of the build stage), checks it here without a GPU, and exports its
# root filesystem for tests/gpu/gpu_image_check.sh, which runs it on a GPU
# machine without podman or docker:
#
#   tests/deploy/build_gpu_image.sh OUT_DIR
#
# Checks here: the image runs as 65532:65532 and has no compiler; it sets
# NVIDIA_VISIBLE_DEVICES=all and NVIDIA_DRIVER_CAPABILITIES=compute,utility;
# its worker has the NCCL backend and resolves libnccl.so.2 and libcudart to
# /opt/fabricpulse/lib, where libnccl.so.2 is this machine's, byte for byte
# (version and sha256 in /opt/fabricpulse/share/build-info); it carries no
# libcuda or libnvidia-ml (the NVIDIA runtime injects the driver's); without
# a GPU `fabricpulse local --backend nccl` refuses with one clear line and a
# Gloo sweep passes.
#
# Writes into OUT_DIR (old outputs there are replaced):
#   fabricpulse-gpu-rootfs.tar.xz.NN         the root filesystem (podman
#                                            export), xz, in parts of at most
#                                            PART_SIZE (a tool call carries at
#                                            most 64 MiB to the GPU machine)
#   fabricpulse-gpu-rootfs-nonccl.tar.xz.NN  the same without
#                                            opt/fabricpulse/lib/libnccl.so.2,
#                                            for a run that takes NCCL from an
#                                            identical copy on the GPU machine
#                                            (gpu_image_check.sh --nccl-from:
#                                            refused unless its sha256 is the
#                                            image's)
#   image-config    the image's user, working directory and environment (a
#                   root filesystem tarball has none of its config)
#   MANIFEST        key=value: image, commit, NCCL and CUDA runtime versions,
#                   sizes and sha256 of each whole tarball and of libnccl
#   SHA256SUMS      sha256sum of every part, image-config and MANIFEST
#
# Environment: CUDA_HOME (default /usr/local/cuda: nvcc, headers, libcudart,
# nccl.h and libnccl.so.2), PART_SIZE (split -b size, default 60M),
# XZ_LEVEL (default 9), FABRICPULSE_JOBS (compile jobs, default nproc),
# FABRICPULSE_GPU_IMAGE (tag, default localhost/fabricpulse:gpu-test),
# KEEP_IMAGE=1 keeps the image, KEEP_BUILD_CACHE=1 the build stages' layers.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 OUT_DIR" >&2; exit 2; }
mkdir -p "$1"
out="$(cd "$1" && pwd)"
cd "$(dirname "$0")/../.."
# step, fail, image_setup, image_base, image_build, image_run.
# shellcheck source=tests/deploy/image_lib.sh
source tests/deploy/image_lib.sh
t0=$SECONDS
part_size="${PART_SIZE:-60M}"
xz_level="${XZ_LEVEL:-9}"
full=fabricpulse-gpu-rootfs.tar.xz
nonccl=fabricpulse-gpu-rootfs-nonccl.tar.xz
nccl_member=opt/fabricpulse/lib/libnccl.so.2

cuda="$(readlink -f "${CUDA_HOME:-/usr/local/cuda}")"
for f in bin/nvcc include/nccl.h include/cuda_runtime_api.h lib64/libnccl.so.2 lib64/libcudart.so; do
  [ -e "$cuda/$f" ] || fail "$cuda has no $f (CUDA_HOME: a CUDA toolkit that holds NCCL)"
done
nccl_version="$(awk '/^#define NCCL_(MAJOR|MINOR|PATCH) / { v = v (v == "" ? "" : ".") $3 }
  END { print v }' "$cuda/include/nccl.h")"
nccl_sha="$(sha256sum "$(readlink -f "$cuda/lib64/libnccl.so.2")" | cut -d' ' -f1)"

image_setup build_gpu_image
image_base

tag="${FABRICPULSE_GPU_IMAGE:-localhost/fabricpulse:gpu-test}"
export_name="fp-gpu-export-$$"
tmp="$(mktemp -d "${TMPDIR:-/var/tmp}/fp-gpu-image.XXXXXX")"
cleanup() {
  podman rm -f "$export_name" >/dev/null 2>&1 || true
  rm -rf "$tmp"
  [ "${KEEP_IMAGE:-0}" = 1 ] || podman rmi -f "$tag" >/dev/null 2>&1 || true
  # The build stages (~1 GB each, with the toolchain) are left as dangling
  # images after every build; the ccache mount keeps recompiles fast.
  [ "${KEEP_BUILD_CACHE:-0}" = 1 ] || podman image prune -f >/dev/null 2>&1 || true
}
trap cleanup EXIT

step "podman build --target gpu --build-context cuda=$cuda -t $tag (NCCL $nccl_version)"
build_start=$SECONDS
image_build "$image_dir/build-gpu.log" --target gpu --build-context cuda="$cuda" \
  --build-arg GPU_RUNTIME_BASE="$base" -t "$tag"
grep -E '^(bundle|zoneinfo|nccl):' "$image_dir/build-gpu.log" || true
echo "ok: built in $((SECONDS - build_start)) s, $(podman image inspect "$tag" --format '{{.Size}}' | awk '{printf "%.0f MB", $1/1e6}')"

step "image checks (no GPU here)"
user="$(podman image inspect "$tag" --format '{{.Config.User}}')"
[ "$user" = "65532:65532" ] || fail "image user is '$user', want 65532:65532"
env_lines="$(podman image inspect "$tag" --format '{{range .Config.Env}}{{println .}}{{end}}')"
for want in NVIDIA_VISIBLE_DEVICES=all NVIDIA_DRIVER_CAPABILITIES=compute,utility; do
  grep -qx "$want" <<<"$env_lines" || fail "the image's environment has no $want"
done
# shellcheck disable=SC2016  # expanded inside the image
checks="$(image_run --rm --network none "$tag" bash -c '
  set -e
  for tool in c++ cc gcc nvcc cmake; do
    if command -v "$tool"; then echo "a compiler: $tool"; exit 1; fi
  done
  echo "uid=$(id -u)"
  echo "backends=$(fabricpulse-worker --backends)"
  cat /opt/fabricpulse/share/build-info
  ldd /opt/fabricpulse/bin/fabricpulse-worker /opt/fabricpulse/lib/libfabricpulse-*.so 2>/dev/null |
    awk "\$1 ~ /^lib(nccl|cudart)[.]so/ { print \$1, \$3 }" |
    while read -r soname path; do echo "resolved $soname $(readlink -f "$path")"; done
  # (as 65532 some folders are unreadable: find then exits 1)
  find / -xdev \( -name "libcuda.so*" -o -name "libnvidia-ml.so*" \) -printf "driver-lib %p\n" 2>/dev/null || true
  stat -c "nccl_mode=%a" /opt/fabricpulse/lib/libnccl.so.2' 2>&1)" \
  || { echo "$checks"; fail "the checks inside the image failed"; }
echo "$checks"
value() { awk -v k="$1" 'index($0, k "=") == 1 && !d { print substr($0, length(k) + 2); d = 1 }' <<<"$checks"; }
[ "$(value uid)" = 65532 ] || fail "the image does not run as uid 65532"
[[ " $(value backends) " == *" nccl "* ]] || fail "the worker has no NCCL backend: $(value backends)"
[ "$(value nccl_version)" = "$nccl_version" ] \
  || fail "the image's NCCL is $(value nccl_version), the build's $cuda has $nccl_version"
[ "$(value nccl_sha256)" = "$nccl_sha" ] || fail "the image's libnccl.so.2 is not $cuda's (sha256)"
grep -qx 'resolved libnccl.so.2 /opt/fabricpulse/lib/libnccl.so.2' <<<"$checks" \
  || fail "libnccl.so.2 does not resolve to /opt/fabricpulse/lib"
grep -Eqx 'resolved libcudart[.]so[.0-9]* /opt/fabricpulse/lib/libcudart[.]so[.0-9]*' <<<"$checks" \
  || fail "libcudart does not resolve to /opt/fabricpulse/lib"
! grep -q '^driver-lib ' <<<"$checks" || fail "the image carries driver libraries (listed above)"
nccl_mode="$(value nccl_mode)"
echo "ok: 65532, no compiler, NVIDIA_* set, NCCL $nccl_version (this machine's libnccl.so.2) and cudart from /opt/fabricpulse/lib, no driver libraries"

refusal="$(image_run --rm --network none "$tag" fabricpulse local --backend nccl --agents 1 --ranks 1 \
  sweep --ops all_reduce --max-bytes 64M 2>&1)" && fail "--backend nccl without a GPU succeeded: $refusal"
echo "without a GPU: $refusal"
grep -q '0 visible' <<<"$refusal" || fail "--backend nccl without a GPU did not say that no GPU is visible"
sweep="$(image_run --rm --network none "$tag" fabricpulse local --backend gloo --agents 1 --ranks 2 \
  sweep --ops all_reduce --max-bytes 64K 2>&1)" || { echo "$sweep"; fail "Gloo sweep in the GPU image"; }
grep -Eq '^# sweep .* succeeded$' <<<"$sweep" || { echo "$sweep"; fail "Gloo sweep in the GPU image did not succeed"; }
echo "ok: --backend nccl refused without a GPU, a Gloo sweep passes"

step "export the root filesystem (xz -$xz_level, parts of $part_size)"
podman create --name "$export_name" "$tag" >/dev/null
podman export "$export_name" >"$tmp/rootfs.tar"
podman rm -f "$export_name" >/dev/null 2>&1
listing="$(tar -tvf "$tmp/rootfs.tar")"
grep -q " $nccl_member\$" <<<"$listing" || fail "the export has no $nccl_member"
! grep -Eq '/lib(cuda|nvidia-ml)[.]so' <<<"$listing" || fail "the export carries libcuda or libnvidia-ml"
rootfs_bytes="$(stat -c %s "$tmp/rootfs.tar")"
rm -f "$out"/fabricpulse-gpu-rootfs*.tar.xz* "$out"/image-config "$out"/MANIFEST "$out"/SHA256SUMS
compress_start=$SECONDS
xz -T"$(nproc)" -"$xz_level" -c "$tmp/rootfs.tar" >"$out/$full"
tar --delete -f - "$nccl_member" <"$tmp/rootfs.tar" | xz -T"$(nproc)" -"$xz_level" -c >"$out/$nonccl"
echo "ok: compressed in $((SECONDS - compress_start)) s"
rm -f "$tmp/rootfs.tar"

full_bytes="$(stat -c %s "$out/$full")"
full_sha="$(sha256sum "$out/$full" | cut -d' ' -f1)"
nonccl_bytes="$(stat -c %s "$out/$nonccl")"
nonccl_sha="$(sha256sum "$out/$nonccl" | cut -d' ' -f1)"
for f in "$full" "$nonccl"; do
  split -b "$part_size" -d -a 2 "$out/$f" "$out/$f."
  rm -f "$out/$f"
done
full_parts="$(find "$out" -maxdepth 1 -name "$full.[0-9][0-9]" | wc -l)"
nonccl_parts="$(find "$out" -maxdepth 1 -name "$nonccl.[0-9][0-9]" | wc -l)"

{
  echo "user=$user"
  echo "workdir=$(podman image inspect "$tag" --format '{{.Config.WorkingDir}}')"
  sed -n 's/^./env=&/p' <<<"$env_lines"
} >"$out/image-config"
{
  echo "image=$tag"
  echo "image_id=$(podman image inspect "$tag" --format '{{.Id}}')"
  echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo -dirty)"
  echo "nccl_version=$nccl_version"
  echo "nccl_sha256=$nccl_sha"
  echo "nccl_member=$nccl_member"
  echo "nccl_mode=$nccl_mode"
  echo "cuda_runtime_version=$(value cuda_runtime_version)"
  echo "cudart=$(value cudart)"
  echo "rootfs_bytes=$rootfs_bytes"
  echo "compression=xz -$xz_level"
  echo "part_size=$part_size"
  echo "full=$full"
  echo "full_bytes=$full_bytes"
  echo "full_sha256=$full_sha"
  echo "full_parts=$full_parts"
  echo "nonccl=$nonccl"
  echo "nonccl_bytes=$nonccl_bytes"
  echo "nonccl_sha256=$nonccl_sha"
  echo "nonccl_parts=$nonccl_parts"
} >"$out/MANIFEST"
(cd "$out" && sha256sum "$full".[0-9][0-9] "$nonccl".[0-9][0-9] image-config MANIFEST >SHA256SUMS)

mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }
echo "root filesystem: $(mib "$rootfs_bytes") uncompressed"
echo "$full: $(mib "$full_bytes") in $full_parts part(s); $nonccl: $(mib "$nonccl_bytes") in $nonccl_parts part(s)"
(cd "$out" && stat -c '  %n: %s bytes' "$full".[0-9][0-9] "$nonccl".[0-9][0-9])
echo
echo "build_gpu_image: done in $((SECONDS - t0)) s; parts in $out"
