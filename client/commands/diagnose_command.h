// `fabricpulse diagnose [--sweep ID]`: which rank, GPU and node a hung or
// failed sweep is waiting for, from every member's flight recorder.
#pragma once

#include <string>

namespace fabricpulse::client {

// Returns the exit code.
int RunDiagnoseCommand(const std::string& coordinator,
                       const std::string& sweep_id);

}  // namespace fabricpulse::client
