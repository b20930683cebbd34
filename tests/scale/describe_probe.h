// A floor for the coordinator's fan-out: how long a fleet takes to answer
// AgentService.Describe from every agent at once when asked by one thread
// with the gRPC callback API (no thread per agent). Run against a simulated
// fleet, it separates the simulator's own cost from the coordinator's.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/security/credentials.h"

namespace fabricpulse::scale {

// Calls Describe on every address at once, `rounds` times, each agent on a
// channel of its own (made before the first round, so round 0 includes
// connecting). Returns each round's wall time. Errors: UNAVAILABLE naming
// the first address that failed (each call has a 10 s deadline).
// `credentials`: the channels' (TLS against TLS agents).
absl::StatusOr<std::vector<absl::Duration>> ProbeDescribe(
    const std::vector<std::string>& addresses, int rounds,
    const std::shared_ptr<grpc::ChannelCredentials>& credentials);

}  // namespace fabricpulse::scale
