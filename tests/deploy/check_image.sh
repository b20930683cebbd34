#!/usr/bin/env bash
# Builds the FabricPulse container image from deploy/docker/Dockerfile with
# podman (no daemon, no registry: the Debian base is made here with
# debootstrap and imported as localhost/debian:bookworm, its tarball cached in
# .tools/image/ so it is made once; it is both BUILD_BASE and RUNTIME_BASE),
# then runs it:
#   1. the binaries run from the relocatable bundle (scripts/bundle.sh) in
#      /opt/fabricpulse: every shared library they load comes from the bundle
#      except glibc's, so the base needs nothing but glibc >= 2.36 (the
#      Dockerfile's default RUNTIME_BASE is debian:bookworm-slim, which this
#      debootstrap minbase stands in for);
#   2. `fabricpulse local sweep --max-bytes 64K` (Gloo, CPU) prints a real
#      nccl-tests style table: every size 8..65536, no wrong elements;
#   3. the image runs as uid 65532 and carries no compiler;
#   4. time zones: the coordinator accepts a config whose timezone is
#      America/New_York (Abseil reads /usr/share/zoneinfo), in this image and
#      in one built on the same base with tzdata removed (as ubuntu:24.04 and
#      the CUDA images are), where the Dockerfile must bring the zoneinfo tree
#      itself;
#   5. the production path under the chart's coordinator security context
#      (read-only root, all capabilities dropped, uid 65532, tmpfs /tmp), on
#      mutual TLS with certificates made by the image's `fabricpulse certs`:
#      a coordinator container (the image's CMD, TLS from FABRICPULSE_TLS_*),
#      an agent container in its network namespace (TLS from flags), `agents`
#      lists it, a sweep through the coordinator succeeds, and the image's
#      HEALTHCHECK command passes for both daemons: on the coordinator's
#      plaintext --health-listen port, and, for the agent and for a
#      coordinator without --health-listen, on the main port over mutual TLS
#      with the daemon's own certificate; the coordinator reads the shipped
#      deploy/config/coordinator.yaml as the chart gives it.
# Slow (it compiles the project inside the build stage): ctest label `image`,
# enabled with -DFABRICPULSE_IMAGE_TEST=ON; or run this script directly.
#
# Environment: FABRICPULSE_JOBS (compile jobs in the image build, default
# nproc), FABRICPULSE_IMAGE (tag, default localhost/fabricpulse:test),
# KEEP_IMAGE=1 keeps the built image, KEEP_BUILD_CACHE=1 the build stage's
# layers (faster reruns, ~1 GB each).
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
# step, fail, image_setup, image_base, image_build, image_run.
# shellcheck source=tests/deploy/image_lib.sh
source tests/deploy/image_lib.sh
t0=$SECONDS

image_setup check_image
image_base

tag="${FABRICPULSE_IMAGE:-localhost/fabricpulse:test}"
notz_tag="$tag-notzdata"
step "podman build -f deploy/docker/Dockerfile -t $tag (jobs=${FABRICPULSE_JOBS:-$(nproc)})"
build_start=$SECONDS
image_build "$image_dir/build.log" --build-arg RUNTIME_BASE="$base" -t "$tag"
grep -E '^(bundle|zoneinfo):' "$image_dir/build.log" || true
echo "ok: built in $((SECONDS - build_start)) s, $(podman image inspect "$tag" --format '{{.Size}}' | awk '{printf "%.0f MB", $1/1e6}')"

# The HEALTHCHECK command is run by hand below (image_run: podman cannot arm
# its timer without systemd).
run() { image_run "$@"; }

cleanup() {
  # One at a time: podman 4.3 removes none of several names when one of
  # them is missing, and says nothing.
  for c in fp-image-agent fp-image-coordinator-flags fp-image-test; do
    podman rm -f -t 2 "$c" >/dev/null 2>&1 || true
  done
  [ "${KEEP_IMAGE:-0}" = 1 ] || podman rmi -f "$tag" "$notz_tag" >/dev/null 2>&1 || true
  # The build stage (~1 GB, with the toolchain) is left as a dangling image
  # after every build; the ccache mount keeps recompiles fast without it.
  [ "${KEEP_BUILD_CACHE:-0}" = 1 ] || podman image prune -f >/dev/null 2>&1 || true
}
trap cleanup EXIT

step "image metadata: user, healthcheck, no compiler"
user="$(podman image inspect "$tag" --format '{{.Config.User}}')"
[ "$user" = "65532:65532" ] || fail "image user is '$user', want 65532:65532"
healthcheck="$(podman image inspect "$tag" --format '{{json .Config.Healthcheck}}')"
[[ "$healthcheck" == *fabricpulse-healthcheck* ]] || fail "no HEALTHCHECK in the image config"
run --rm --network none "$tag" sh -c '! command -v c++ && ! command -v cmake && [ "$(id -u)" = 65532 ]' \
  || fail "the runtime image has a compiler or does not run as 65532"
echo "ok: user 65532, HEALTHCHECK set, no toolchain"

step "bundle: every library from /opt/fabricpulse except glibc's"
# The Dockerfile checks this too; checked here on the finished image so that
# the test does not rest on that check staying in the Dockerfile.
libs="$(run --rm --network none "$tag" sh -c 'command -v fabricpulse-worker &&
  cd /opt/fabricpulse/bin && ldd "$PWD/fabricpulse" "$PWD/fabricpulse-coordinator" \
    "$PWD/fabricpulse-agent" "$PWD/fabricpulse-worker"' 2>&1)" \
  || { echo "$libs"; fail "ldd in the image"; }
[ "$(echo "$libs" | head -1)" = /opt/fabricpulse/bin/fabricpulse-worker ] \
  || fail "fabricpulse-worker is not /opt/fabricpulse/bin/fabricpulse-worker on PATH: $(echo "$libs" | head -1)"
outside="$(echo "$libs" | awk '
  /not found/ { print; next }
  $2 == "=>" && index($3, "/opt/fabricpulse/") != 1 && $1 !~ /^lib(c|m|pthread|dl|rt)\.so/ { print }')"
[ -z "$outside" ] || { echo "$outside"; fail "libraries missing or from the base image, not the bundle"; }
echo "ok: $(echo "$libs" | awk '$2 == "=>" && index($3, "/opt/fabricpulse/") == 1 { print $1 }' | sort -u | wc -l) libraries from the bundle, only glibc from the base"

step "podman run $tag fabricpulse local sweep --max-bytes 64K"
out="$(run --rm --network none "$tag" fabricpulse local sweep --max-bytes 64K)" \
  || { echo "$out"; fail "local sweep exited non-zero"; }
echo "$out"
rows="$(echo "$out" | awk '$1 ~ /^[0-9]+$/ && NF == 14 && $3 == "float"' )"
nrows="$(echo "$rows" | grep -c . || true)"
[ "$nrows" -eq 14 ] || fail "want 14 table rows (8 B .. 64 KiB), got $nrows"
echo "$rows" | awk '$1 == 65536 { found = 1 } END { exit !found }' || fail "no 65536-byte row"
echo "$rows" | awk '$9 != 0 || $13 != 0 { bad = 1 } END { exit bad }' || fail "#wrong is not 0"
echo "$rows" | awk '$6 <= 0 || $10 <= 0 { bad = 1 } END { exit bad }' || fail "a time is not positive"
echo "$out" | grep -q 'Out of bounds values : 0 OK' || fail "no data-check summary"
echo "$out" | grep -Eq '^# sweep .* succeeded$' || fail "sweep did not succeed"
echo "ok: $nrows rows, 0 wrong"

step "coordinator + agent in the image, chart security context (read-only root, cap-drop ALL, uid 65532)"
# The shipped coordinator config is mounted and named the way the chart does
# (FABRICPULSE_CONFIG), so a config the binary refuses fails here.
config_args=()
if [ -f deploy/config/coordinator.yaml ]; then
  config_args=(-v "$root/deploy/config/coordinator.yaml:/etc/fabricpulse/coordinator.yaml:ro"
               -e FABRICPULSE_CONFIG=/etc/fabricpulse/coordinator.yaml)
fi
# The state tmpfs stands in for the chart's PVC with fsGroup 65532: `U` makes
# it the container user's. (mode=1777 does not work there: a tmpfs over a
# directory the image has takes that directory's mode, 0755, owned by root,
# and the coordinator could not create its history.db.)
# Mutual TLS as in the chart: a throwaway CA made by the image's own CLI,
# mounted read-only; the container user reads the files.
tls_dir="$image_dir/tls"
rm -rf "$tls_dir"
mkdir -p "$tls_dir"
run --rm --network none --user 0:0 -v "$tls_dir:/out:rw" "$tag" \
  fabricpulse certs /out/pki --issue coordinator/image,agent/image-test,operator/image >/dev/null \
  || fail "fabricpulse certs in the image"
chown -R 65532:65532 "$tls_dir"
pki=/etc/fabricpulse/tls/pki
tls_env=(-v "$tls_dir:/etc/fabricpulse/tls:ro"
         -e FABRICPULSE_TLS_CERT=$pki/coordinator-image.crt
         -e FABRICPULSE_TLS_KEY=$pki/coordinator-image.key
         -e FABRICPULSE_TLS_CA=$pki/ca.crt)
operator=(--tls-cert $pki/operator-image.crt --tls-key $pki/operator-image.key --tls-ca $pki/ca.crt)
run -d --name fp-image-test --network none --read-only "${config_args[@]}" "${tls_env[@]}" \
  --tmpfs /tmp:rw,size=64m --tmpfs /var/lib/fabricpulse:rw,size=64m,U \
  --cap-drop ALL --security-opt no-new-privileges --user 65532:65532 --shm-size 256m \
  "$tag" >/dev/null 2>"$image_dir/run.log" || { cat "$image_dir/run.log"; fail "podman run coordinator"; }
wait_healthy() {  # CONTAINER WHAT: the image's HEALTHCHECK passes within 10 s
  for _ in $(seq 1 50); do
    podman exec "$1" fabricpulse-healthcheck >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  podman exec "$1" fabricpulse-healthcheck \
    || { podman logs "$1" 2>&1 | tail -20; fail "$2: HEALTHCHECK"; }
}
wait_healthy fp-image-test "coordinator (health listener)"
coordinator_help="$(podman exec fp-image-test fabricpulse-coordinator --help 2>&1 || true)"
if [[ "$coordinator_help" == *--config* ]]; then
  echo "ok: coordinator healthcheck (with ${config_args[*]:+the shipped }config)"
else
  echo "ok: coordinator healthcheck (this coordinator has no --config yet: config not exercised)"
fi
# The agent as PID 1 of its own container (so that the HEALTHCHECK asks
# it), in the coordinator's network namespace; no --health-listen, so the
# HEALTHCHECK asks its main port over mutual TLS with its own certificate.
run -d --name fp-image-agent --network container:fp-image-test --read-only \
  -v "$tls_dir:/etc/fabricpulse/tls:ro" --tmpfs /tmp:rw,size=64m \
  --cap-drop ALL --security-opt no-new-privileges --user 65532:65532 --shm-size 256m \
  "$tag" fabricpulse-agent --coordinator 127.0.0.1:7070 \
  --listen 127.0.0.1:7071 --metrics-listen 0.0.0.0:9401 --node-name image-test \
  --backend gloo --ranks 2 --tls-cert $pki/agent-image-test.crt \
  --tls-key $pki/agent-image-test.key --tls-ca $pki/ca.crt >/dev/null 2>"$image_dir/run-agent.log" \
  || { cat "$image_dir/run-agent.log"; fail "podman run agent"; }
agents=""
for _ in $(seq 1 50); do
  agents="$(podman exec fp-image-test fabricpulse --coordinator 127.0.0.1:7070 "${operator[@]}" agents || true)"
  echo "$agents" | grep -Eq '^image-test +alive .* 2 +2 ' && break
  sleep 0.2
done
echo "$agents"
echo "$agents" | grep -Eq '^image-test +alive .* 2 +2 ' || fail "the agent did not register with 2 ready ranks"
sweep="$(podman exec fp-image-test fabricpulse --coordinator 127.0.0.1:7070 "${operator[@]}" sweep \
  --ops all_reduce,all_gather --max-bytes 16K)" || { echo "$sweep"; fail "sweep through the coordinator"; }
echo "$sweep" | tail -4
echo "$sweep" | grep -Eq '^# sweep .* succeeded$' || fail "sweep through the coordinator did not succeed"
agent_metrics="$(podman exec fp-image-agent bash -c 'exec 3<>/dev/tcp/127.0.0.1/9401 &&
  printf "GET /metrics HTTP/1.0\r\n\r\n" >&3 && timeout 5 cat <&3' || true)"
grep -q '^fabricpulse_build_info{.*component="agent"' <<<"$agent_metrics" || fail "agent /metrics"
wait_healthy fp-image-agent "agent (main port, mutual TLS)"
echo "ok: agent registered, sweep succeeded, agent /metrics answers, agent HEALTHCHECK passes"

# A coordinator given TLS by flags and no health listener: the HEALTHCHECK
# asks its main port over mutual TLS as coordinator/image.
run -d --name fp-image-coordinator-flags --network none --read-only \
  -v "$tls_dir:/etc/fabricpulse/tls:ro" --tmpfs /tmp:rw,size=64m \
  --cap-drop ALL --security-opt no-new-privileges --user 65532:65532 \
  "$tag" fabricpulse-coordinator --listen 0.0.0.0:7070 --metrics-listen 127.0.0.1:9400 \
  --state-dir /tmp --tls-cert $pki/coordinator-image.crt --tls-key $pki/coordinator-image.key \
  --tls-ca $pki/ca.crt >/dev/null 2>"$image_dir/run-flags.log" \
  || { cat "$image_dir/run-flags.log"; fail "podman run coordinator (TLS flags)"; }
wait_healthy fp-image-coordinator-flags "coordinator (main port, mutual TLS)"
# And it fails when the daemon does not answer (stopped: no reply within
# the CLI's 5 s).
coordinator_pid="$(podman inspect fp-image-coordinator-flags --format '{{.State.Pid}}')"
kill -STOP "$coordinator_pid"
if podman exec fp-image-coordinator-flags fabricpulse-healthcheck >/dev/null 2>&1; then
  fail "the HEALTHCHECK passed for a stopped coordinator"
fi
kill -CONT "$coordinator_pid"
podman rm -f -t 2 fp-image-coordinator-flags >/dev/null 2>&1 || true
echo "ok: coordinator HEALTHCHECK passes without a health listener, fails when it does not answer"

step "time zones: the coordinator loads a schedule zone other than UTC"
# UTC is built into Abseil; any other zone is read from /usr/share/zoneinfo.
tz_config="$image_dir/coordinator-new-york.yaml"
sed 's#^timezone: .*#timezone: America/New_York#' deploy/config/coordinator.yaml >"$tz_config"
grep -q '^timezone: America/New_York$' "$tz_config" \
  || fail "deploy/config/coordinator.yaml has no top-level timezone: line to change"
check_zone() {  # IMAGE: the coordinator must still be serving after 5 s
  local rc=0
  run --rm --network none -v "$tz_config:/etc/fabricpulse/coordinator.yaml:ro" \
    -e FABRICPULSE_CONFIG=/etc/fabricpulse/coordinator.yaml "$1" \
    timeout 5 fabricpulse-coordinator --listen 127.0.0.1:7070 \
      --metrics-listen 127.0.0.1:9400 --state-dir /tmp --insecure >"$image_dir/tz.log" 2>&1 || rc=$?
  if [ "$rc" != 124 ] || ! grep -q 'listening on' "$image_dir/tz.log"; then
    cat "$image_dir/tz.log"; fail "$1: the coordinator refused timezone America/New_York (rc $rc)"
  fi
}
check_zone "$tag"
echo "ok: America/New_York loads in $tag"

step "time zones on a base without tzdata (as ubuntu:24.04 and nvidia/cuda are)"
# The same Debian base with tzdata purged; only the runtime stage is rebuilt
# (the build stage's layers are reused).
notz_base=localhost/debian:bookworm-notzdata
if ! podman image exists "$notz_base"; then
  notz_ctx="$(mktemp -d)"
  printf 'FROM %s\nRUN DEBIAN_FRONTEND=noninteractive dpkg --purge tzdata && rm -rf /usr/share/zoneinfo\n' \
    "$base" >"$notz_ctx/Containerfile"
  podman build --pull=never --format docker --network none -t "$notz_base" "$notz_ctx" \
    >"$image_dir/build-notzdata-base.log" 2>&1 \
    || { tail -20 "$image_dir/build-notzdata-base.log"; fail "making $notz_base"; }
  rm -rf "$notz_ctx"
fi
run --rm --network none "$notz_base" sh -c '! [ -e /usr/share/zoneinfo ]' \
  || fail "$notz_base still has /usr/share/zoneinfo"
build_start=$SECONDS
image_build "$image_dir/build-notzdata.log" --build-arg RUNTIME_BASE="$notz_base" -t "$notz_tag"
grep -E '^zoneinfo:' "$image_dir/build-notzdata.log" || true
run --rm --network none "$notz_tag" sh -c '[ -f /usr/share/zoneinfo/America/New_York ]' \
  || fail "$notz_tag has no /usr/share/zoneinfo/America/New_York"
check_zone "$notz_tag"
echo "ok: built in $((SECONDS - build_start)) s; the image brings its zoneinfo and America/New_York loads"

echo
echo "check_image: all checks passed in $((SECONDS - t0)) s"
