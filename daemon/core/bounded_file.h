// The one way a daemon reads a file it is given at start (the coordinator's
// --config, web configs, authorization policies, certificates and keys):
// a regular file of bounded size, read without ever blocking or allocating
// more than the bound.
//
// Why: `--config /dev/zero` used to read until std::bad_alloc, and
// `--config FIFO` blocked in open() forever. Here the file is opened with
// O_RDONLY | O_NONBLOCK | O_CLOEXEC (a FIFO or device opens at once instead
// of waiting for a writer), checked with fstat on that descriptor (no race
// with a rename between the check and the read), refused unless it is a
// regular file, refused when larger than the bound, and read with the bound
// (a file that grows while it is read is refused, not read past it).
// Symbolic links are followed (Kubernetes mounts Secrets and ConfigMaps as
// links to regular files).
#pragma once

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace fabricpulse::core {

// Bound for configuration files (plans and schedules, web configs,
// authorization policies): 1 MiB.
inline constexpr size_t kMaxConfigFileBytes = size_t{1} << 20;
// Bound for PEM certificates, certificate chains and keys: 1 MiB.
inline constexpr size_t kMaxPemFileBytes = size_t{1} << 20;

// Reads the whole of `path`, at most `max_bytes`. `what` names the file in
// errors, e.g. "--config" or "--tls-cert"; every error reads
// "<what>: cannot read '<path>': <reason>" (the path quoted up to 256
// characters).
// Errors:
//   NOT_FOUND           no such file (or a missing folder on the way);
//   PERMISSION_DENIED   it cannot be opened for reading;
//   FAILED_PRECONDITION not a regular file (directory, FIFO, socket,
//                       character or block device), naming its type;
//   RESOURCE_EXHAUSTED  larger than `max_bytes` (naming both sizes), or it
//                       grew past the bound while being read;
//   other errno-derived codes (absl::ErrnoToStatusCode) for other failures.
// Thread-safe (no shared state); never blocks on a FIFO or device.
absl::StatusOr<std::string> ReadBoundedFile(const std::string& path,
                                            size_t max_bytes,
                                            absl::string_view what);

}  // namespace fabricpulse::core
