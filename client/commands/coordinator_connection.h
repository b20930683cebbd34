// A connected stub to the coordinator, or one clear error.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "fabricpulse/v1/coordinator.grpc.pb.h"

namespace fabricpulse::client {

// Connects within a few seconds. Errors: UNAVAILABLE naming the address.
absl::StatusOr<std::unique_ptr<v1::CoordinatorService::Stub>>
ConnectCoordinator(const std::string& address);

// Prints "fabricpulse: <message>" on stderr (one line).
void PrintError(const std::string& message);

// Prints a ConnectCoordinator error and returns the exit code for it:
// bad input when no address was given, unreachable otherwise.
int ReportConnectError(const absl::Status& status);

}  // namespace fabricpulse::client
