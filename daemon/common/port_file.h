// The daemons' --port-file: two lines "grpc=HOST:PORT" and
// "metrics=HOST:PORT", and a third "health=HOST:PORT" when the daemon has a
// --health-listen, written atomically once every listener is up. Readers
// ignore lines they do not know, so an old reader reads a new file and a
// new reader an old one (health then empty).
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace fabricpulse::common {

struct BoundPorts {
  std::string grpc;     // HOST:PORT
  std::string metrics;  // HOST:PORT
  // HOST:PORT; "" when there is no health listener. Initialized, so that
  // {grpc, metrics} still compiles without -Wmissing-field-initializers.
  std::string health = {};
};

// Writes to a temporary file and renames it, so a reader never sees half a
// file. Errors: INTERNAL the file could not be written.
absl::Status WritePortFile(const std::string& path, const BoundPorts& ports);

// Waits up to `timeout` for a complete port file. Errors: DEADLINE_EXCEEDED.
absl::StatusOr<BoundPorts> WaitForPortFile(const std::string& path,
                                           absl::Duration timeout);

}  // namespace fabricpulse::common
