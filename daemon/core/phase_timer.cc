#include "daemon/core/phase_timer.h"

#include "absl/strings/str_cat.h"

namespace fabricpulse::core {

void PhaseTimer::Mark(absl::string_view phase) {
  const absl::Time now = absl::Now();
  phases_.emplace_back(std::string(phase), now - last_);
  last_ = now;
}

void PhaseTimer::Add(absl::string_view phase, absl::Duration d) {
  for (auto& [name, total] : phases_) {
    if (name == phase) {
      total += d;
      return;
    }
  }
  phases_.emplace_back(std::string(phase), d);
}

std::string PhaseTimer::Summary() const {
  std::string out;
  for (const auto& [name, d] : phases_) {
    absl::StrAppend(&out, out.empty() ? "" : ", ", name, " ",
                    absl::ToInt64Microseconds(d), "us");
  }
  absl::StrAppend(&out, "; total ",
                  absl::ToInt64Microseconds(absl::Now() - start_), "us");
  return out;
}

}  // namespace fabricpulse::core
