// One gRPC channel per peer address, kept for the daemon's life: a new
// channel costs a TCP connect and an HTTP/2 handshake (milliseconds), which
// would dominate a warm one-size sweep.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "absl/synchronization/mutex.h"
#include "grpcpp/grpcpp.h"

namespace fabricpulse::common {

// Thread-safe.
class ChannelPool {
 public:
  std::shared_ptr<grpc::Channel> Get(const std::string& address);

 private:
  absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<grpc::Channel>> channels_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace fabricpulse::common
