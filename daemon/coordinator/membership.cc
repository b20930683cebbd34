#include "daemon/coordinator/membership.h"

#include <algorithm>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "daemon/coordinator/agent_info_rules.h"
#include "daemon/core/log.h"
#include "daemon/core/name_rules.h"
#include "daemon/core/status_reason.h"

namespace fabricpulse::coordinator {

namespace {

// The same agent process: the same instance, or (after a restart) the same
// boot of the same machine serving on the same address, which two live
// processes cannot share, registering from the same peer host as the
// holder did (a boot id and an address are only claims; where a
// registration comes from is not).
bool SameInstance(const v1::AgentInfo& holder, const std::string& holder_peer,
                  const v1::AgentInfo& info, const std::string& peer_host) {
  if (!holder.instance_id().empty() &&
      holder.instance_id() == info.instance_id()) {
    return true;
  }
  return !holder.boot_id().empty() && holder.boot_id() == info.boot_id() &&
         holder.address() == info.address() && holder_peer == peer_host;
}

// A refused second agent is logged again after this long at the earliest.
constexpr absl::Duration kRefusalLogInterval = absl::Seconds(60);

}  // namespace

absl::Status Membership::RefuseDuplicate(const v1::AgentInfo& info,
                                         Record& holder) {
  const absl::Time now = clock_->Now();
  const std::string message = absl::StrCat(
      "node_name: node ", info.node_name(), " is held by a live agent at ",
      holder.info.address(), ", which heartbeated ",
      absl::FormatDuration(
          absl::Trunc(now - holder.last_heartbeat, absl::Milliseconds(100))),
      " ago; this agent at ", info.address(), " (instance ", info.instance_id(),
      ") is refused until that one stops heartbeating for its lease (",
      absl::FormatDuration(timeouts_.Lease(static_cast<int>(by_node_.size()))),
      "); give one of them another --node-name");
  if (holder.refused_instance != info.instance_id() ||
      now - holder.refusal_logged >= kRefusalLogInterval) {
    holder.refused_instance = info.instance_id();
    holder.refusal_logged = now;
    FP_LOG_WARNING(absl::StrCat("register refused: ", message));
  }
  return absl::AlreadyExistsError(message);
}

void Membership::Forget(std::map<std::string, Record>::iterator it) {
  ranks_ -= it->second.registered_workers;
  node_by_id_.erase(it->second.agent_id);
  by_node_.erase(it);
}

bool Membership::MakeRoom(int agents, int ranks, const std::string& keep) {
  auto fits = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return static_cast<int>(by_node_.size()) + agents <= limits_.max_agents &&
           ranks_ + ranks <= limits_.max_ranks;
  };
  while (!fits()) {
    auto oldest = by_node_.end();
    for (auto it = by_node_.begin(); it != by_node_.end(); ++it) {
      const Record& r = it->second;
      if (!r.lost || !r.busy_with.empty() || it->first == keep) continue;
      if (oldest == by_node_.end() ||
          r.last_heartbeat < oldest->second.last_heartbeat) {
        oldest = it;
      }
    }
    if (oldest == by_node_.end()) return false;
    FP_LOG_INFO(absl::StrCat(
        "agent ", oldest->first,
        " forgotten to make room (lost, last "
        "heartbeat ",
        absl::FormatDuration(clock_->Now() - oldest->second.last_heartbeat),
        " ago)"));
    Forget(oldest);
  }
  return true;
}

uint64_t Membership::registrations_refused() {
  absl::MutexLock lock(&mu_);
  return refused_;
}

absl::StatusOr<Membership::Registered> Membership::Register(
    const v1::AgentInfo& info, const std::string& peer_host) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Registered> registered = RegisterLocked(info, peer_host);
  if (!registered.ok()) refused_++;
  return registered;
}

absl::StatusOr<Membership::Registered> Membership::RegisterLocked(
    const v1::AgentInfo& info, const std::string& peer_host) {
  if (absl::Status valid = ValidateAgentInfo(info); !valid.ok()) return valid;
  UpdateLeases();
  const std::string& node = info.node_name();
  auto existing = by_node_.find(node);
  const bool replaces = existing != by_node_.end();
  if (replaces && !existing->second.lost &&
      !SameInstance(existing->second.info, existing->second.peer_host, info,
                    peer_host)) {
    return RefuseDuplicate(info, existing->second);
  }
  const int workers = info.workers_size();
  const int old_workers = replaces ? existing->second.registered_workers : 0;
  if (!MakeRoom(replaces ? 0 : 1, workers - old_workers, node)) {
    const bool agents_full =
        !replaces && static_cast<int>(by_node_.size()) >= limits_.max_agents;
    return absl::ResourceExhaustedError(
        agents_full
            ? absl::StrCat("agents: ", by_node_.size(),
                           " agents registered, the bound (config "
                           "agents.max: ",
                           limits_.max_agents, "); node ", node,
                           " is refused. Lost agents are forgotten ",
                           absl::FormatDuration(limits_.forget_lost_after),
                           " after their last heartbeat, or to make room")
            : absl::StrCat("workers: node ", node, " brings ", workers,
                           " ranks to the ", ranks_ - old_workers,
                           " registered; allowed: up to ", limits_.max_ranks,
                           " ranks over all agents"));
  }
  Record& record = by_node_[node];
  const std::string busy = record.busy_with;
  node_by_id_.erase(record.agent_id);
  ranks_ += workers - old_workers;
  record = Record();
  record.busy_with = busy;
  record.registered_workers = workers;
  // Ids are unique across coordinator restarts, so an agent that still
  // holds an old id is told to register again.
  static std::random_device rd;
  record.agent_id = absl::StrCat(node, "-", ++next_id_, "-",
                                 absl::Hex(rd(), absl::kZeroPad8));
  node_by_id_[record.agent_id] = node;
  record.info = info;
  record.peer_host = peer_host;
  record.last_heartbeat = clock_->Now();
  ++epoch_;
  FP_LOG_INFO(absl::StrCat("agent ", node, " at ", info.address(),
                           " joined (epoch ", epoch_, ")"));
  return Registered{record.agent_id, epoch_};
}

absl::StatusOr<Membership::HeartbeatAnswer> Membership::Heartbeat(
    const std::string& agent_id, const std::vector<v1::WorkerInfo>& workers,
    const v1::NicList* nics) {
  if (absl::Status valid = core::ValidateId(
          "agent_id", agent_id, /*allow_empty=*/false, core::kMaxAgentIdLength);
      !valid.ok()) {
    return valid;
  }
  absl::MutexLock lock(&mu_);
  auto id = node_by_id_.find(agent_id);
  if (id != node_by_id_.end()) {
    const std::string& node = id->second;
    Record& record = by_node_[node];
    absl::Status valid = CheckWorkers(workers, record.registered_workers);
    if (valid.ok() && nics != nullptr) valid = CheckNics(nics->nics());
    if (!valid.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("node ", node, ": ", valid.message()));
    }
    if (nics != nullptr) *record.info.mutable_nics() = nics->nics();
    record.last_heartbeat = clock_->Now();
    record.info.clear_workers();
    for (const v1::WorkerInfo& w : workers) *record.info.add_workers() = w;
    if (record.lost) {
      record.lost = false;
      ++epoch_;
      FP_LOG_INFO(
          absl::StrCat("agent ", node, " is back (epoch ", epoch_, ")"));
    }
    return HeartbeatAnswer{epoch_, record.busy_with, node,
                           core::AgentLabels(record.info.labels().begin(),
                                             record.info.labels().end())};
  }
  return absl::NotFoundError(absl::StrCat(
      "agent id ", core::QuotePrefix(agent_id), " is not registered"));
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
  for (auto it = by_node_.begin(); it != by_node_.end();) {
    const std::string& node = it->first;
    Record& record = it->second;
    const absl::Duration silent = now - record.last_heartbeat;
    if (!record.lost && silent > lease) {
      record.lost = true;
      ++epoch_;
      FP_LOG_WARNING(absl::StrCat("agent ", node, " lost: no heartbeat for ",
                                  absl::FormatDuration(silent)));
    }
    if (record.lost && record.busy_with.empty() &&
        silent > limits_.forget_lost_after) {
      FP_LOG_INFO(absl::StrCat("agent ", node,
                               " forgotten: lost, no heartbeat for ",
                               absl::FormatDuration(silent)));
      auto gone = it++;
      Forget(gone);
      continue;
    }
    ++it;
  }
}

void Membership::RefreshNics(
    const std::string& node, const std::string& address,
    const google::protobuf::RepeatedPtrField<v1::NicInfo>& nics) {
  absl::MutexLock lock(&mu_);
  auto it = by_node_.find(node);
  if (it == by_node_.end() || it->second.info.address() != address) return;
  *it->second.info.mutable_nics() = nics;
}

std::vector<v1::AgentInfo> Membership::List(
    const std::vector<std::string>& nodes) {
  absl::MutexLock lock(&mu_);
  UpdateLeases();
  std::vector<v1::AgentInfo> out;
  const absl::Time now = clock_->Now();
  auto add = [&](const Record& record) {
    v1::AgentInfo& info = out.emplace_back(record.info);
    info.set_agent_id(record.agent_id);
    info.set_state(record.lost ? "lost" : "alive");
    info.set_seconds_since_heartbeat(
        absl::ToDoubleSeconds(now - record.last_heartbeat));
    info.set_reserved_sweep(record.busy_with);
  };
  if (nodes.empty()) {
    for (const auto& [node, record] : by_node_) add(record);
    return out;
  }
  std::vector<std::string> sorted = nodes;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  for (const std::string& node : sorted) {
    if (auto it = by_node_.find(node); it != by_node_.end()) add(it->second);
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
      return core::WithReason(
          absl::UnavailableError(
              "no live agent is registered with the coordinator"),
          core::StatusReason::kMemberUnavailable);
    }
    return out;
  }
  std::map<std::string, v1::AgentInfo> picked;
  for (const std::string& node : nodes) {
    auto it = by_node_.find(node);
    if (it == by_node_.end()) {
      constexpr size_t kListed = 10;
      std::vector<std::string> known;
      for (const auto& [name, record] : by_node_) {
        if (known.size() == kListed) {
          known.push_back(
              absl::StrCat("and ", by_node_.size() - kListed, " more"));
          break;
        }
        known.push_back(name);
      }
      return absl::InvalidArgumentError(absl::StrCat(
          "nodes: unknown node ", core::QuotePrefix(node),
          "; known: ", known.empty() ? "none" : absl::StrJoin(known, ", ")));
    }
    if (it->second.lost) {
      return core::WithReason(
          absl::UnavailableError(absl::StrCat(
              "node ", node, " is lost: no heartbeat for ",
              absl::FormatDuration(clock_->Now() - it->second.last_heartbeat))),
          core::StatusReason::kMemberUnavailable);
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
      return core::WithReason(
          absl::ResourceExhaustedError(absl::StrCat(
              "node ", node, " is busy with sweep ", it->second.busy_with,
              "; wait for it or run `fabricpulse abort`")),
          core::StatusReason::kMembersBusy);
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
