#include "daemon/agent/registration.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/core/log.h"
#include "daemon/core/timeout_budget.h"

namespace fabricpulse::agent {
namespace {

// An exchange with the coordinator is bounded by the lease.
const absl::Duration kRpcTimeout = core::kTimeouts.lease;
constexpr absl::Duration kRetryInterval = absl::Milliseconds(500);

}  // namespace

Registration::Registration(std::unique_ptr<CoordinatorClient> coordinator,
                           std::function<v1::AgentInfo()> describe,
                           CoordinatorContact* contact, core::Clock* clock)
    : describe_(std::move(describe)),
      contact_(contact),
      coordinator_(std::move(coordinator)),
      clock_(clock) {}

Registration::~Registration() { Stop(); }

void Registration::Start() {
  thread_ = std::thread([this] { Run(); });
}

void Registration::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

void Registration::Nudge() {
  absl::MutexLock lock(&mu_);
  nudged_ = true;
}

bool Registration::registered() const {
  absl::MutexLock lock(&mu_);
  return !agent_id_.empty();
}

bool Registration::WaitRegistered(absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  auto done = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return !agent_id_.empty();
  };
  return clock_->AwaitWithDeadline(&mu_, absl::Condition(&done),
                                   clock_->Now() + timeout);
}

bool Registration::RegisterOnce() {
  const absl::Time sent = clock_->Now();
  v1::RegisterRequest req;
  *req.mutable_agent() = describe_();
  auto answer = coordinator_->Register(req, kRpcTimeout);
  if (!answer.ok()) {
    FP_LOG_DEBUG(absl::StrCat("register: ", answer.status().message()));
    return false;
  }
  const v1::RegisterResponse& resp = *answer;
  contact_->Registered(sent, resp.membership_epoch());
  absl::MutexLock lock(&mu_);
  agent_id_ = resp.agent_id();
  if (resp.heartbeat_interval_seconds() > 0) {
    interval_ = absl::Seconds(resp.heartbeat_interval_seconds());
  }
  FP_LOG_INFO(absl::StrCat("registered as ", agent_id_, " (epoch ",
                           resp.membership_epoch(), ")"));
  return true;
}

bool Registration::HeartbeatOnce() {
  v1::HeartbeatRequest req;
  {
    absl::MutexLock lock(&mu_);
    req.set_agent_id(agent_id_);
  }
  const v1::AgentInfo info = describe_();
  for (const v1::WorkerInfo& w : info.workers()) *req.add_workers() = w;
  const absl::Time sent = clock_->Now();
  auto answer = coordinator_->Heartbeat(req, kRpcTimeout);
  if (answer.status().code() == absl::StatusCode::kNotFound) {
    FP_LOG_WARNING("coordinator does not know this agent; registering again");
    contact_->Forgotten(sent);
    absl::MutexLock lock(&mu_);
    agent_id_.clear();
    return false;
  }
  if (answer.ok()) {
    contact_->HeartbeatAnswered(sent, answer->membership_epoch(),
                                answer->sweep_id());
    if (answer->heartbeat_interval_seconds() > 0) {
      absl::MutexLock lock(&mu_);
      interval_ = absl::Seconds(answer->heartbeat_interval_seconds());
    }
  }
  return true;
}

void Registration::Run() {
  while (true) {
    bool have_id;
    absl::Duration wait;
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) return;
      have_id = !agent_id_.empty();
    }
    if (!have_id) {
      wait = RegisterOnce() ? absl::ZeroDuration() : kRetryInterval;
    } else {
      HeartbeatOnce();
      absl::MutexLock lock(&mu_);
      wait = interval_;
    }
    absl::MutexLock lock(&mu_);
    auto wake = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return stopping_ || nudged_;
    };
    clock_->AwaitWithDeadline(&mu_, absl::Condition(&wake),
                              clock_->Now() + wait);
    nudged_ = false;
  }
}

}  // namespace fabricpulse::agent
