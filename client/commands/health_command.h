// `fabricpulse health HOST:PORT`: asks a daemon's grpc.health.v1 Check, as
// grpc_health_probe does (the image's HEALTHCHECK uses it on the daemons'
// --health-listen port). Plaintext: meant for the health-only listener.
#pragma once

#include <string>

namespace fabricpulse::client {

// Prints "SERVING" (exit 0) or the status (exit 1: NOT_SERVING, unknown
// service); exit 3 when nothing answers within 5 s, 2 without an address.
int RunHealthCommand(const std::string& address, const std::string& service);

}  // namespace fabricpulse::client
