// `fabricpulse agents`: the registered agents and their workers.
#pragma once

#include <string>

#include "client/commands/coordinator_connection.h"

namespace fabricpulse::client {

// Returns the exit code.
int RunAgentsCommand(const CoordinatorTarget& coordinator);

}  // namespace fabricpulse::client
