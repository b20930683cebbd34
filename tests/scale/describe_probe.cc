#include "tests/scale/describe_probe.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "fabricpulse/v1/agent.grpc.pb.h"
#include "grpcpp/grpcpp.h"

namespace fabricpulse::scale {
namespace {

constexpr absl::Duration kCallTimeout = absl::Seconds(10);

struct Call {
  grpc::ClientContext context;
  v1::DescribeRequest request;
  v1::DescribeResponse response;
};

// One round's calls; shared with their callbacks, so a round that is given
// up on can return while they finish.
struct Round {
  absl::Mutex mu;
  size_t pending ABSL_GUARDED_BY(mu) = 0;
  std::string first_error ABSL_GUARDED_BY(mu);
  std::vector<std::unique_ptr<Call>> calls;
};

}  // namespace

absl::StatusOr<std::vector<absl::Duration>> ProbeDescribe(
    const std::vector<std::string>& addresses, int rounds,
    const std::shared_ptr<grpc::ChannelCredentials>& credentials) {
  std::vector<std::unique_ptr<v1::AgentService::Stub>> stubs;
  for (const std::string& address : addresses) {
    stubs.push_back(
        v1::AgentService::NewStub(grpc::CreateChannel(address, credentials)));
  }
  std::vector<absl::Duration> out;
  for (int r = 0; r < rounds; ++r) {
    auto round = std::make_shared<Round>();
    for (size_t i = 0; i < stubs.size(); ++i) {
      round->calls.push_back(std::make_unique<Call>());
    }
    {
      absl::MutexLock lock(&round->mu);
      round->pending = stubs.size();
    }
    const absl::Time start = absl::Now();
    for (size_t i = 0; i < stubs.size(); ++i) {
      Call* call = round->calls[i].get();
      call->context.set_deadline(absl::ToChronoTime(start + kCallTimeout));
      stubs[i]->async()->Describe(
          &call->context, &call->request, &call->response,
          [round, address = addresses[i]](grpc::Status status) {
            absl::MutexLock lock(&round->mu);
            if (!status.ok() && round->first_error.empty()) {
              round->first_error =
                  absl::StrCat(address, ": ", status.error_message());
            }
            round->pending--;
          });
    }
    bool ended;
    std::string error;
    {
      absl::MutexLock lock(&round->mu);
      auto done = [&round]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(round->mu) {
        return round->pending == 0;
      };
      // Every call ends by its deadline; the slack only guards a lost one.
      ended = round->mu.AwaitWithTimeout(absl::Condition(&done),
                                         kCallTimeout + absl::Seconds(5));
      error = round->first_error;
    }
    if (!ended) {
      for (auto& c : round->calls) c->context.TryCancel();
      return absl::UnavailableError("Describe calls did not end in time");
    }
    if (!error.empty()) {
      return absl::UnavailableError(absl::StrCat("Describe ", error));
    }
    out.push_back(absl::Now() - start);
  }
  return out;
}

}  // namespace fabricpulse::scale
