#include "tests/scale/heartbeat_driver.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/core/log.h"
#include "grpcpp/grpcpp.h"

namespace fabricpulse::scale {
namespace {

constexpr absl::Duration kRpcTimeout = absl::Seconds(5);
constexpr absl::Duration kRetryInterval = absl::Milliseconds(500);
constexpr absl::Duration kMaxIdleWait = absl::Seconds(1);
constexpr double kGoldenRatio = 0.6180339887498949;

std::shared_ptr<grpc::Channel> OwnChannel(
    const std::string& target,
    const std::shared_ptr<grpc::ChannelCredentials>& credentials) {
  grpc::ChannelArguments args;
  // Separate hosts do not share a connection: without this, gRPC would
  // share one subchannel between all channels of the process.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return grpc::CreateCustomChannel(target, credentials, args);
}

}  // namespace

HeartbeatDriver::HeartbeatDriver(const std::string& coordinator,
                                 std::vector<SimAgent*> agents,
                                 int max_in_flight, bool shared_connection)
    : slots_(agents.size()), max_in_flight_(std::max(1, max_in_flight)) {
  const absl::Time now = absl::Now();
  std::shared_ptr<grpc::Channel> shared;
  if (shared_connection) {
    shared =
        grpc::CreateChannel(coordinator, grpc::InsecureChannelCredentials());
  }
  for (size_t i = 0; i < agents.size(); ++i) {
    slots_[i].agent = agents[i];
    slots_[i].stub = v1::CoordinatorService::NewStub(
        shared != nullptr
            ? shared
            : OwnChannel(coordinator, agents[i]->CoordinatorCredentials()));
    slots_[i].due = now;
  }
}

HeartbeatDriver::~HeartbeatDriver() { Stop(); }

void HeartbeatDriver::Start() {
  absl::MutexLock lock(&mu_);
  if (started_) return;
  started_ = true;
  thread_ = std::thread([this] { Run(); });
}

void HeartbeatDriver::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
  // No exchange starts any more; cancel those in flight (their contexts
  // stay until their callbacks, which only count them down).
  std::vector<grpc::ClientContext*> contexts;
  {
    absl::MutexLock lock(&mu_);
    for (Slot& slot : slots_) {
      if (slot.in_flight) contexts.push_back(slot.context.get());
    }
  }
  for (grpc::ClientContext* ctx : contexts) ctx->TryCancel();
  absl::MutexLock lock(&mu_);
  auto idle = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return in_flight_ == 0;
  };
  if (!mu_.AwaitWithTimeout(absl::Condition(&idle),
                            kRpcTimeout + absl::Seconds(1))) {
    FP_LOG_WARNING(
        absl::StrCat(in_flight_, " coordinator exchange(s) still in flight"));
  }
}

void HeartbeatDriver::BeatSoon(const std::vector<size_t>& agents) {
  absl::MutexLock lock(&mu_);
  const absl::Time now = absl::Now();
  for (size_t i : agents) {
    if (i >= slots_.size()) continue;
    slots_[i].due = std::min(slots_[i].due, now);
    slots_[i].soon = slots_[i].in_flight;
  }
  wake_++;
}

int HeartbeatDriver::registered() const {
  absl::MutexLock lock(&mu_);
  return registered_;
}

uint64_t HeartbeatDriver::answered() const {
  absl::MutexLock lock(&mu_);
  return answered_;
}

uint64_t HeartbeatDriver::failed() const {
  absl::MutexLock lock(&mu_);
  return failed_;
}

bool HeartbeatDriver::WaitAllRegistered(absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  auto done = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return stopping_ || registered_ == static_cast<int>(slots_.size());
  };
  mu_.AwaitWithTimeout(absl::Condition(&done), timeout);
  return !stopping_ && registered_ == static_cast<int>(slots_.size());
}

absl::Duration HeartbeatDriver::FirstBeat(size_t i,
                                          absl::Duration interval) const {
  double whole = 0;
  const double frac = std::modf(static_cast<double>(i) * kGoldenRatio, &whole);
  return interval * (0.5 + 0.5 * frac);
}

void HeartbeatDriver::Run() {
  uint64_t seen_wake = 0;
  while (true) {
    std::vector<std::pair<size_t, bool>> batch;  // slot, registering
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) return;
      seen_wake = wake_;
      const absl::Time now = absl::Now();
      absl::Time next = now + kMaxIdleWait;
      bool full = false;
      for (size_t i = 0; i < slots_.size(); ++i) {
        Slot& slot = slots_[i];
        if (slot.in_flight) continue;
        if (slot.due > now) {
          next = std::min(next, slot.due);
        } else if (in_flight_ >= max_in_flight_) {
          full = true;
        } else {
          batch.emplace_back(i, Prepare(i));
        }
      }
      if (batch.empty()) {
        // Full: a completion bumps wake_. Otherwise sleep until the next
        // due exchange, unless an agent must register again now.
        auto wake = [this, seen_wake]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
          return stopping_ || wake_ != seen_wake;
        };
        if (full) next = now + kMaxIdleWait;
        mu_.AwaitWithDeadline(absl::Condition(&wake), next);
        continue;
      }
    }
    for (const auto& [i, registering] : batch) Issue(i, registering);
  }
}

bool HeartbeatDriver::Prepare(size_t i) {
  Slot& slot = slots_[i];
  slot.in_flight = true;
  in_flight_++;
  slot.context = std::make_unique<grpc::ClientContext>();
  slot.context->set_deadline(absl::ToChronoTime(absl::Now() + kRpcTimeout));
  if (slot.agent_id.empty()) {
    *slot.register_request.mutable_agent() = slot.agent->Info();
    return true;
  }
  slot.heartbeat_request.set_agent_id(slot.agent_id);
  slot.heartbeat_request.clear_workers();
  for (v1::WorkerInfo& w : slot.agent->workers()) {
    *slot.heartbeat_request.add_workers() = std::move(w);
  }
  return false;
}

void HeartbeatDriver::Issue(size_t i, bool registering) {
  Slot& slot = slots_[i];
  if (registering) {
    slot.stub->async()->Register(
        slot.context.get(), &slot.register_request, &slot.register_response,
        [this, i](grpc::Status status) { Registered(i, status); });
  } else {
    slot.stub->async()->Heartbeat(
        slot.context.get(), &slot.heartbeat_request, &slot.heartbeat_response,
        [this, i](grpc::Status status) { HeartbeatDone(i, status); });
  }
}

void HeartbeatDriver::Registered(size_t i, const grpc::Status& status) {
  Slot& slot = slots_[i];
  uint64_t epoch = 0;
  {
    absl::MutexLock lock(&mu_);
    if (in_flight_-- == max_in_flight_) wake_++;
    slot.in_flight = false;
    const absl::Time now = absl::Now();
    if (!status.ok()) {
      failed_++;
      slot.due = now + kRetryInterval;
      FP_LOG_DEBUG(absl::StrCat(slot.agent->node_name(),
                                " register: ", status.error_message()));
      return;
    }
    answered_++;
    registered_++;
    slot.agent_id = slot.register_response.agent_id();
    if (slot.register_response.heartbeat_interval_seconds() > 0) {
      slot.interval =
          absl::Seconds(slot.register_response.heartbeat_interval_seconds());
    }
    slot.due = now + FirstBeat(i, slot.interval);
    epoch = slot.register_response.membership_epoch();
    DueAgainIfSoon(slot, now);
  }
  slot.agent->Registered(epoch);
}

void HeartbeatDriver::DueAgainIfSoon(Slot& slot, absl::Time now) {
  if (!slot.soon) return;
  slot.soon = false;
  slot.due = now;
  wake_++;
}

void HeartbeatDriver::HeartbeatDone(size_t i, const grpc::Status& status) {
  Slot& slot = slots_[i];
  uint64_t epoch = 0;
  {
    absl::MutexLock lock(&mu_);
    if (in_flight_-- == max_in_flight_) wake_++;
    slot.in_flight = false;
    const absl::Time now = absl::Now();
    if (status.error_code() == grpc::StatusCode::NOT_FOUND) {
      // The coordinator forgot the agent (restart, or it was declared
      // lost): register again now.
      answered_++;
      registered_--;
      slot.agent_id.clear();
      slot.due = now;
      wake_++;
      FP_LOG_WARNING(absl::StrCat(slot.agent->node_name(),
                                  ": coordinator does not know this agent; "
                                  "registering again"));
      return;
    }
    slot.due = now + slot.interval;
    if (!status.ok()) {
      failed_++;
      DueAgainIfSoon(slot, now);
      FP_LOG_DEBUG(absl::StrCat(slot.agent->node_name(),
                                " heartbeat: ", status.error_message()));
      return;
    }
    answered_++;
    epoch = slot.heartbeat_response.membership_epoch();
    // As real agents do: the interval grows with the fleet.
    if (slot.heartbeat_response.heartbeat_interval_seconds() > 0) {
      slot.interval =
          absl::Seconds(slot.heartbeat_response.heartbeat_interval_seconds());
      slot.due = now + slot.interval;
    }
    DueAgainIfSoon(slot, now);
  }
  slot.agent->HeartbeatAnswered(epoch);
}

}  // namespace fabricpulse::scale
