// One KvGet call on gRPC's callback API: its wait is a RendezvousStore
// callback, so a waiting call holds no thread. The call is answered by the
// key's Set, the wait's deadline, its sweep's end, the store's shutdown, or
// the client's cancellation (OnCancel removes the wait at once).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "absl/time/time.h"
#include "daemon/coordinator/rendezvous_store.h"
#include "fabricpulse/v1/coordinator.pb.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/support/server_callback.h"

namespace fabricpulse::coordinator {

class KvGetReactor final : public grpc::ServerUnaryReactor {
 public:
  // Starts the wait for `key` on behalf of `caller` (node name, "" when
  // unknown). `store` outlives the call; `response` is the call's own.
  // The reactor deletes itself in OnDone.
  static KvGetReactor* Start(RendezvousStore* store, const std::string& caller,
                             const std::string& key, absl::Duration wait,
                             v1::KvGetResponse* response);

  void OnCancel() override;
  void OnDone() override;

 private:
  KvGetReactor(RendezvousStore* store, v1::KvGetResponse* response)
      : store_(store), response_(response) {}
  // The store's answer (exactly once, on the answering thread).
  void Answer(absl::StatusOr<std::string> value);

  RendezvousStore* const store_;
  v1::KvGetResponse* const response_;
  // The wait's id while it may still wait; 0 once answered.
  std::atomic<uint64_t> wait_id_{0};
};

}  // namespace fabricpulse::coordinator
