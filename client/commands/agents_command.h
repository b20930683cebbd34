// `fabricpulse agents`: the registered agents and their workers.
#pragma once

#include <string>

namespace fabricpulse::client {

// Returns the exit code.
int RunAgentsCommand(const std::string& coordinator);

}  // namespace fabricpulse::client
