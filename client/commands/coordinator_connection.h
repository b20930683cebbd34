// A connected stub to the coordinator, or one clear error.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "daemon/security/tls_options.h"
#include "fabricpulse/v1/coordinator.grpc.pb.h"
#include "grpcpp/grpcpp.h"

namespace fabricpulse::client {

// Where the CLI connects and as whom (the global --coordinator, --tls-*,
// --insecure and --trust-domain flags).
struct CoordinatorTarget {
  std::string address;
  security::TlsOptions tls;
};

// Connects within a few seconds; the server must be the coordinator
// (mutual TLS, or plaintext with --insecure). Errors: INVALID_ARGUMENT no
// address, an address without a port (coordinator_address.h), or bad TLS
// flags or files (naming them); UNAVAILABLE a host name that does not
// resolve, or naming the address, and why TLS refused the server when it
// did.
absl::StatusOr<std::unique_ptr<v1::CoordinatorService::Stub>>
ConnectCoordinator(const CoordinatorTarget& target);

// Prints "fabricpulse: <message>" on stderr (one line).
void PrintError(const std::string& message);

// Prints a ConnectCoordinator error and returns the exit code for it:
// bad input when no address was given, unreachable otherwise.
int ReportConnectError(const absl::Status& status);

// Prints "<command>: <message>" for a failed call and returns its exit
// code: 3 refused (PERMISSION_DENIED, UNAUTHENTICATED), lost (UNAVAILABLE)
// or not a coordinator (UNIMPLEMENTED: another gRPC server, e.g. an
// agent's port); 2 INVALID_ARGUMENT, and NOT_FOUND when the call looked up
// what the user `named` (a sweep id: an unknown value), where without a
// name it means there is nothing to act on (exit 1); 4 RESOURCE_EXHAUSTED
// (the caller has as many calls in flight as it may); 1 otherwise.
int ReportCallError(const std::string& command, const grpc::Status& status,
                    bool named = false);

}  // namespace fabricpulse::client
