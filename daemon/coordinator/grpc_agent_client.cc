#include "daemon/coordinator/grpc_agent_client.h"

#include "absl/strings/str_cat.h"
#include "daemon/common/grpc_callback.h"
#include "fabricpulse/v1/agent.grpc.pb.h"

namespace fabricpulse::coordinator {
namespace {

using Reader = common::StreamReader<v1::AgentSweepRequest, v1::RankEvent>;

class GrpcAgentClient final : public AgentClient {
 public:
  explicit GrpcAgentClient(std::shared_ptr<grpc::Channel> channel)
      : stub_(v1::AgentService::NewStub(std::move(channel))) {}

  void Describe(
      absl::Duration timeout,
      std::function<void(absl::StatusOr<v1::AgentInfo>)> done) override {
    auto* stub = stub_.get();
    common::StartUnary<v1::DescribeRequest, v1::DescribeResponse>(
        v1::DescribeRequest(), timeout,
        [stub](grpc::ClientContext* ctx, const v1::DescribeRequest* req,
               v1::DescribeResponse* resp,
               std::function<void(grpc::Status)> cb) {
          stub->async()->Describe(ctx, req, resp, std::move(cb));
        },
        [done = std::move(done)](absl::StatusOr<v1::DescribeResponse> answer) {
          if (answer.ok()) {
            done(std::move(*answer->mutable_agent()));
          } else {
            done(answer.status());
          }
        });
  }

  void Abort(const v1::AgentAbortRequest& request, common::AbortCause cause,
             absl::Duration timeout,
             std::function<void(absl::Status)> done) override {
    auto* stub = stub_.get();
    common::StartUnary<v1::AgentAbortRequest, v1::AgentAbortResponse>(
        request, timeout,
        [stub, cause](grpc::ClientContext* ctx,
                      const v1::AgentAbortRequest* req,
                      v1::AgentAbortResponse* resp,
                      std::function<void(grpc::Status)> cb) {
          if (cause == common::AbortCause::kRequest) {
            ctx->AddMetadata(common::kAbortCauseKey,
                             common::kAbortCauseRequest);
          }
          stub->async()->Abort(ctx, req, resp, std::move(cb));
        },
        [done =
             std::move(done)](absl::StatusOr<v1::AgentAbortResponse> answer) {
          done(answer.status());
        });
  }

  void GetFlightRecords(
      const v1::AgentFlightRecordsRequest& request, absl::Duration timeout,
      std::function<void(absl::StatusOr<v1::AgentFlightRecordsResponse>)> done)
      override {
    auto* stub = stub_.get();
    common::StartUnary<v1::AgentFlightRecordsRequest,
                       v1::AgentFlightRecordsResponse>(
        request, timeout,
        [stub](grpc::ClientContext* ctx,
               const v1::AgentFlightRecordsRequest* req,
               v1::AgentFlightRecordsResponse* resp,
               std::function<void(grpc::Status)> cb) {
          stub->async()->GetFlightRecords(ctx, req, resp, std::move(cb));
        },
        std::move(done));
  }

  std::unique_ptr<AgentSweepStream> RunSweep(
      const v1::AgentSweepRequest& request,
      AgentSweepCallbacks callbacks) override {
    auto* stub = stub_.get();
    return std::make_unique<common::ReaderHandle<AgentSweepStream, Reader>>(
        Reader::Start(
            [stub](grpc::ClientContext* ctx, const v1::AgentSweepRequest* req,
                   grpc::ClientReadReactor<v1::RankEvent>* reactor) {
              stub->async()->RunSweep(ctx, req, reactor);
            },
            request, std::move(callbacks.on_event),
            std::move(callbacks.on_done)));
  }

 private:
  const std::unique_ptr<v1::AgentService::Stub> stub_;
};

}  // namespace

std::shared_ptr<AgentClient> GrpcAgentClients::For(const v1::AgentInfo& agent) {
  absl::MutexLock lock(&mu_);
  std::shared_ptr<AgentClient>& client =
      clients_[absl::StrCat(agent.node_name(), " ", agent.address())];
  if (!client) {
    client = std::make_shared<GrpcAgentClient>(channels_.Get(
        agent.address(), {security::Role::kAgent, agent.node_name()}));
  }
  return client;
}

}  // namespace fabricpulse::coordinator
