// AgentClient over gRPC's callback API: no thread is held while a call is in
// flight. One channel per agent address, kept for the process's life (a new
// channel costs a TCP connect and an HTTP/2 handshake).
#pragma once

#include <map>
#include <memory>
#include <string>

#include "absl/synchronization/mutex.h"
#include "daemon/common/channel_pool.h"
#include "daemon/coordinator/agent_client.h"

namespace fabricpulse::coordinator {

// Thread-safe. Holds one client per node and address it was asked for (one
// per agent that ever registered).
class GrpcAgentClients final : public AgentClients {
 public:
  // `creds` are the coordinator's: each agent must present agent/<its node>.
  explicit GrpcAgentClients(std::shared_ptr<const security::Credentials> creds)
      : channels_(std::move(creds)) {}
  std::shared_ptr<AgentClient> For(const v1::AgentInfo& agent) override;

 private:
  common::ChannelPool channels_;
  absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<AgentClient>> clients_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace fabricpulse::coordinator
