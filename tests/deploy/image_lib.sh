# shellcheck shell=bash
# Shared by the image scripts (tests/deploy/check_image.sh,
# tests/deploy/build_gpu_image.sh); sourced, from the repository root, after
# `set -euo pipefail`. Builds deploy/docker/Dockerfile with podman: no
# daemon, no registry. Nothing can be pulled here, so the Debian base is made
# with debootstrap and imported as localhost/debian:bookworm, its tarball
# cached in .tools/image/ so that it is made once; it is both BUILD_BASE and
# the runtime base (RUNTIME_BASE; GPU_RUNTIME_BASE for the gpu target).
#
#   image_setup NAME     tools (buildah, podman, runc, debootstrap), the
#                        containers.conf; sets image_dir (.tools/image) and
#                        the prefix of fail's message
#   image_base           makes and imports the base if needed; sets base
#   image_build LOG ARG...  podman build of deploy/docker/Dockerfile with the
#                        base as BUILD_BASE (the ARGs add -t TAG,
#                        --build-arg [GPU_]RUNTIME_BASE=..., --target, ...), its
#                        output in LOG; on failure prints its tail and fails
#   image_run ARG...     podman run without podman's systemd noise
# Environment: FABRICPULSE_JOBS (compile jobs in the image build, default
# nproc).

step() { printf '\n== %s\n' "$*"; }
fail() { echo "${image_script:-image}: FAIL: $*" >&2; exit 1; }

image_setup() {
  image_script="$1"
  step "tools (buildah, podman, runc, debootstrap)"
  scripts/install-deploy-tools.sh --image --quiet
  image_dir="$PWD/.tools/image"
  mkdir -p "$image_dir"
  # crun fails on hybrid cgroups here; runc works. Small default ulimits keep
  # gRPC and Gloo within a sandbox's limits.
  cat >"$image_dir/containers.conf" <<'EOF'
[engine]
runtime = "runc"
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]
EOF
  export CONTAINERS_CONF="$image_dir/containers.conf"
}

image_base() {
  base=localhost/debian:bookworm
  local base_tar="$image_dir/debian-bookworm-minbase.tar" rootfs
  step "base image $base"
  if [ ! -s "$base_tar" ]; then
    rootfs="$(mktemp -d)"
    echo "debootstrap --variant=minbase bookworm (once; cached in $base_tar)"
    debootstrap --variant=minbase bookworm "$rootfs" >"$image_dir/debootstrap.log" 2>&1 \
      || { tail -20 "$image_dir/debootstrap.log"; fail "debootstrap"; }
    # Same apt sources as the official debian:bookworm image (with -updates
    # and -security), taken from this Debian host when it has them.
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
      cp /etc/apt/sources.list.d/debian.sources "$rootfs/etc/apt/sources.list.d/"
      rm -f "$rootfs/etc/apt/sources.list"
    fi
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
    tar -C "$rootfs" -cf "$base_tar.tmp" .
    mv "$base_tar.tmp" "$base_tar"
    rm -rf "$rootfs"
  fi
  if ! podman image exists "$base"; then
    podman import --quiet "$base_tar" "$base" >/dev/null
  fi
  echo "ok: $base"
}

image_build() {
  local log="$1"
  shift
  # --format docker keeps HEALTHCHECK (the OCI format has no such field);
  # --network host: the apt steps reach the Debian mirror the host uses.
  podman build --pull=never --format docker --network host \
    --build-arg BUILD_BASE="$base" \
    --build-arg FABRICPULSE_JOBS="${FABRICPULSE_JOBS:-$(nproc)}" \
    -f deploy/docker/Dockerfile "$@" . >"$log" 2>&1 \
    || { tail -40 "$log"; fail "podman build (log: $log)"; }
}

# podman cannot arm its healthcheck timer without systemd and says so on
# every `run`.
image_run() { podman run "$@" 2> >(grep -v 'unable to get systemd connection' >&2); }
