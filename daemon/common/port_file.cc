#include "daemon/common/port_file.h"

#include <fstream>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/common/atomic_file.h"

namespace fabricpulse::common {
namespace {

bool TryRead(const std::string& path, BoundPorts* ports) {
  std::ifstream in(path);
  if (!in) return false;
  std::string line;
  BoundPorts read;
  while (std::getline(in, line)) {
    if (absl::StartsWith(line, "grpc=")) read.grpc = line.substr(5);
    if (absl::StartsWith(line, "metrics=")) read.metrics = line.substr(8);
    if (absl::StartsWith(line, "health=")) read.health = line.substr(7);
  }
  if (read.grpc.empty() || read.metrics.empty()) return false;
  *ports = read;
  return true;
}

}  // namespace

absl::Status WritePortFile(const std::string& path, const BoundPorts& ports) {
  std::string text =
      absl::StrCat("grpc=", ports.grpc, "\n", "metrics=", ports.metrics, "\n");
  if (!ports.health.empty())
    absl::StrAppend(&text, "health=", ports.health, "\n");
  absl::Status written =
      WriteFileAtomically(path, absl::StrCat(path, ".tmp"), text);
  if (!written.ok()) {
    return absl::InternalError(absl::StrCat("port-file: ", written.message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<BoundPorts> WaitForPortFile(const std::string& path,
                                           absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  absl::Duration backoff = absl::Milliseconds(1);
  BoundPorts ports;
  while (!TryRead(path, &ports)) {
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(
          absl::StrCat("no complete port file at '", path, "' after ",
                       absl::FormatDuration(timeout)));
    }
    std::this_thread::sleep_for(absl::ToChronoMicroseconds(backoff));
    backoff = std::min(backoff * 2, absl::Milliseconds(50));
  }
  return ports;
}

}  // namespace fabricpulse::common
