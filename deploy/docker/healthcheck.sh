#!/bin/bash
# Container HEALTHCHECK for the FabricPulse image (Docker/Podman; Kubernetes
# ignores HEALTHCHECK and uses the chart's probes instead).
#
# Finds which daemon is PID 1 and asks its grpc.health.v1 Check with
# `fabricpulse health`, which must say SERVING:
#  - with a health listener (--health-listen or FABRICPULSE_HEALTH_LISTEN):
#    on it, in plaintext (no certificate needed);
#  - otherwise on the daemon's main gRPC port (--listen or FABRICPULSE_LISTEN;
#    when that port is 0, the grpc= line of its --port-file), over mutual TLS
#    with the daemon's own --tls-cert, --tls-key, --tls-ca and --trust-domain
#    (or their FABRICPULSE_* variables; every identity of the CA may ask for
#    health), or in plaintext when the daemon runs --insecure. (Not GET
#    /metrics: with a web config it needs TLS or a password, and a slow
#    scraper would make the container unhealthy.)
# Values come from PID 1's flags, else its environment. Without either, the
# ports default to 7070 (coordinator) and 7071 (agent), the image's.
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
value() {  # value FLAG ENV -> the flag's value, else PID 1's variable
  local v
  v="$(flag "$1")"
  echo "${v:-$(env_of_pid1 "$2")}"
}
port_of() { echo "${1##*:}"; }
local_host() {  # HOST:PORT -> the host to dial (a wildcard is 127.0.0.1)
  local host="${1%:*}"
  case "$host" in "" | 0.0.0.0 | "[::]" | ::) host=127.0.0.1 ;; esac
  echo "$host"
}

case "$(basename "${args[0]:-}")" in
  fabricpulse-coordinator) role=coordinator default_port=7070 ;;
  fabricpulse-agent) role=agent default_port=7071 ;;
  *)
    # Not a daemon (a CLI run, `fabricpulse local ...`): nothing to check.
    exit 0
    ;;
esac
# Relative paths in its flags are the daemon's.
cd /proc/1/cwd 2>/dev/null || true

health="$(value health-listen FABRICPULSE_HEALTH_LISTEN)"
if [ -n "$health" ]; then
  exec fabricpulse health "$(local_host "$health"):$(port_of "$health")" >/dev/null
fi

listen="$(value listen FABRICPULSE_LISTEN)"
listen="${listen:-:${default_port}}"
if [ "$(port_of "$listen")" = 0 ]; then
  port_file="$(value port-file FABRICPULSE_PORT_FILE)"
  [ -n "$port_file" ] || exit 1
  listen="$(sed -n 's/^grpc=//p' "$port_file" 2>/dev/null | head -1)"
  [ -n "$listen" ] || exit 1
fi
target="$(local_host "$listen"):$(port_of "$listen")"

# The CLI gets the daemon's own TLS settings, read by the same code: its
# TLS flags as given and its TLS variables (--insecure: plaintext).
tls=()
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[$i]}" in
    --tls-cert | --tls-key | --tls-ca | --trust-domain)
      tls+=("${args[$i]}" "${args[$((i + 1))]:-}"); i=$((i + 1)) ;;
    --tls-cert=* | --tls-key=* | --tls-ca=* | --trust-domain=* | --insecure | --insecure=*)
      tls+=("${args[$i]}") ;;
  esac
done
for v in FABRICPULSE_TLS_CERT FABRICPULSE_TLS_KEY FABRICPULSE_TLS_CA \
  FABRICPULSE_INSECURE FABRICPULSE_TRUST_DOMAIN; do
  unset "$v"
  val="$(env_of_pid1 "$v")"
  [ -z "$val" ] || export "$v=$val"
done
exec fabricpulse "${tls[@]}" health "$target" --tls-server "$role" >/dev/null
