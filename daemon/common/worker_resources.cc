#include "daemon/common/worker_resources.h"

#include <CLI/CLI.hpp>

#include "absl/strings/str_cat.h"
#include "daemon/core/byte_size.h"
#include "daemon/core/name_rules.h"

namespace fabricpulse::common {

absl::StatusOr<WorkerResources> WorkerResourceFlags::Parse() const {
  WorkerResources parsed;
  auto budget = core::ParseByteSize(buffer_budget, "--buffer-budget");
  if (!budget.ok()) return budget.status();
  if (*budget > kMaxBufferBudget) {
    return absl::InvalidArgumentError(
        absl::StrCat("--buffer-budget: ", core::FormatByteSize(*budget),
                     " is out of range; allowed: 0 to ",
                     core::FormatByteSize(kMaxBufferBudget)));
  }
  parsed.buffer_budget = *budget;
  absl::Duration after;
  if (!absl::ParseDuration(release_idle_after, &after) ||
      (after != absl::ZeroDuration() &&
       (after < absl::Seconds(1) || after > kMaxReleaseIdleAfter))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--release-idle-after: ", core::QuotePrefix(release_idle_after),
        " is not allowed; allowed: 0 (keep), or a duration from 1s to 168h "
        "(e.g. 10m)"));
  }
  parsed.release_idle_after = after;
  return parsed;
}

void WorkerResourceFlags::AppendArgs(std::vector<std::string>* argv) const {
  argv->insert(argv->end(), {"--buffer-budget", buffer_budget,
                             "--release-idle-after", release_idle_after});
}

void AddWorkerResourceFlags(CLI::App& app, WorkerResourceFlags& flags) {
  app.add_option("--buffer-budget", flags.buffer_budget,
                 "Sweep buffers up to this size (0 to 256M) stay allocated "
                 "between sweeps; larger ones are freed when a sweep ends")
      ->envname("FABRICPULSE_BUFFER_BUDGET")
      ->capture_default_str();
  app.add_option("--release-idle-after", flags.release_idle_after,
                 "After this long without a sweep, drop the communicators "
                 "and then the GPU context (0 keeps them; 1s to 168h)")
      ->envname("FABRICPULSE_RELEASE_IDLE_AFTER")
      ->capture_default_str();
}

}  // namespace fabricpulse::common
