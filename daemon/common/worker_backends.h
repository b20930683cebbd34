// Which backends a fabricpulse-worker binary has built in, as it answers
// `fabricpulse-worker --backends`. Only the worker links NCCL and CUDA: the
// agent and `fabricpulse local` ask it before choosing NCCL.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace fabricpulse::common {

// The flag and its answer: one line of backend names separated by spaces,
// e.g. "gloo nccl".
inline constexpr char kWorkerBackendsFlag[] = "--backends";

// Runs `worker_binary --backends` (killed after `timeout`) and returns the
// names it prints. Errors: NOT_FOUND the binary is missing or not
// executable; FAILED_PRECONDITION it did not answer (e.g. a shared library it
// needs, such as libnccl, is missing), with what it wrote;
// DEADLINE_EXCEEDED it did not exit in time. Thread-compatible (spawns a
// child and reaps it).
absl::StatusOr<std::vector<std::string>> QueryWorkerBackends(
    const std::string& worker_binary,
    absl::Duration timeout = absl::Seconds(10));

}  // namespace fabricpulse::common
