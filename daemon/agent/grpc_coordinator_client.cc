#include "absl/time/clock.h"
#include "daemon/agent/coordinator_client.h"
#include "daemon/common/channel_args.h"
#include "daemon/common/grpc_status.h"
#include "fabricpulse/v1/coordinator.grpc.pb.h"
#include "grpcpp/grpcpp.h"

namespace fabricpulse::agent {
namespace {

class GrpcCoordinatorClient final : public CoordinatorClient {
 public:
  explicit GrpcCoordinatorClient(std::shared_ptr<grpc::Channel> channel)
      : stub_(v1::CoordinatorService::NewStub(std::move(channel))) {}

  absl::StatusOr<v1::RegisterResponse> Register(
      const v1::RegisterRequest& request, absl::Duration timeout) override {
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
    v1::RegisterResponse response;
    grpc::Status status = stub_->Register(&ctx, request, &response);
    if (!status.ok()) return common::FromGrpcStatus(status);
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
  const std::unique_ptr<v1::CoordinatorService::Stub> stub_;
};

}  // namespace

std::unique_ptr<CoordinatorClient> NewGrpcCoordinatorClient(
    const std::string& address,
    const std::shared_ptr<const security::Credentials>& creds) {
  grpc::ChannelArguments args = common::ClientChannelArguments();
  common::NoBdpProbe(args);  // it carries the heartbeats
  return std::make_unique<GrpcCoordinatorClient>(grpc::CreateCustomChannel(
      address, creds->Channel({security::Role::kCoordinator, ""}), args));
}

}  // namespace fabricpulse::agent
