#include "tests/integration/background_sweep.h"

#include "absl/time/clock.h"
#include "grpcpp/grpcpp.h"

namespace fabricpulse::testing {

BackgroundSweep::BackgroundSweep(v1::CoordinatorService::Stub& stub,
                                 v1::SweepSpec spec, int results)
    : thread_([this, &stub, spec, results] {
        grpc::ClientContext ctx;
        ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(90)));
        v1::SweepRequest req;
        *req.mutable_spec() = spec;
        auto reader = stub.RunSweep(&ctx, req);
        v1::SweepEvent event;
        int seen = 0;
        while (reader->Read(&event)) {
          if (event.has_started()) {
            sweep_id_ = event.started().sweep_id();
            comm_id_ = event.started().comm_id();
            if (results == 0) started_.Notify();
          }
          if (event.has_comm_ready() && results == kCommReady) {
            started_.Notify();
          }
          if (event.has_result() && ++seen == results) started_.Notify();
          if (event.has_finished()) outcome_.finished = event.finished();
        }
        grpc::Status s = reader->Finish();
        ended_ = absl::Now();
        outcome_.status = absl::Status(
            static_cast<absl::StatusCode>(s.error_code()), s.error_message());
        if (!started_.HasBeenNotified()) started_.Notify();
      }) {}

BackgroundSweep::~BackgroundSweep() {
  if (thread_.joinable()) thread_.join();
}

bool BackgroundSweep::WaitStarted() {
  return started_.WaitForNotificationWithTimeout(absl::Seconds(60));
}

SweepOutcome BackgroundSweep::Join() {
  if (thread_.joinable()) thread_.join();
  return outcome_;
}

}  // namespace fabricpulse::testing
