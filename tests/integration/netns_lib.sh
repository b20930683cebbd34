# Shared by the network-namespace checks (partition_check.sh,
# bad_link_check.sh); sourced, with `bin` (the binaries' folder) and `dir`
# (a scratch folder) set. Everything here stays on loopback or in the
# namespaces the caller creates.

now() { echo "$EPOCHREALTIME"; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN {printf "%.2f", b - a}'; }
# wait_for SECONDS COMMAND...: polls COMMAND until it succeeds.
wait_for() {
  local limit=$1 start
  shift
  start=$(now)
  until "$@"; do
    if awk -v s="$(since "$start")" -v l="$limit" 'BEGIN {exit !(s > l)}'; then
      return 1
    fi
    read -r -t 0.05 <> <(:) || true
  done
}
port_of() { sed -n "s/^grpc=//p" "$1" 2>/dev/null; }

# netns_tls IDENTITY...: mutual TLS from a throwaway CA in $dir/tls (e.g.
# coordinator/main agent/node-0); the CLI is operator/test.
netns_tls() {
  tls="$dir/tls"
  local ids
  ids=$(IFS=,; echo "coordinator/main,operator/test,$*")
  "$bin/fabricpulse" certs "$tls" --issue "$ids" >/dev/null
  export FABRICPULSE_TLS_CERT="$tls/operator-test.crt"
  export FABRICPULSE_TLS_KEY="$tls/operator-test.key"
  export FABRICPULSE_TLS_CA="$tls/ca.crt"
}
# tls_of NAME: the daemon flags for identity file NAME (e.g. agent-node-0).
tls_of() { echo --tls-cert "$tls/$1.crt" --tls-key "$tls/$1.key" --tls-ca "$tls/ca.crt"; }
