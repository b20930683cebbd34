#include "daemon/agent/grpc_worker_client.h"

#include "daemon/common/grpc_callback.h"
#include "fabricpulse/v1/worker.grpc.pb.h"

namespace fabricpulse::agent {
namespace {

using Reader = common::StreamReader<v1::WorkerSweepRequest, v1::RankEvent>;

class GrpcWorkerClient final : public WorkerClient {
 public:
  explicit GrpcWorkerClient(std::shared_ptr<grpc::Channel> channel)
      : stub_(v1::WorkerService::NewStub(std::move(channel))) {}

  std::unique_ptr<WorkerSweepStream> RunSweep(
      const v1::WorkerSweepRequest& request,
      WorkerSweepCallbacks callbacks) override {
    auto* stub = stub_.get();
    return std::make_unique<common::ReaderHandle<WorkerSweepStream, Reader>>(
        Reader::Start(
            [stub](grpc::ClientContext* ctx, const v1::WorkerSweepRequest* req,
                   grpc::ClientReadReactor<v1::RankEvent>* reactor) {
              stub->async()->RunSweep(ctx, req, reactor);
            },
            request, std::move(callbacks.on_event),
            std::move(callbacks.on_done)));
  }

  void Abort(const v1::WorkerAbortRequest& request, absl::Duration timeout,
             std::function<void(absl::Status)> done) override {
    auto* stub = stub_.get();
    common::StartUnary<v1::WorkerAbortRequest, v1::WorkerAbortResponse>(
        request, timeout,
        [stub](grpc::ClientContext* ctx, const v1::WorkerAbortRequest* req,
               v1::WorkerAbortResponse* resp,
               std::function<void(grpc::Status)> cb) {
          stub->async()->Abort(ctx, req, resp, std::move(cb));
        },
        [done =
             std::move(done)](absl::StatusOr<v1::WorkerAbortResponse> answer) {
          done(answer.status());
        });
  }

  void Ping(absl::Duration timeout,
            std::function<void(absl::Status)> done) override {
    auto* stub = stub_.get();
    common::StartUnary<v1::PingRequest, v1::PingResponse>(
        v1::PingRequest(), timeout,
        [stub](grpc::ClientContext* ctx, const v1::PingRequest* req,
               v1::PingResponse* resp, std::function<void(grpc::Status)> cb) {
          stub->async()->Ping(ctx, req, resp, std::move(cb));
        },
        [done = std::move(done)](absl::StatusOr<v1::PingResponse> answer) {
          done(answer.status());
        });
  }

  void GetFlightRecords(
      const v1::FlightRecordsRequest& request, absl::Duration timeout,
      std::function<void(absl::StatusOr<v1::FlightRecordsResponse>)> done)
      override {
    auto* stub = stub_.get();
    common::StartUnary<v1::FlightRecordsRequest, v1::FlightRecordsResponse>(
        request, timeout,
        [stub](grpc::ClientContext* ctx, const v1::FlightRecordsRequest* req,
               v1::FlightRecordsResponse* resp,
               std::function<void(grpc::Status)> cb) {
          stub->async()->GetFlightRecords(ctx, req, resp, std::move(cb));
        },
        std::move(done));
  }

 private:
  const std::unique_ptr<v1::WorkerService::Stub> stub_;
};

}  // namespace

std::shared_ptr<WorkerClient> NewGrpcWorkerClient(
    std::shared_ptr<grpc::Channel> channel) {
  return std::make_shared<GrpcWorkerClient>(std::move(channel));
}

}  // namespace fabricpulse::agent
