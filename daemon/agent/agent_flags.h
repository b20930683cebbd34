// fabricpulse-agent's flags, each bound to its AgentConfig field with its
// environment variable (FABRICPULSE_...) and help text.
#pragma once

#include <CLI/CLI.hpp>

#include "daemon/agent/agent_config.h"

namespace fabricpulse::agent {

// Adds every flag but --version to `app`, bound to `config`'s fields (which
// keep their defaults until parsed); `config` outlives the parse.
void AddAgentFlags(CLI::App& app, AgentConfig& config);

}  // namespace fabricpulse::agent
