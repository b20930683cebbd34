// `fabricpulse config check FILE`: validates a coordinator config (plans,
// schedules, baselines, retention, membership bounds) with the parser the
// coordinator itself runs at start (core::LoadCoordinatorConfigFile), so
// that a change can be checked before a restart or a Helm upgrade, and
// prints what the coordinator would run: each plan's sweep and each
// schedule's next firings.
#pragma once

#include <ostream>
#include <string>

#include "absl/time/time.h"

namespace fabricpulse::client {

struct ConfigCheckFlags {
  std::string file;
};

// Prints the summary on `out` and returns kExitOk for a valid file; prints
// the parser's one-line error (it names the line and field, e.g. "config
// line 22: schedules[1].plan: unknown plan ...") on stderr and returns
// kExitBadInput for an invalid, missing or unreadable file. `now` is where
// the next firings count from.
int RunConfigCheck(const ConfigCheckFlags& flags, absl::Time now,
                   std::ostream& out);

}  // namespace fabricpulse::client
