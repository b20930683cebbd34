// One gRPC channel per peer, kept for the daemon's life: a new channel
// costs a TCP connect and a TLS + HTTP/2 handshake (milliseconds), which
// would dominate a warm one-size sweep.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "absl/synchronization/mutex.h"
#include "daemon/security/credentials.h"
#include "grpcpp/grpcpp.h"

namespace fabricpulse::common {

// Thread-safe.
class ChannelPool {
 public:
  explicit ChannelPool(std::shared_ptr<const security::Credentials> creds)
      : creds_(std::move(creds)) {}

  // The channel to `address`, whose server must present `peer` (mutual
  // TLS; plaintext with --insecure).
  std::shared_ptr<grpc::Channel> Get(const std::string& address,
                                     const security::PeerExpectation& peer);

 private:
  const std::shared_ptr<const security::Credentials> creds_;
  absl::Mutex mu_;
  // By address and expected peer.
  std::map<std::string, std::shared_ptr<grpc::Channel>> channels_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace fabricpulse::common
