#!/bin/bash
# Container HEALTHCHECK for the FabricPulse image (Docker/Podman; Kubernetes
# ignores HEALTHCHECK and uses the chart's probes instead).
#
# Finds which daemon is PID 1 and asks it:
#  - with a health listener (--health-listen or FABRICPULSE_HEALTH_LISTEN):
#    `fabricpulse health HOST:PORT`, the daemon's grpc.health.v1 Check
#    (plaintext, no certificate needed), which must say SERVING;
#  - otherwise, as before: the coordinator answers
#    `fabricpulse --coordinator 127.0.0.1:PORT agents` (a gRPC round trip),
#    the agent's GET /metrics answers with fabricpulse_build_info.
# Ports come from the daemon's flags or their FABRICPULSE_* environment
# variables, defaulting to 7070/9400 (coordinator) and 7071/9401 (agent).
set -u

args=()
while IFS= read -r -d '' a; do args+=("$a"); done </proc/1/cmdline
env_of_pid1() {
  tr '\0' '\n' </proc/1/environ 2>/dev/null | sed -n "s/^$1=//p" | head -1
}
flag() {  # flag NAME -> value of --NAME VALUE or --NAME=VALUE
  local i
  for ((i = 0; i < ${#args[@]}; i++)); do
    case "${args[$i]}" in
      "--$1") echo "${args[$((i + 1))]:-}"; return ;;
      "--$1="*) echo "${args[$i]#--$1=}"; return ;;
    esac
  done
}
port_of() { echo "${1##*:}"; }

health="$(flag health-listen)"
health="${health:-$(env_of_pid1 FABRICPULSE_HEALTH_LISTEN)}"
case "$(basename "${args[0]:-}")" in
  fabricpulse-coordinator | fabricpulse-agent)
    if [ -n "$health" ]; then
      host="${health%:*}"
      case "$host" in ""|0.0.0.0|"[::]"|::) host=127.0.0.1 ;; esac
      exec fabricpulse health "${host}:$(port_of "$health")" >/dev/null
    fi
    ;;
esac

case "$(basename "${args[0]:-}")" in
  fabricpulse-coordinator)
    listen="$(flag listen)"; listen="${listen:-$(env_of_pid1 FABRICPULSE_LISTEN)}"
    port="$(port_of "${listen:-:7070}")"
    exec fabricpulse --coordinator "127.0.0.1:${port}" agents >/dev/null
    ;;
  fabricpulse-agent)
    metrics="$(flag metrics-listen)"
    metrics="${metrics:-$(env_of_pid1 FABRICPULSE_METRICS_LISTEN)}"
    host="${metrics%:*}"; port="$(port_of "${metrics:-:9401}")"
    case "$host" in ""|0.0.0.0|"[::]"|::) host=127.0.0.1 ;; esac
    exec 3<>"/dev/tcp/${host}/${port}" || exit 1
    printf 'GET /metrics HTTP/1.0\r\nHost: %s\r\n\r\n' "$host" >&3
    timeout 5 cat <&3 | grep -q '^fabricpulse_build_info'
    ;;
  *)
    # Not a daemon (a CLI run, `fabricpulse local ...`): nothing to check.
    exit 0
    ;;
esac
