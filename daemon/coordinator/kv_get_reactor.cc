#include "daemon/coordinator/kv_get_reactor.h"

#include <utility>

#include "daemon/common/grpc_status.h"

namespace fabricpulse::coordinator {

KvGetReactor* KvGetReactor::Start(RendezvousStore* store,
                                  const std::string& caller,
                                  const std::string& key, absl::Duration wait,
                                  v1::KvGetResponse* response) {
  auto* reactor = new KvGetReactor(store, response);
  // Answer may run before Get returns (known at once, or set meanwhile on
  // another thread): Finish before the reactor is bound is queued by gRPC.
  const uint64_t id = store->Get(caller, key, wait,
                                 [reactor](absl::StatusOr<std::string> value) {
                                   reactor->Answer(std::move(value));
                                 });
  reactor->wait_id_.store(id);
  return reactor;
}

void KvGetReactor::Answer(absl::StatusOr<std::string> value) {
  wait_id_.store(0);
  if (!value.ok()) {
    Finish(common::ToGrpcStatus(value.status()));
    return;
  }
  response_->set_value(*std::move(value));
  Finish(grpc::Status::OK);
}

void KvGetReactor::OnCancel() {
  // gRPC calls OnCancel only after Start returned (the reactor is bound
  // then), so the id is stored. A wait answered meanwhile is no longer in
  // the store: Cancel then does nothing, and OnDone still follows Finish.
  store_->Cancel(wait_id_.load());
}

void KvGetReactor::OnDone() { delete this; }

}  // namespace fabricpulse::coordinator
