#include "daemon/agent/registration.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/core/log.h"
#include "grpcpp/grpcpp.h"

namespace fabricpulse::agent {
namespace {

constexpr absl::Duration kRpcTimeout = absl::Seconds(5);
constexpr absl::Duration kRetryInterval = absl::Milliseconds(500);

}  // namespace

Registration::Registration(std::string coordinator,
                           std::function<v1::AgentInfo()> describe,
                           CoordinatorContact* contact)
    : describe_(std::move(describe)),
      contact_(contact),
      stub_(v1::CoordinatorService::NewStub(grpc::CreateChannel(
          coordinator, grpc::InsecureChannelCredentials()))) {}

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
  return mu_.AwaitWithTimeout(absl::Condition(&done), timeout);
}

bool Registration::RegisterOnce() {
  grpc::ClientContext ctx;
  const absl::Time sent = absl::Now();
  ctx.set_deadline(absl::ToChronoTime(sent + kRpcTimeout));
  v1::RegisterRequest req;
  *req.mutable_agent() = describe_();
  v1::RegisterResponse resp;
  grpc::Status status = stub_->Register(&ctx, req, &resp);
  if (!status.ok()) {
    FP_LOG_DEBUG(absl::StrCat("register: ", status.error_message()));
    return false;
  }
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
  grpc::ClientContext ctx;
  const absl::Time sent = absl::Now();
  ctx.set_deadline(absl::ToChronoTime(sent + kRpcTimeout));
  v1::HeartbeatResponse resp;
  grpc::Status status = stub_->Heartbeat(&ctx, req, &resp);
  if (status.error_code() == grpc::StatusCode::NOT_FOUND) {
    FP_LOG_WARNING("coordinator does not know this agent; registering again");
    contact_->Forgotten(sent);
    absl::MutexLock lock(&mu_);
    agent_id_.clear();
    return false;
  }
  if (status.ok()) {
    contact_->HeartbeatAnswered(sent, resp.membership_epoch(), resp.sweep_id());
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
    mu_.AwaitWithTimeout(absl::Condition(&wake), wait);
    nudged_ = false;
  }
}

}  // namespace fabricpulse::agent
