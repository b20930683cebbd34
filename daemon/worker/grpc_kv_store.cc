#include "daemon/worker/grpc_kv_store.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/common/grpc_status.h"
#include "daemon/core/timeout_budget.h"

namespace fabricpulse::worker {
namespace {

// From the one timeout budget (daemon/core/timeout_budget.h): a call's
// own slack is the lease; the coordinator caps one KvGet's wait at
// max_kv_wait, so a longer wait takes several calls, each well under it.
const absl::Duration kRpcSlack = core::kTimeouts.lease;
const absl::Duration kMaxWaitPerCall =
    core::kTimeouts.max_kv_wait - 2 * core::kTimeouts.lease;

}  // namespace

GrpcKeyValueStore::GrpcKeyValueStore(std::shared_ptr<grpc::Channel> channel)
    : stub_(v1::CoordinatorService::NewStub(channel)) {}

absl::Status GrpcKeyValueStore::Set(const std::string& key,
                                    const std::string& value) {
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  v1::KvSetRequest req;
  req.set_key(key);
  req.set_value(value);
  v1::KvSetResponse resp;
  return common::FromGrpcStatus(stub_->KvSet(&ctx, req, &resp));
}

absl::StatusOr<std::string> GrpcKeyValueStore::Get(const std::string& key,
                                                   absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    const absl::Duration wait =
        std::max(absl::ZeroDuration(),
                 std::min(deadline - absl::Now(), kMaxWaitPerCall));
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(absl::Now() + wait + kRpcSlack));
    v1::KvGetRequest req;
    req.set_key(key);
    req.set_wait_seconds(absl::ToDoubleSeconds(wait));
    v1::KvGetResponse resp;
    grpc::Status status = stub_->KvGet(&ctx, req, &resp);
    if (status.ok()) return resp.value();
    if (status.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED ||
        absl::Now() >= deadline) {
      absl::Status s = common::FromGrpcStatus(status);
      return absl::Status(
          s.code(), absl::StrCat("rendezvous key '", key, "': ", s.message()));
    }
  }
}

}  // namespace fabricpulse::worker
