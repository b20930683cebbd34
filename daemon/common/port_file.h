// The daemons' --port-file: two lines "grpc=HOST:PORT" and
// "metrics=HOST:PORT", written atomically once both listeners are up.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace fabricpulse::common {

struct BoundPorts {
  std::string grpc;     // HOST:PORT
  std::string metrics;  // HOST:PORT
};

// Writes to a temporary file and renames it, so a reader never sees half a
// file. Errors: INTERNAL the file could not be written.
absl::Status WritePortFile(const std::string& path, const BoundPorts& ports);

// Waits up to `timeout` for a complete port file. Errors: DEADLINE_EXCEEDED.
absl::StatusOr<BoundPorts> WaitForPortFile(const std::string& path,
                                           absl::Duration timeout);

}  // namespace fabricpulse::common
