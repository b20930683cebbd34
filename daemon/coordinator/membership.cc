#include "daemon/coordinator/membership.h"

#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "daemon/core/log.h"

namespace fabricpulse::coordinator {

absl::StatusOr<Membership::Registered> Membership::Register(
    const v1::AgentInfo& info) {
  if (info.node_name().empty()) {
    return absl::InvalidArgumentError("node_name: must not be empty");
  }
  if (info.address().empty()) {
    return absl::InvalidArgumentError("address: must not be empty");
  }
  absl::MutexLock lock(&mu_);
  Record& record = by_node_[info.node_name()];
  const std::string busy = record.busy_with;
  node_by_id_.erase(record.agent_id);
  record = Record();
  record.busy_with = busy;
  // Ids are unique across coordinator restarts, so an agent that still
  // holds an old id is told to register again.
  static std::random_device rd;
  record.agent_id = absl::StrCat(info.node_name(), "-", ++next_id_, "-",
                                 absl::Hex(rd(), absl::kZeroPad8));
  node_by_id_[record.agent_id] = info.node_name();
  record.info = info;
  record.last_heartbeat = clock_->Now();
  ++epoch_;
  FP_LOG_INFO(absl::StrCat("agent ", info.node_name(), " at ", info.address(),
                           " joined (epoch ", epoch_, ")"));
  return Registered{record.agent_id, epoch_};
}

absl::StatusOr<Membership::HeartbeatAnswer> Membership::Heartbeat(
    const std::string& agent_id, const std::vector<v1::WorkerInfo>& workers) {
  absl::MutexLock lock(&mu_);
  auto id = node_by_id_.find(agent_id);
  if (id != node_by_id_.end()) {
    const std::string& node = id->second;
    Record& record = by_node_[node];
    record.last_heartbeat = clock_->Now();
    record.info.clear_workers();
    for (const v1::WorkerInfo& w : workers) *record.info.add_workers() = w;
    if (record.lost) {
      record.lost = false;
      ++epoch_;
      FP_LOG_INFO(
          absl::StrCat("agent ", node, " is back (epoch ", epoch_, ")"));
    }
    return HeartbeatAnswer{epoch_, record.busy_with};
  }
  return absl::NotFoundError(
      absl::StrCat("agent id '", agent_id, "' is not registered"));
}

absl::StatusOr<std::string> Membership::NodeOf(const std::string& agent_id) {
  absl::MutexLock lock(&mu_);
  auto id = node_by_id_.find(agent_id);
  if (id == node_by_id_.end()) {
    return absl::NotFoundError(absl::StrCat(
        "agent id '", agent_id.substr(0, 64), "' is not registered"));
  }
  return id->second;
}

void Membership::UpdateLeases() {
  const absl::Time now = clock_->Now();
  const absl::Duration lease =
      timeouts_.Lease(static_cast<int>(by_node_.size()));
  for (auto& [node, record] : by_node_) {
    if (!record.lost && now - record.last_heartbeat > lease) {
      record.lost = true;
      ++epoch_;
      FP_LOG_WARNING(
          absl::StrCat("agent ", node, " lost: no heartbeat for ",
                       absl::FormatDuration(now - record.last_heartbeat)));
    }
  }
}

std::vector<v1::AgentInfo> Membership::List() {
  absl::MutexLock lock(&mu_);
  UpdateLeases();
  std::vector<v1::AgentInfo> out;
  const absl::Time now = clock_->Now();
  for (const auto& [node, record] : by_node_) {
    v1::AgentInfo info = record.info;
    info.set_agent_id(record.agent_id);
    info.set_state(record.lost ? "lost" : "alive");
    info.set_seconds_since_heartbeat(
        absl::ToDoubleSeconds(now - record.last_heartbeat));
    out.push_back(info);
  }
  return out;
}

uint64_t Membership::epoch() {
  absl::MutexLock lock(&mu_);
  UpdateLeases();
  return epoch_;
}

int Membership::size() {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(by_node_.size());
}

absl::Duration Membership::HeartbeatInterval() {
  return timeouts_.HeartbeatInterval(size());
}

absl::Duration Membership::Lease() { return timeouts_.Lease(size()); }

Membership::Counts Membership::CountByState() {
  absl::MutexLock lock(&mu_);
  UpdateLeases();
  Counts counts;
  for (const auto& [node, record] : by_node_) {
    (record.lost ? counts.lost : counts.alive)++;
  }
  return counts;
}

absl::StatusOr<std::vector<v1::AgentInfo>> Membership::Select(
    const std::vector<std::string>& nodes) {
  absl::MutexLock lock(&mu_);
  UpdateLeases();
  std::vector<v1::AgentInfo> out;
  if (nodes.empty()) {
    for (const auto& [node, record] : by_node_) {
      if (!record.lost) out.push_back(record.info);
    }
    if (out.empty()) {
      return absl::UnavailableError(
          "no live agent is registered with the coordinator");
    }
    return out;
  }
  std::map<std::string, v1::AgentInfo> picked;
  for (const std::string& node : nodes) {
    auto it = by_node_.find(node);
    if (it == by_node_.end()) {
      std::vector<std::string> known;
      for (const auto& [name, record] : by_node_) known.push_back(name);
      return absl::InvalidArgumentError(absl::StrCat(
          "nodes: unknown node '", node,
          "'; known: ", known.empty() ? "none" : absl::StrJoin(known, ", ")));
    }
    if (it->second.lost) {
      return absl::UnavailableError(absl::StrCat(
          "node ", node, " is lost: no heartbeat for ",
          absl::FormatDuration(clock_->Now() - it->second.last_heartbeat)));
    }
    picked[node] = it->second.info;
  }
  for (auto& [node, info] : picked) out.push_back(info);
  return out;
}

absl::Status Membership::Reserve(const std::vector<std::string>& nodes,
                                 const std::string& sweep_id) {
  absl::MutexLock lock(&mu_);
  for (const std::string& node : nodes) {
    auto it = by_node_.find(node);
    if (it != by_node_.end() && !it->second.busy_with.empty()) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "node ", node, " is busy with sweep ", it->second.busy_with,
          "; wait for it or run `fabricpulse abort`"));
    }
  }
  for (const std::string& node : nodes) by_node_[node].busy_with = sweep_id;
  return absl::OkStatus();
}

void Membership::Release(const std::vector<std::string>& nodes) {
  absl::MutexLock lock(&mu_);
  for (const std::string& node : nodes) {
    auto it = by_node_.find(node);
    if (it != by_node_.end()) it->second.busy_with.clear();
  }
}

}  // namespace fabricpulse::coordinator
