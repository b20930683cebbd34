// What a worker may hold between sweeps: the sweep-buffer budget and the
// quiet period after which it drops its communicators and its device
// context. Set on the agent (--buffer-budget, --release-idle-after), which
// passes them to each worker it spawns.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace CLI {
class App;
}

namespace fabricpulse::common {

struct WorkerResources {
  // Sweep buffers up to this many bytes stay allocated after a sweep;
  // larger ones are freed when it ends.
  uint64_t buffer_budget = 64ull << 20;
  // After this long without a sweep a worker drops its cached
  // communicators and then its device context; zero keeps them.
  absl::Duration release_idle_after = absl::Minutes(10);
};

inline constexpr uint64_t kMaxBufferBudget = 256ull << 20;
inline constexpr absl::Duration kMaxReleaseIdleAfter = absl::Hours(24 * 7);

// The flags' text, as CLI11 fills it.
struct WorkerResourceFlags {
  std::string buffer_budget = "64M";
  std::string release_idle_after = "10m";

  // Errors: INVALID_ARGUMENT naming the flag, the value and what is
  // allowed (budget 0 to 256M; quiet period 0, or 1s to 168h).
  absl::StatusOr<WorkerResources> Parse() const;
  // The same flags for a worker's command line.
  void AppendArgs(std::vector<std::string>* argv) const;
};

// Adds --buffer-budget and --release-idle-after (and their
// FABRICPULSE_BUFFER_BUDGET / FABRICPULSE_RELEASE_IDLE_AFTER variables).
void AddWorkerResourceFlags(CLI::App& app, WorkerResourceFlags& flags);

}  // namespace fabricpulse::common
