// `fabricpulse abort [--sweep ID]`: aborts a running sweep (or all).
#pragma once

#include <string>

#include "client/commands/coordinator_connection.h"

namespace fabricpulse::client {

int RunAbortCommand(const CoordinatorTarget& coordinator,
                    const std::string& sweep_id);

}  // namespace fabricpulse::client
