// The agent's view of its coordinator: the two calls registration makes, as
// an interface with a gRPC implementation and a fake for unit tests
// (tests/fakes/fake_coordinator_client.h).
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "daemon/security/credentials.h"
#include "daemon/security/peer_pin.h"
#include "fabricpulse/v1/coordinator.pb.h"

namespace fabricpulse::agent {

// Thread-safe. Calls block for at most `timeout`.
class CoordinatorClient {
 public:
  virtual ~CoordinatorClient() = default;
  // CoordinatorService.Register. Errors: the call's status.
  virtual absl::StatusOr<v1::RegisterResponse> Register(
      const v1::RegisterRequest& request, absl::Duration timeout) = 0;
  // CoordinatorService.Heartbeat. Errors: the call's status (NOT_FOUND: the
  // coordinator does not know this agent).
  virtual absl::StatusOr<v1::HeartbeatResponse> Heartbeat(
      const v1::HeartbeatRequest& request, absl::Duration timeout) = 0;
};

// A client on one channel to `address` (HOST:PORT), whose server must be
// the coordinator (mutual TLS with `creds`; plaintext with --insecure).
// Each answered Register pins the identity the coordinator's certificate
// names in `pin` (when given, over TLS): the agent's server then obeys that
// coordinator alone.
std::unique_ptr<CoordinatorClient> NewGrpcCoordinatorClient(
    const std::string& address,
    const std::shared_ptr<const security::Credentials>& creds,
    std::shared_ptr<security::PeerPin> pin = nullptr);

}  // namespace fabricpulse::agent
