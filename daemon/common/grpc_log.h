// gRPC's own log lines through the daemons' logger (core/log.h) at a sane
// level (issue 33, item 3): gRPC writes "E1204 ... ssl_transport_security.cc
// ... No match found for server name" in its own format, one per TLS
// connection whose client sent a host name the certificate does not carry (a
// Kubernetes Service name; FabricPulse checks identities, not names), so an
// idle coordinator logged errors in normal operation.
//
// Levels: gRPC's ERROR becomes `error_level` (a daemon passes kWarning:
// gRPC's errors are a peer's failed handshake or reset, which the daemon's
// own code reports where they matter), except the known per-connection
// lines of normal operation (kRoutineGrpcLines), which become debug; gRPC's
// INFO and DEBUG become debug. Lines are "grpc: FILE:LINE: MESSAGE" (FILE
// without its folders).
//
// Thread-safety: RouteGrpcLogs once from main before gRPC starts; the
// forwarding itself is thread-safe (core::Log is).
#pragma once

#include "absl/strings/string_view.h"
#include "daemon/core/log.h"

namespace fabricpulse::common {

// gRPC's ERROR lines that every normal TLS connection can produce.
inline constexpr absl::string_view kRoutineGrpcLines[] = {
    "No match found for server name",
};

// The level a gRPC line of `grpc_error` (else info or debug) severity and
// `message` is logged at.
core::LogLevel GrpcLineLevel(bool grpc_error, absl::string_view message,
                             core::LogLevel error_level);

// Installs the forwarding; gRPC formats only lines that will be written
// (its verbosity follows FABRICPULSE_LOG: debug lets its INFO through).
void RouteGrpcLogs(core::LogLevel error_level);

}  // namespace fabricpulse::common
