// `fabricpulse health HOST:PORT`: asks a daemon's grpc.health.v1 Check, as
// grpc_health_probe does (the image's HEALTHCHECK uses it). Plaintext by
// default, for the health-only --health-listen port; with --tls-server ROLE
// over mutual TLS with the global --tls-* flags, for a daemon's main gRPC
// port (every identity of the CA may ask it for health).
#pragma once

#include <string>

#include "daemon/security/tls_options.h"

namespace fabricpulse::client {

struct HealthFlags {
  std::string address;  // HOST:PORT
  std::string service;  // "" = the server as a whole
  // "" plaintext; "coordinator" or "agent": mutual TLS, and the server's
  // certificate must name that role (any name).
  std::string tls_server;
};

// Prints "SERVING" (exit 0) or the status (exit 1: NOT_SERVING, unknown
// service); exit 3 when nothing answers within 5 s or TLS refused the
// server (naming why); exit 2 without an address, or with --tls-server and
// bad TLS flags or files (`tls`: the global flags, used only then).
int RunHealthCommand(const HealthFlags& flags, const security::TlsOptions& tls);

}  // namespace fabricpulse::client
