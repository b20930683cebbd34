#include "daemon/agent/registration.h"

#include <algorithm>
#include <fstream>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/core/log.h"
#include "daemon/core/name_rules.h"
#include "daemon/core/timeout_budget.h"

namespace fabricpulse::agent {
namespace {

// An exchange with the coordinator is bounded by the lease.
const absl::Duration kRpcTimeout = core::kTimeouts.lease;
constexpr absl::Duration kRetryInterval = absl::Milliseconds(500);
// A refused registration is retried after 1 s, doubling up to the lease: a
// holder that died is out of the table within its lease, and a registration
// soon after that gets the name.
constexpr absl::Duration kRefusedRetry = absl::Seconds(1);
const absl::Duration kMaxRefusedRetry = core::kTimeouts.lease;

// The coordinator answered and said no (rather than could not be reached).
bool IsRefusal(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kResourceExhausted:
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kUnauthenticated:
    case absl::StatusCode::kFailedPrecondition:
      return true;
    default:
      return false;
  }
}

std::string RandomHex() {
  std::random_device rd;
  return absl::StrCat(
      absl::Hex(rd(), absl::kZeroPad8), absl::Hex(rd(), absl::kZeroPad8),
      absl::Hex(rd(), absl::kZeroPad8), absl::Hex(rd(), absl::kZeroPad8));
}

std::string ReadBootId() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  // A UUID: anything else (a missing /proc) is "unknown".
  if (!core::ValidateId("boot_id", id, /*allow_empty=*/true).ok()) return "";
  return id;
}

}  // namespace

AgentInstance AgentInstance::ThisProcess() {
  return AgentInstance{RandomHex(), ReadBootId()};
}

Registration::Registration(
    std::unique_ptr<CoordinatorClient> coordinator,
    std::function<v1::AgentInfo()> describe,
    std::function<void(v1::HeartbeatRequest&)> fill_heartbeat,
    CoordinatorContact* contact, core::Clock* clock, AgentInstance instance)
    : describe_(std::move(describe)),
      fill_heartbeat_(std::move(fill_heartbeat)),
      contact_(contact),
      coordinator_(std::move(coordinator)),
      clock_(clock),
      instance_(std::move(instance)) {}

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

std::optional<absl::Duration> Registration::RegisterOnce() {
  const absl::Time sent = clock_->Now();
  v1::RegisterRequest req;
  *req.mutable_agent() = describe_();
  req.mutable_agent()->set_instance_id(instance_.instance_id);
  req.mutable_agent()->set_boot_id(instance_.boot_id);
  auto answer = coordinator_->Register(req, kRpcTimeout);
  if (!answer.ok()) {
    if (!IsRefusal(answer.status())) {
      FP_LOG_DEBUG(absl::StrCat("register: ", answer.status().message()));
      return kRetryInterval;
    }
    // Said once: the retries that follow would only repeat it.
    if (refusals_ == 0) {
      FP_LOG_WARNING(
          absl::StrCat("the coordinator refuses to register this agent (",
                       absl::StatusCodeToString(answer.status().code()),
                       "): ", answer.status().message(),
                       "; retrying with backoff until it accepts"));
    }
    const absl::Duration wait = std::min(
        kRefusedRetry * (1 << std::min(refusals_, 8)), kMaxRefusedRetry);
    refusals_++;
    return wait;
  }
  if (refusals_ > 0) {
    FP_LOG_INFO(
        absl::StrCat("registration accepted after ", refusals_, " refusal(s)"));
    refusals_ = 0;
  }
  const v1::RegisterResponse& resp = *answer;
  contact_->Registered(sent, resp.membership_epoch());
  absl::MutexLock lock(&mu_);
  agent_id_ = resp.agent_id();
  if (resp.heartbeat_interval_seconds() > 0) {
    interval_ = absl::Seconds(resp.heartbeat_interval_seconds());
  }
  FP_LOG_INFO(absl::StrCat("registered as ", agent_id_, " (epoch ",
                           resp.membership_epoch(), ", instance ",
                           instance_.instance_id, ")"));
  return std::nullopt;
}

bool Registration::HeartbeatOnce() {
  v1::HeartbeatRequest req;
  {
    absl::MutexLock lock(&mu_);
    req.set_agent_id(agent_id_);
  }
  fill_heartbeat_(req);
  const absl::Time sent = clock_->Now();
  auto answer = coordinator_->Heartbeat(req, kRpcTimeout);
  if (observer_) observer_(answer.ok() ? &*answer : nullptr);
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
      wait = RegisterOnce().value_or(absl::ZeroDuration());
      if (observer_) observer_(nullptr);
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
