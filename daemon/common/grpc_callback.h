// Client calls on gRPC's callback API with absl results: a unary call whose
// answer reaches a callback, and a server-streaming read whose events do.
// Neither holds a thread while the call is in flight.
#pragma once

#include <functional>
#include <memory>

#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "daemon/common/grpc_status.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/support/client_callback.h"

namespace fabricpulse::common {

// Starts a unary call with `timeout`; `done` gets the answer (on a gRPC
// thread). `call` is the stub's async method, e.g.
//   [stub](auto* ctx, auto* req, auto* resp, auto cb) {
//     stub->async()->Describe(ctx, req, resp, std::move(cb)); }
template <typename Request, typename Response>
void StartUnary(
    const Request& request, absl::Duration timeout,
    const std::function<void(grpc::ClientContext*, const Request*, Response*,
                             std::function<void(grpc::Status)>)>& call,
    std::function<void(absl::StatusOr<Response>)> done) {
  struct State {
    grpc::ClientContext context;
    Request request;
    Response response;
  };
  auto* state = new State;
  state->request = request;
  state->context.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  call(&state->context, &state->request, &state->response,
       [state, done = std::move(done)](grpc::Status status) {
         if (status.ok()) {
           done(std::move(state->response));
         } else {
           done(FromGrpcStatus(status));
         }
         delete state;
       });
}

// Reads one server-streaming call. It owns itself from Start() to OnDone;
// a holder of the shared pointer may Cancel() at any time.
template <typename Request, typename Event>
class StreamReader final : public grpc::ClientReadReactor<Event> {
 public:
  // `start` is the stub's async method bound to the stub, e.g.
  //   [stub](auto* ctx, auto* req, auto* reactor) {
  //     stub->async()->RunSweep(ctx, req, reactor); }
  using StartFn = std::function<void(grpc::ClientContext*, const Request*,
                                     grpc::ClientReadReactor<Event>*)>;

  // Starts the call: `on_event` gets each event in order, `on_done` the
  // status once, last (both on gRPC threads; they must not block).
  static std::shared_ptr<StreamReader> Start(
      const StartFn& start, Request request,
      std::function<void(const Event&)> on_event,
      std::function<void(const absl::Status&)> on_done) {
    std::shared_ptr<StreamReader> reader(new StreamReader(
        std::move(request), std::move(on_event), std::move(on_done)));
    reader->self_ = reader;
    start(&reader->context_, &reader->request_, reader.get());
    reader->StartRead(&reader->event_);
    reader->StartCall();
    return reader;
  }
  // Ends the call early; OnDone follows. Idempotent.
  void Cancel() { context_.TryCancel(); }

  void OnReadDone(bool ok) override {
    if (!ok) return;  // OnDone follows
    on_event_(event_);
    this->StartRead(&event_);
  }
  void OnDone(const grpc::Status& status) override {
    on_done_(FromGrpcStatus(status));
    on_event_ = nullptr;
    on_done_ = nullptr;
    self_.reset();  // may delete this
  }

 private:
  StreamReader(Request request, std::function<void(const Event&)> on_event,
               std::function<void(const absl::Status&)> on_done)
      : request_(std::move(request)),
        on_event_(std::move(on_event)),
        on_done_(std::move(on_done)) {}

  grpc::ClientContext context_;
  const Request request_;
  Event event_;
  std::function<void(const Event&)> on_event_;
  std::function<void(const absl::Status&)> on_done_;
  std::shared_ptr<StreamReader> self_;
};

// Exposes a StreamReader through a stream-handle interface whose one method
// is `void Cancel()` (AgentSweepStream, WorkerSweepStream).
template <typename Handle, typename Reader>
class ReaderHandle final : public Handle {
 public:
  explicit ReaderHandle(std::shared_ptr<Reader> reader)
      : reader_(std::move(reader)) {}
  void Cancel() override { reader_->Cancel(); }

 private:
  std::shared_ptr<Reader> reader_;
};

}  // namespace fabricpulse::common
