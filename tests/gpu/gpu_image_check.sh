#!/usr/bin/env bash
# Runs the GPU image's root filesystem on a GPU machine without podman or
# docker, the way the NVIDIA container runtime would run the image, and
# checks that it runs an NCCL sweep with the NCCL inside the image.
#
#   tests/gpu/gpu_image_check.sh [--cpu] [--nccl-from FILE|auto] PARTS_DIR OUT_DIR
#
# PARTS_DIR holds what tests/deploy/build_gpu_image.sh wrote (MANIFEST,
# SHA256SUMS, image-config and the parts). As root:
#  1. verifies every part against SHA256SUMS and the joined tarball against
#     MANIFEST, and unpacks the root filesystem into a temporary folder
#     (WORK_DIR, default /var/tmp); with --nccl-from, the tarball without
#     libnccl.so.2 is used and FILE (auto: the nvidia-nccl wheel's) is put in
#     its place, only if its sha256 is the image's;
#  2. in a new mount, PID and network namespace (unshare --mount --pid --net
#     --fork; only loopback, brought up), mounts what the NVIDIA runtime
#     would give the container: the driver's libcuda.so.1, libnvidia-ml.so.1
#     and the other compute and utility libraries of the same driver (found
#     with `ldconfig -p`, else in /usr/local/nvidia/lib64 or
#     /usr/lib/x86_64-linux-gnu) bound read-only into the image's
#     /usr/lib/x86_64-linux-gnu, its ld.so.cache refreshed (the runtime's
#     ldconfig hook), nvidia-smi; a /dev of its own with null, zero, full,
#     random, urandom, tty and /dev/nvidia0.., nvidiactl, nvidia-uvm,
#     nvidia-uvm-tools; a new /proc, a read-only /sys, tmpfs /dev/shm and /tmp;
#  3. chroots into it and runs, as the image's user (65532) with the image's
#     environment and working directory,
#       fabricpulse local --backend nccl --agents 1 --ranks 1 sweep --ops all_reduce --max-bytes 64M
#     with NCCL_DEBUG=INFO written to a file and NCCL_SOCKET_IFNAME=lo;
#  4. checks: the table has every size 8 B .. 64 MiB with 0 wrong values in
#     both placements and the sweep succeeded; NCCL said the image's version;
#     the worker's /proc/PID/maps shows libnccl.so.2 and libcudart from the
#     image's /opt/fabricpulse/lib and libcuda from the bound driver library.
# Every mount is made inside the new mount namespace and unmounted by a trap
# there (the namespace ends with the script anyway); the outer trap checks
# that none is left under the work folder before deleting it.
#
# --cpu: the same flow without a GPU (no driver libraries or device nodes):
# a Gloo sweep, 1 agent x 2 ranks, up to CPU_MAX_BYTES (default 1M); the
# worker's maps are still checked for the image's libnccl when it is mapped.
#
# OUT_DIR gets gpu_image_check.log (every PASS/FAIL line), sweep.txt,
# nccl-debug.log, worker-maps.txt and local-logs.txt (the daemons' logs).
# Environment: WORK_DIR, KEEP_ROOTFS=1 (keep the unpacked tree),
# SWEEP_TIMEOUT (seconds, default 300), SHM_SIZE (default 1g); NCCL_*,
# FABRICPULSE_*, CUDA_VISIBLE_DEVICES, NVSHMEM_* and TORCH_* variables are
# passed into the image (NCCL_NVLS_ENABLE defaults to 0).
# Exits 0 only if every check passed.
set -euo pipefail
self="$(readlink -f "$0")"

# ----------------------------------------------------------------------------
# Inside the new namespaces (the script runs itself): mount, run, collect.
# Reads R (root filesystem), OUTD, MODE, DRIVER_LIBS, DEVICES, RUN_ENV_FILE,
# WORKDIR_IN, USER_IN, SWEEP_ARGS_FILE.
mounts=()  # what inner() mounted, in order
# shellcheck disable=SC2317  # run by inner()'s EXIT trap
umount_all() {
  local i left
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
    umount "${mounts[$i]}" 2>/dev/null || umount -l "${mounts[$i]}" || true
  done
  left="$(awk -v r="$R/" 'index($5, r) == 1 { n++ } END { print n + 0 }' /proc/self/mountinfo)"
  echo "inner: ${#mounts[@]} mounts made, $left left after unmounting"
}
inner() {
  local rc=0
  trap umount_all EXIT
  mnt() {  # mnt TARGET MOUNT-ARGS...: mount and remember
    local target="$1"
    shift
    mount "$@" "$target"
    mounts+=("$target")
  }
  bind_file() {  # bind_file SOURCE TARGET [ro]
    [ -e "$2" ] || : >"$2"
    mnt "$2" --bind "$1"
    if [ "${3:-}" = ro ]; then mount -o remount,bind,ro "$2"; fi
  }

  # Loopback only: this network namespace has nothing else.
  if command -v ip >/dev/null; then
    ip link set lo up
  else
    python3 -c '
import fcntl, socket, struct
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
req = struct.pack("16sh22x", b"lo", 0)
flags = struct.unpack("16sh22x", fcntl.ioctl(s, 0x8913, req))[1]
fcntl.ioctl(s, 0x8914, struct.pack("16sh22x", b"lo", flags | 1))'
  fi

  mnt "$R/proc" -t proc -o nosuid,nodev,noexec proc
  mnt "$R/sys" -t sysfs -o ro,nosuid,nodev,noexec sysfs
  mnt "$R/dev" -t tmpfs -o nosuid,mode=755,size=64k tmpfs
  local n
  for n in null zero full random urandom tty; do bind_file "/dev/$n" "$R/dev/$n"; done
  ln -s /proc/self/fd "$R/dev/fd"
  ln -s /proc/self/fd/0 "$R/dev/stdin"
  ln -s /proc/self/fd/1 "$R/dev/stdout"
  ln -s /proc/self/fd/2 "$R/dev/stderr"
  mkdir -p "$R/dev/shm" "$R/dev/pts"
  mnt "$R/dev/shm" -t tmpfs -o "nosuid,nodev,mode=1777,size=${SHM_SIZE:-1g}" shm
  mnt "$R/tmp" -t tmpfs -o nosuid,nodev,mode=1777 tmpfs
  local d
  for d in $DEVICES; do
    if [ -d "$d" ]; then  # /dev/nvidia-caps
      mkdir -p "$R$d"
      mnt "$R$d" --bind "$d"
    else
      bind_file "$d" "$R$d"
    fi
  done
  # The driver's libraries into the image's library folder, as the runtime
  # does: the file under its own name, the soname as a link to it.
  local libdir="$R/usr/lib/x86_64-linux-gnu" soname path
  while read -r soname path; do
    [ -n "$soname" ] || continue
    bind_file "$path" "$libdir/${path##*/}" ro
    [ "$soname" = "${path##*/}" ] || ln -sf "${path##*/}" "$libdir/$soname"
  done <<<"$DRIVER_LIBS"
  if [ -n "$NVIDIA_SMI" ]; then bind_file "$NVIDIA_SMI" "$R/usr/bin/nvidia-smi" ro; fi
  if [ -n "$DRIVER_LIBS" ]; then
    chroot "$R" /sbin/ldconfig
    chroot "$R" /sbin/ldconfig -p | awk '$1 ~ /^lib(cuda|nvidia-ml)[.]so[.]1$/ { print "inner: ld.so.cache: " $1 " => " $NF }'
  fi
  echo "inner: PID $$ of a new PID namespace; its network interfaces: $(cd "$R/sys/class/net" && echo *)"

  local run_env=()
  mapfile -t run_env <"$RUN_ENV_FILE"
  local sweep_args=()
  mapfile -t sweep_args <"$SWEEP_ARGS_FILE"
  local as=("--userspec=$USER_IN")
  [ -z "$GROUPS_IN" ] || as+=("--groups=$GROUPS_IN")
  if [ -n "$NVIDIA_SMI" ]; then
    chroot "${as[@]}" "$R" /usr/bin/env -i "${run_env[@]}" nvidia-smi -L >"$OUTD/nvidia-smi.txt" 2>&1 || true
    sed 's/^/inner: nvidia-smi (in the image, as the image user): /' "$OUTD/nvidia-smi.txt"
  fi

  # The worker's mapped libraries, read while the sweep runs. /proc/PID/maps
  # names files as this process (outside the chroot) sees them.
  (
    set +e  # a worker may exit between listing and reading
    while :; do
      for p in "$R"/proc/[0-9]*; do
        [[ "$(readlink "$p/exe" 2>/dev/null)" == */fabricpulse-worker ]] || continue
        uid="$(awk '/^Uid:/ { print $2 }' "$p/status" 2>/dev/null)"
        maps="$(awk '$6 ~ /lib(nccl|cudart|cuda|nvidia-ml)[.]so/ { print $6 }' "$p/maps" 2>/dev/null | sort -u)"
        # Both read before the worker went away, or neither is kept.
        if [ -z "$maps" ] || [ -z "$uid" ]; then continue; fi
        # Keep the fullest snapshot (libcuda is mapped once CUDA starts).
        have=0
        [ ! -f "$OUTD/worker-maps.txt" ] || have="$(grep -vc '^#' "$OUTD/worker-maps.txt")"
        if [ "$(wc -l <<<"$maps")" -ge "$have" ]; then
          printf '# pid %s uid %s\n%s\n' "${p##*/}" "$uid" "$maps" >"$OUTD/worker-maps.txt"
        fi
      done
      sleep 0.05
    done
  ) &
  local poller=$!

  echo "inner: chroot --userspec=$USER_IN $R env -i ... (cd $WORKDIR_IN) ${sweep_args[*]}"
  timeout -k 10 "${SWEEP_TIMEOUT:-300}" chroot "${as[@]}" "$R" \
    /usr/bin/env -i -C "$WORKDIR_IN" "${run_env[@]}" "${sweep_args[@]}" \
    >"$OUTD/sweep.txt" 2>&1 || rc=$?
  kill "$poller" 2>/dev/null || true
  wait "$poller" 2>/dev/null || true
  echo "$rc" >"$OUTD/.sweep-rc"

  cat "$R"/tmp/nccl-debug.* >"$OUTD/nccl-debug.log" 2>/dev/null || : >"$OUTD/nccl-debug.log"
  local f
  for f in "$R"/tmp/fabricpulse-local-*/*.log; do
    [ -e "$f" ] || continue
    echo "==== ${f#"$R"}"
    tail -200 "$f"
  done >"$OUTD/local-logs.txt"
  rm -rf "$R"/tmp/fabricpulse-local-*
}

if [ "${1:-}" = --inner ]; then
  inner
  exit 0
fi

# ----------------------------------------------------------------------------
# Outside: verify, unpack, call the inner part, check.
mode=gpu
nccl_from=""
while [ $# -gt 0 ]; do
  case "$1" in
    --cpu) mode=cpu; shift ;;
    --nccl-from) nccl_from="${2:?--nccl-from FILE|auto}"; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$self"; exit 0 ;;
    -*) echo "gpu_image_check: unknown flag $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -eq 2 ] || { echo "usage: $0 [--cpu] [--nccl-from FILE|auto] PARTS_DIR OUT_DIR" >&2; exit 2; }
parts="$(cd "$1" && pwd)"
mkdir -p "$2"
out="$(cd "$2" && pwd)"
exec > >(tee "$out/gpu_image_check.log") 2>&1
tee_pid=$!
finish_log() {  # the log complete before the script returns
  exec >&- 2>&-
  wait "$tee_pid" 2>/dev/null || true
}
trap finish_log EXIT

failures=0
pass() { echo "PASS: $*"; }
failed() { echo "FAIL: $*"; failures=$((failures + 1)); }
die() {
  echo "FAIL: $*"
  echo "gpu_image_check: FAIL"
  exit 1
}
[ "$(id -u)" = 0 ] || die "run as root (mounts, unshare, chroot)"
for tool in unshare chroot mount umount sha256sum tar timeout; do
  command -v "$tool" >/dev/null || die "no $tool on this machine"
done
for f in MANIFEST SHA256SUMS image-config; do
  [ -f "$parts/$f" ] || die "$parts has no $f (tests/deploy/build_gpu_image.sh writes it)"
done
manifest() { awk -v k="$1" 'index($0, k "=") == 1 && !d { print substr($0, length(k) + 2); d = 1 }' "$parts/MANIFEST"; }
echo "image: $(manifest image) $(manifest image_id) (commit $(manifest commit), built $(manifest built))"
echo "mode: $mode; NCCL in the image: $(manifest nccl_version) sha256 $(manifest nccl_sha256)"

# 1. Parts.
(cd "$parts" && sha256sum --quiet -c <(grep -E ' (MANIFEST|image-config)$' SHA256SUMS)) \
  || die "MANIFEST or image-config does not match SHA256SUMS"
if [ -n "$nccl_from" ]; then set_name=nonccl; else set_name=full; fi
tarball="$(manifest "$set_name")"
want_parts="$(manifest "${set_name}_parts")"
present=()
missing=()
for ((i = 0; i < want_parts; i++)); do
  p="$(printf '%s.%02d' "$tarball" "$i")"
  if [ -f "$parts/$p" ]; then present+=("$p"); else missing+=("$p"); fi
done
if [ ${#missing[@]} -gt 0 ]; then
  hint=""
  [ -n "$nccl_from" ] || hint="; with only $(manifest nonccl).00.. there, add --nccl-from auto"
  die "parts missing in $parts: ${missing[*]}$hint"
fi
(cd "$parts" && sha256sum --quiet -c <(awk 'FNR == NR { want[$0] = 1; next } $2 in want' \
  <(printf '%s\n' "${present[@]}") SHA256SUMS)) || die "a part does not match SHA256SUMS"
joined_sha="$(cd "$parts" && cat "${present[@]}" | sha256sum | cut -d' ' -f1)"
[ "$joined_sha" = "$(manifest "${set_name}_sha256")" ] || die "the joined $tarball does not match MANIFEST"
pass "$want_parts part(s) of $tarball verified ($(manifest "${set_name}_bytes") bytes, sha256 $joined_sha)"

# 2. Unpack.
work="$(mktemp -d "${WORK_DIR:-/var/tmp}/fp-gpu-image-check.XXXXXX")"
R="$work/rootfs"
mkdir "$R"
cleanup() {
  local left
  rm -f "$out/.sweep-rc"
  # Mounts live in the inner namespace and end with it; should one show
  # here, unmount it (deepest first) and keep the tree rather than delete
  # through it.
  left="$(awk -v w="$work/" 'index($5, w) == 1 { print $5 }' /proc/self/mountinfo | sort -r)"
  if [ -n "$left" ]; then
    echo "cleanup: unmounting what is left under $work:"
    echo "$left"
    while read -r m; do umount -l "$m" || true; done <<<"$left"
  fi
  if [ -n "$(awk -v w="$work/" 'index($5, w) == 1' /proc/self/mountinfo)" ]; then
    echo "cleanup: mounts remain under $work; not deleting it"
  elif [ "${KEEP_ROOTFS:-0}" = 1 ]; then
    echo "cleanup: kept $R"
  else
    rm -rf --one-file-system "$work"
  fi
  finish_log
}
trap cleanup EXIT
decompress() {
  if command -v xz >/dev/null; then
    xz -dc
  else
    python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.stdin.buffer), sys.stdout.buffer, 1 << 20)'
  fi
}
(cd "$parts" && cat "${present[@]}") | decompress | tar -x --numeric-owner -p -C "$R" \
  || die "unpacking $tarball"
nccl_member="$(manifest nccl_member)"
if [ -n "$nccl_from" ]; then
  if [ "$nccl_from" = auto ]; then
    nccl_from="$(python3 -c 'import nvidia.nccl, os; print(os.path.join(nvidia.nccl.__path__[0], "lib", "libnccl.so.2"))' 2>/dev/null)" \
      || die "--nccl-from auto: no nvidia-nccl wheel in python3"
  fi
  [ -f "$nccl_from" ] || die "--nccl-from: no file $nccl_from"
  from_sha="$(sha256sum "$nccl_from" | cut -d' ' -f1)"
  [ "$from_sha" = "$(manifest nccl_sha256)" ] \
    || die "--nccl-from $nccl_from is not the image's libnccl.so.2 (sha256 $from_sha); carry the full parts instead"
  install -m "$(manifest nccl_mode)" -o 0 -g 0 "$nccl_from" "$R/$nccl_member"
  pass "$nccl_from is byte for byte the image's libnccl.so.2: put in its place"
fi
[ "$(sha256sum "$R/$nccl_member" | cut -d' ' -f1)" = "$(manifest nccl_sha256)" ] \
  || die "the unpacked $nccl_member is not the image's"
info_version="$(sed -n 's/^nccl_version=//p' "$R/opt/fabricpulse/share/build-info")"
[ "$info_version" = "$(manifest nccl_version)" ] || die "build-info says NCCL $info_version"
pass "root filesystem unpacked ($(du -sm "$R" | cut -f1) MB) with NCCL $info_version in /$nccl_member"
while read -r f; do
  [ -z "$f" ] || failed "the image carries a driver library: $f"
done <<<"$(find "$R" -xdev \( -name 'libcuda.so*' -o -name 'libnvidia-ml.so*' \) -printf '/%P\n')"

# 3. What the NVIDIA runtime would give the container.
DRIVER_LIBS=""
DEVICES=""
NVIDIA_SMI=""
if [ "$mode" = gpu ]; then
  lib_dirs=(/usr/local/nvidia/lib64 /usr/lib/x86_64-linux-gnu /usr/lib64 /lib/x86_64-linux-gnu)
  find_lib() {  # find_lib NAME-REGEX: "SONAME FILE" of the host's x86-64 library
    local found
    found="$(ldconfig -p 2>/dev/null | awk -v re="^$1\$" '$1 ~ re && /x86-64/ && !f { f = $1 " " $NF } END { print f }')"
    if [ -z "$found" ]; then
      found="$(find "${lib_dirs[@]}" -maxdepth 1 -regextype posix-extended \
        -regex ".*/$1" -print -quit 2>/dev/null || true)"
      [ -z "$found" ] || found="${found##*/} $found"
    fi
    [ -n "$found" ] || return 0
    echo "${found%% *} $(readlink -f "${found#* }")"
  }
  # The compute and utility libraries of nvidia-container-toolkit's lists.
  for spec in 'libcuda[.]so[.]1:required' 'libnvidia-ml[.]so[.]1:required' \
    'libcudadebugger[.]so[.]1' 'libnvidia-ptxjitcompiler[.]so[.]1' 'libnvidia-nvvm[.]so[.][0-9]+' \
    'libnvidia-gpucomp[.]so[.][0-9.]+' 'libnvidia-cfg[.]so[.]1' 'libnvidia-allocator[.]so[.]1' \
    'libnvidia-opencl[.]so[.]1'; do
    re="${spec%%:*}"
    found="$(find_lib "$re")"
    if [ -z "$found" ]; then
      [[ "$spec" != *:required ]] || die "no ${re//[][]/} on this machine (ldconfig -p, ${lib_dirs[*]})"
      continue
    fi
    DRIVER_LIBS+="$found"$'\n'
  done
  echo "driver libraries to bind:"
  sed '/^$/d; s/^/  /' <<<"$DRIVER_LIBS"
  for d in /dev/nvidiactl /dev/nvidia-uvm; do
    [ -c "$d" ] || die "no $d on this machine"
    DEVICES+="$d "
  done
  for d in /dev/nvidia-uvm-tools /dev/nvidia[0-9]* /dev/nvidia-caps; do
    [ -e "$d" ] && DEVICES+="$d "
  done
  [[ "$DEVICES" == *"/dev/nvidia"[0-9]* ]] || die "no /dev/nvidia0.. on this machine"
  echo "devices to bind: $DEVICES"
  NVIDIA_SMI="$(command -v nvidia-smi || true)"
  sweep_args=(fabricpulse local --backend nccl --agents 1 --ranks 1 sweep --ops all_reduce --max-bytes 64M)
else
  sweep_args=(fabricpulse local --backend gloo --agents 1 --ranks 2 sweep --ops all_reduce
              --max-bytes "${CPU_MAX_BYTES:-1M}")
fi

# The image's config: user, working directory, environment; then what
# the caller's environment adds (NCCL's debug output to a file).
image_user="$(sed -n 's/^user=//p' "$parts/image-config")"
image_workdir="$(sed -n 's/^workdir=//p' "$parts/image-config")"
env_file="$work/run.env"
{
  sed -n 's/^env=//p' "$parts/image-config"
  echo "HOME=${image_workdir:-/}"
  echo "NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}"
  echo "NCCL_SOCKET_IFNAME=${NCCL_SOCKET_IFNAME:-lo}"
  echo "NCCL_DEBUG=${NCCL_DEBUG:-INFO}"
  echo "NCCL_DEBUG_SUBSYS=${NCCL_DEBUG_SUBSYS:-INIT,ENV,NET}"
  echo "NCCL_DEBUG_FILE=/tmp/nccl-debug.%h.%p.log"
  echo "FABRICPULSE_KEEP_LOCAL_DIR=1"
  env | grep -E '^(NCCL_|FABRICPULSE_|CUDA_VISIBLE_DEVICES=|NVSHMEM_|TORCH_)' |
    grep -Ev '^NCCL_(NVLS_ENABLE|SOCKET_IFNAME|DEBUG|DEBUG_SUBSYS|DEBUG_FILE)=' || true
} >"$env_file"
printf '%s\n' "${sweep_args[@]}" >"$work/sweep.args"
image_groups=""
if [[ "$image_user" == *:* ]]; then image_groups="${image_user#*:}"; fi
# The runtime gives the container the host's device nodes as they are: if
# they are not open to everyone (usually 0666), the image's user gets their
# group, as a pod's supplementalGroups would give it.
for d in $DEVICES; do
  [ -c "$d" ] || continue
  if [ $(($(stat -c '0%a' "$d") & 6)) -ne 6 ]; then
    g="$(stat -c %g "$d")"
    echo "note: $d is mode $(stat -c %a "$d"), group $g: the image's user gets group $g"
    [[ ",$image_groups," == *",$g,"* ]] || image_groups="${image_groups:+$image_groups,}$g"
  fi
done
rm -f "$out/worker-maps.txt" "$out/sweep.txt" "$out/nccl-debug.log" "$out/local-logs.txt" "$out/nvidia-smi.txt"

# 4. Into the namespaces.
echo "unshare --mount --propagation private --pid --net --fork: inner part"
R="$R" OUTD="$out" MODE="$mode" DRIVER_LIBS="$DRIVER_LIBS" DEVICES="$DEVICES" NVIDIA_SMI="$NVIDIA_SMI" \
  RUN_ENV_FILE="$env_file" WORKDIR_IN="${image_workdir:-/}" USER_IN="${image_user:-0:0}" \
  GROUPS_IN="$image_groups" SWEEP_ARGS_FILE="$work/sweep.args" SWEEP_TIMEOUT="${SWEEP_TIMEOUT:-300}" \
  SHM_SIZE="${SHM_SIZE:-1g}" \
  unshare --mount --propagation private --pid --net --fork -- bash "$self" --inner \
  || die "the namespaced part failed (unshare --mount --pid --net needs root with CAP_SYS_ADMIN)"
sweep_rc="$(cat "$out/.sweep-rc" 2>/dev/null || echo missing)"
rm -f "$out/.sweep-rc"
left="$(awk -v w="$work/" 'index($5, w) == 1' /proc/self/mountinfo | wc -l)"
if [ "$left" -eq 0 ]; then pass "no mount left under $work"; else failed "$left mounts left under $work"; fi

# 5. Checks.
echo "---- ${sweep_args[*]} (exit $sweep_rc)"
cat "$out/sweep.txt"
echo "----"
if [ "$sweep_rc" = 0 ]; then pass "the sweep exited 0"; else failed "the sweep exited $sweep_rc"; fi
max_bytes="${sweep_args[-1]}"
max="$(awk -v s="$max_bytes" 'BEGIN { n = s + 0; u = substr(s, length(s));
  if (u == "K") n *= 1024; else if (u == "M") n *= 1048576; else if (u == "G") n *= 1073741824; print n }')"
rows="$(awk '$1 ~ /^[0-9]+$/ && NF == 14 && $3 == "float"' "$out/sweep.txt")"
want_sizes="$(awk -v max="$max" 'BEGIN { for (s = 8; s <= max; s *= 2) print s }')"
got_sizes="$(awk '{ print $1 }' <<<"$rows")"
if [ -n "$rows" ] && [ "$got_sizes" = "$want_sizes" ]; then
  pass "the table has every size 8 .. $max ($(wc -l <<<"$rows") rows)"
else
  failed "the table's sizes are not 8 .. $max: $(tr '\n' ' ' <<<"$got_sizes")"
fi
if [ -n "$rows" ] && awk '$9 != 0 || $13 != 0 { bad = 1 } END { exit bad }' <<<"$rows"; then
  pass "0 wrong values at every size (out of place and in place)"
else
  failed "wrong values in the table"
fi
if [ -n "$rows" ] && awk '$6 <= 0 || $10 <= 0 { bad = 1 } END { exit bad }' <<<"$rows"; then
  pass "every time is positive"
else
  failed "a time is not positive"
fi
if grep -q 'Out of bounds values : 0 OK' "$out/sweep.txt"; then
  pass "data-check summary: 0 out of bounds"
else
  failed "no 'Out of bounds values : 0 OK' line"
fi
if grep -Eq '^# sweep .* succeeded$' "$out/sweep.txt"; then
  pass "the sweep succeeded"
else
  failed "no '# sweep ... succeeded' line"
fi

lib="$R/opt/fabricpulse/lib"
if [ -s "$out/worker-maps.txt" ]; then
  echo "worker maps:"
  sed 's/^/  /' "$out/worker-maps.txt"
  worker_uid="$(awk '/^# pid/ { print $5 }' "$out/worker-maps.txt")"
  if [ "$worker_uid" = "${image_user%%:*}" ]; then
    pass "the worker ran as uid $worker_uid (the image's user)"
  else
    failed "the worker ran as uid '$worker_uid', want ${image_user%%:*}"
  fi
  nccl_maps="$(grep -E '/libnccl[.]so' "$out/worker-maps.txt" || true)"
  if [ "$nccl_maps" = "$lib/libnccl.so.2" ]; then
    pass "the worker mapped the image's libnccl.so.2 and no other"
  elif [ -z "$nccl_maps" ] && [ "$mode" = cpu ]; then
    echo "SKIP: the Gloo worker did not map libnccl (loaded only for NCCL)"
  else
    failed "the worker's libnccl is not the image's: ${nccl_maps:-none}"
  fi
  cudart_maps="$(grep -E '/libcudart[.]so' "$out/worker-maps.txt" || true)"
  if [ -n "$cudart_maps" ] && [ "${cudart_maps%/*}" = "$lib" ]; then
    pass "the worker mapped the image's libcudart (${cudart_maps##*/})"
  elif [ -z "$cudart_maps" ] && [ "$mode" = cpu ]; then
    echo "SKIP: the Gloo worker did not map libcudart"
  else
    failed "the worker's libcudart is not the image's: ${cudart_maps:-none}"
  fi
  if [ "$mode" = gpu ]; then
    cuda_map="$(grep -E '/libcuda[.]so' "$out/worker-maps.txt" || true)"
    want_cuda="$R/usr/lib/x86_64-linux-gnu/$(awk '$1 == "libcuda.so.1" { sub(/.*\//, "", $2); print $2 }' <<<"$DRIVER_LIBS")"
    if [ "$cuda_map" = "$want_cuda" ]; then
      pass "the worker mapped the driver's libcuda as bound into the image"
    else
      failed "the worker's libcuda is '${cuda_map:-none}', want $want_cuda"
    fi
  fi
else
  failed "no fabricpulse-worker mapping libraries was seen during the sweep"
fi
if [ "$mode" = gpu ]; then
  version_line="$(grep -m1 -E 'NCCL version [0-9]' "$out/nccl-debug.log" || true)"
  echo "NCCL said: ${version_line:-nothing}"
  if [[ "$version_line" =~ NCCL\ version\ ([0-9.]+) ]] &&
    [ "${BASH_REMATCH[1]}" = "$(manifest nccl_version)" ]; then
    pass "NCCL ${BASH_REMATCH[1]} ran: the image's version"
  else
    failed "NCCL did not say version $(manifest nccl_version) (nccl-debug.log)"
  fi
  grep -m1 -E 'Bootstrap: Using|NET/Socket : Using' "$out/nccl-debug.log" | sed 's/^/NCCL network: /' || true
fi

echo
if [ "$failures" -eq 0 ]; then
  echo "gpu_image_check: PASS ($mode)"
else
  echo "gpu_image_check: FAIL ($failures checks failed)"
  exit 1
fi
