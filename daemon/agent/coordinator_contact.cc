#include "daemon/agent/coordinator_contact.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "daemon/core/status_reason.h"

namespace fabricpulse::agent {

void CoordinatorContact::Registered(absl::Time sent, uint64_t epoch) {
  absl::MutexLock lock(&mu_);
  epoch_ = epoch;
  last_answer_sent_ = std::max(last_answer_sent_, sent);
  last_sweep_.clear();
}

void CoordinatorContact::HeartbeatAnswered(absl::Time sent, uint64_t epoch,
                                           const std::string& sweep_id) {
  absl::MutexLock lock(&mu_);
  epoch_ = std::max(epoch_, epoch);
  if (sent >= last_answer_sent_) {
    last_answer_sent_ = sent;
    last_sweep_ = sweep_id;
  }
}

void CoordinatorContact::Forgotten(absl::Time sent) {
  HeartbeatAnswered(sent, 0, "");
}

absl::Status CoordinatorContact::AdmitEpoch(uint64_t epoch) {
  absl::MutexLock lock(&mu_);
  if (epoch < epoch_) {
    return absl::FailedPreconditionError(absl::StrCat(
        "stale membership epoch ", epoch, " (this agent has seen ", epoch_,
        "): membership changed since the sweep was "
        "planned; retry"));
  }
  // A request's epoch is never kept: only the coordinator's answers to
  // this agent's own registration and heartbeats move it.
  return absl::OkStatus();
}

absl::Status CoordinatorContact::CheckLease(const std::string& sweep_id,
                                            absl::Time started,
                                            absl::Duration lease,
                                            absl::Time now) const {
  absl::MutexLock lock(&mu_);
  if (last_answer_sent_ >= started && last_sweep_ != sweep_id) {
    return core::WithReason(
        absl::UnavailableError(absl::StrCat(
            "sweep lease ended: the coordinator no longer runs sweep ",
            sweep_id, " on this node")),
        core::StatusReason::kSweepLeaseEnded);
  }
  const absl::Time contact = std::max(started, last_answer_sent_);
  if (now - contact > lease) {
    return core::WithReason(
        absl::UnavailableError(absl::StrFormat(
            "sweep lease expired: no answer from the coordinator for %.1f s "
            "(lease %.1f s)",
            absl::ToDoubleSeconds(now - contact),
            absl::ToDoubleSeconds(lease))),
        core::StatusReason::kSweepLeaseEnded);
  }
  return absl::OkStatus();
}

}  // namespace fabricpulse::agent
