#!/usr/bin/env bash
# Runs in deploy/docker/Dockerfile's runtime stages, as root, after the bundle
# is in /opt/fabricpulse:
#
#   runtime-setup.sh gloo|nccl
#
# 1. EXTRA_RUNTIME_PACKAGES (apt; Debian or Ubuntu bases), then the build
#    stage's zoneinfo tree (bind-mounted at /tmp/build-zoneinfo) only if the
#    base has none (ubuntu:24.04 and the CUDA images have none; Abseil reads
#    cron schedules' IANA zones from /usr/share/zoneinfo at run time).
# 2. Fails the build here, not at the first pod start, if the bundle does not
#    run on this base: every library must come from /opt/fabricpulse except
#    glibc's (a glibc older than the build's shows up as "version
#    `GLIBC_2.xx' not found") and the driver's libcuda (the NVIDIA container
#    runtime injects it); for gloo also libnccl (from the base, as NVIDIA's
#    CUDA runtime images carry it). For nccl, libnccl.so.2 and libcudart must
#    be the bundle's, and the image must not carry the driver's libcuda.so.1
#    or libnvidia-ml.so.1 where the loader finds them (they would shadow the
#    driver's, which the runtime injects).
# 3. The user and group 65532 (fabricpulse), /var/lib/fabricpulse owned by it.
set -euo pipefail
backend="${1:?usage: runtime-setup.sh gloo|nccl}"
case "$backend" in gloo | nccl) ;; *) echo "runtime-setup: unknown backend '$backend'" >&2; exit 2 ;; esac
fp=/opt/fabricpulse

if [ -n "${EXTRA_RUNTIME_PACKAGES:-}" ]; then
  apt-get update -qq
  # shellcheck disable=SC2086  # a list of package names
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    $EXTRA_RUNTIME_PACKAGES
  apt-get clean
  rm -rf /var/lib/apt/lists/* /var/cache/apt/*
fi

if [ -e /usr/share/zoneinfo/America/New_York ]; then
  echo "zoneinfo: the base's"
else
  mkdir -p /usr/share
  rm -rf /usr/share/zoneinfo
  cp -a /tmp/build-zoneinfo /usr/share/zoneinfo
  echo "zoneinfo: the build stage's (the base has none)"
fi

# The binaries and any run-time module of the bundle (lib/libfabricpulse-*).
objects=("$fp"/bin/*)
for m in "$fp"/lib/libfabricpulse-*.so; do
  if [ -e "$m" ]; then objects+=("$m"); fi
done
if [ "$backend" = nccl ]; then
  allowed='^lib(c|m|pthread|dl|rt|cuda)[.]so'
  missing_ok='lib(cuda|nvidia-ml)[.]so'
else
  allowed='^lib(c|m|pthread|dl|rt|cuda|nccl)[.]so'
  missing_ok='lib(cuda|nccl|nvidia-ml)[.]so'
fi
ldd "${objects[@]}" 2>&1 | awk -v fp="$fp/" -v allowed="$allowed" -v missing_ok="$missing_ok" '
  /not found/ && $0 !~ missing_ok { bad = bad $0 "\n" }
  $2 == "=>" && $3 ~ /^\// && index($3, fp) != 1 && $1 !~ allowed { bad = bad $0 "\n" }
  END { if (bad != "") { printf "libraries outside the bundle or missing:\n%s", bad; exit 1 } }'

if [ "$backend" = nccl ]; then
  [ -f "$fp/lib/libnccl.so.2" ] || { echo "runtime-setup: no $fp/lib/libnccl.so.2" >&2; exit 1; }
  # The worker (or the NCCL module) must resolve NCCL and the CUDA runtime
  # to the bundle's copies.
  # (ldd prints $ORIGIN/../lib unresolved: bin/../lib.)
  ldd "${objects[@]}" | awk '$1 ~ /^lib(nccl|cudart)[.]so/ { print $1, $3 }' |
    while read -r soname path; do echo "$soname $(readlink -f "$path")"; done |
    awk -v fp="$fp/lib/" '
    { seen[$1] = 1; if (index($2, fp) != 1) bad = bad $0 "\n" }
    END {
      if (!("libnccl.so.2" in seen)) bad = bad "nothing in the bundle links libnccl.so.2\n"
      if (bad != "") { printf "NCCL or cudart not from the bundle:\n%s", bad; exit 1 }
    }'
  driver_libs="$(find "$fp" -name 'libcuda.so*' -o -name 'libnvidia-ml.so*')"
  driver_libs+="$(ldconfig -p | awk '$1 ~ /^lib(cuda|nvidia-ml)\.so\.1$/ { print "\n" $NF }')"
  if [ -n "$driver_libs" ]; then
    echo "runtime-setup: the image carries driver libraries the NVIDIA runtime injects:$driver_libs" >&2
    exit 1
  fi
  echo "nccl: $(sed -n 's/^nccl_version=//p' "$fp/share/build-info") in $fp/lib" \
    "(+ $(cd "$fp/lib" && echo libcudart.so.*)); no libcuda or libnvidia-ml in the image"
fi

for b in fabricpulse fabricpulse-coordinator fabricpulse-agent fabricpulse-worker; do
  "$fp/bin/$b" --help >/dev/null
done

if ! grep -q '^[^:]*:[^:]*:65532:' /etc/group; then
  if command -v groupadd >/dev/null; then
    groupadd --system --gid 65532 fabricpulse
  else
    echo 'fabricpulse:x:65532:' >>/etc/group
  fi
fi
if ! grep -q '^[^:]*:[^:]*:65532:' /etc/passwd; then
  if command -v useradd >/dev/null; then
    useradd --system --uid 65532 --gid 65532 --no-create-home \
      --home-dir /var/lib/fabricpulse --shell /usr/sbin/nologin fabricpulse
  else
    echo 'fabricpulse:x:65532:65532::/var/lib/fabricpulse:/usr/sbin/nologin' >>/etc/passwd
  fi
fi
mkdir -p /var/lib/fabricpulse /etc/fabricpulse
chown 65532:65532 /var/lib/fabricpulse
