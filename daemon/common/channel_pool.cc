#include "daemon/common/channel_pool.h"

#include "absl/strings/str_cat.h"
#include "daemon/common/channel_args.h"

namespace fabricpulse::common {

std::shared_ptr<grpc::Channel> ChannelPool::Get(
    const std::string& address, const security::PeerExpectation& peer) {
  absl::MutexLock lock(&mu_);
  auto& channel = channels_[absl::StrCat(address, " ", peer.ToString())];
  if (channel == nullptr) {
    grpc::ChannelArguments args = ClientChannelArguments();
    // Peers restart (agents, coordinators): reconnect quickly. Not
    // GRPC_ARG_MIN_RECONNECT_BACKOFF_MS: gRPC also takes it as the minimum
    // connect timeout, and at 100 ms a busy coordinator's handshakes with
    // hundreds of agents at once were cut off (tests/scale).
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 2000);
    channel = grpc::CreateCustomChannel(address, creds_->Channel(peer), args);
  }
  return channel;
}

}  // namespace fabricpulse::common
