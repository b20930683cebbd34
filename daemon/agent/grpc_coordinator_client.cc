#include "absl/time/clock.h"
#include "daemon/agent/coordinator_client.h"
#include "daemon/common/channel_args.h"
#include "daemon/common/grpc_status.h"
#include "daemon/security/caller.h"
#include "fabricpulse/v1/coordinator.grpc.pb.h"
#include "grpcpp/grpcpp.h"

namespace fabricpulse::agent {
namespace {

class GrpcCoordinatorClient final : public CoordinatorClient {
 public:
  GrpcCoordinatorClient(std::shared_ptr<grpc::Channel> channel,
                        std::string trust_domain,
                        std::shared_ptr<security::PeerPin> pin)
      : stub_(v1::CoordinatorService::NewStub(std::move(channel))),
        trust_domain_(std::move(trust_domain)),
        pin_(std::move(pin)) {}

  absl::StatusOr<v1::RegisterResponse> Register(
      const v1::RegisterRequest& request, absl::Duration timeout) override {
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
    v1::RegisterResponse response;
    grpc::Status status = stub_->Register(&ctx, request, &response);
    if (!status.ok()) return common::FromGrpcStatus(status);
    PinServer(ctx);
    return response;
  }

  absl::StatusOr<v1::HeartbeatResponse> Heartbeat(
      const v1::HeartbeatRequest& request, absl::Duration timeout) override {
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
    v1::HeartbeatResponse response;
    grpc::Status status = stub_->Heartbeat(&ctx, request, &response);
    if (!status.ok()) return common::FromGrpcStatus(status);
    return response;
  }

 private:
  // The identity of the coordinator that answered (verified as
  // coordinator/* by the channel's credentials).
  void PinServer(const grpc::ClientContext& ctx) {
    std::shared_ptr<const grpc::AuthContext> auth = ctx.auth_context();
    if (!pin_ || !auth || !auth->IsPeerAuthenticated()) return;
    absl::StatusOr<security::Identity> id =
        security::SoleIdentity(security::PeerUris(*auth), trust_domain_);
    if (id.ok()) pin_->Set(*id);
  }

  const std::unique_ptr<v1::CoordinatorService::Stub> stub_;
  const std::string trust_domain_;
  const std::shared_ptr<security::PeerPin> pin_;
};

}  // namespace

std::unique_ptr<CoordinatorClient> NewGrpcCoordinatorClient(
    const std::string& address,
    const std::shared_ptr<const security::Credentials>& creds,
    std::shared_ptr<security::PeerPin> pin) {
  grpc::ChannelArguments args = common::ClientChannelArguments();
  common::NoBdpProbe(args);  // it carries the heartbeats
  return std::make_unique<GrpcCoordinatorClient>(
      grpc::CreateCustomChannel(
          address, creds->Channel({security::Role::kCoordinator, ""}), args),
      creds->options().trust_domain, std::move(pin));
}

}  // namespace fabricpulse::agent
