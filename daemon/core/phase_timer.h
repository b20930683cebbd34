// Where a request's time went: named phases, printed as one debug line
// ("plan 120us, dispatch 40us, ..."). Not thread-safe: one per request.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace fabricpulse::core {

class PhaseTimer {
 public:
  PhaseTimer() : start_(absl::Now()), last_(start_) {}
  // Ends the current phase, naming it; the next phase starts now.
  void Mark(absl::string_view phase);
  // Adds `d` to an accumulated phase (e.g. time spent in writes) without
  // ending the current one.
  void Add(absl::string_view phase, absl::Duration d);
  // "a 12us, b 3400us, ...; total 3500us".
  std::string Summary() const;

 private:
  const absl::Time start_;
  absl::Time last_;
  std::vector<std::pair<std::string, absl::Duration>> phases_;
};

}  // namespace fabricpulse::core
