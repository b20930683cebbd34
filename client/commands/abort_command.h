// `fabricpulse abort [--sweep ID]`: aborts a running sweep (or all).
#pragma once

#include <string>

namespace fabricpulse::client {

int RunAbortCommand(const std::string& coordinator,
                    const std::string& sweep_id);

}  // namespace fabricpulse::client
