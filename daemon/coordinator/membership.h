// Which agents exist, which are alive, which are busy, and the membership
// epoch that changes whenever an agent joins, re-joins or is lost.
//
// Bounds (core/limits.h, MembershipLimits): at most `max_agents` agents
// (lost ones included) and `max_ranks` workers over all of them; a lost
// agent is forgotten `forget_lost_after` after its last heartbeat; a full
// table makes room by forgetting the agent lost the longest. Every
// description is checked (agent_info_rules.h) and a heartbeat may list no
// more workers than its agent registered with.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "daemon/core/agent_labels.h"
#include "daemon/core/clock.h"
#include "daemon/core/limits.h"
#include "daemon/core/timeout_budget.h"
#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::coordinator {

struct MembershipLimits {
  int max_agents = core::kDefaultMaxAgents;
  int max_ranks = core::kMaxRanks;
  absl::Duration forget_lost_after = core::kDefaultForgetLostAfter;
};

// Thread-safe.
class Membership {
 public:
  // An agent whose last heartbeat is older than the budget's lease for the
  // fleet's size (TimeoutBudget::Lease), on `clock`, is lost. `clock`
  // outlives the membership.
  explicit Membership(const core::TimeoutBudget& timeouts,
                      core::Clock* clock = core::RealClock::Get(),
                      const MembershipLimits& limits = {})
      : timeouts_(timeouts), clock_(clock), limits_(limits) {}

  struct Registered {
    std::string agent_id;
    uint64_t epoch = 0;
  };
  // Adds the agent. An entry with the same node name is replaced when it
  // is lost, or when the request comes from the same agent process (same
  // instance_id; or same boot_id and address from the same peer host: a
  // restart on a fixed port).
  // Errors: INVALID_ARGUMENT a field breaks its bound (ValidateAgentInfo);
  // ALREADY_EXISTS a live agent of another instance holds the name (the
  // message names its address and how long ago it heartbeated; logged once
  // per refused instance); RESOURCE_EXHAUSTED the table holds max_agents
  // live agents, or the agent's workers would take the ranks beyond
  // max_ranks.
  // `peer_host`: where the registration came from (PeerHost of the call's
  // peer); a restart on the same boot and address must come from the
  // holder's.
  absl::StatusOr<Registered> Register(const v1::AgentInfo& info,
                                      const std::string& peer_host = "");
  struct HeartbeatAnswer {
    uint64_t epoch = 0;
    std::string sweep_id;  // the sweep the agent is reserved for, or ""
    std::string node;
    core::AgentLabels labels;  // as registered
  };
  // Records a heartbeat and the agent's workers. Errors: INVALID_ARGUMENT
  // a malformed id, or workers beyond those the agent registered with
  // (CheckWorkers; nothing changes, the lease included); NOT_FOUND unknown
  // id (the agent should register again).
  // `nics` (nullable: not sent) replace the agent's NICs; errors as
  // CheckNics, nothing changed.
  absl::StatusOr<HeartbeatAnswer> Heartbeat(
      const std::string& agent_id, const std::vector<v1::WorkerInfo>& workers,
      const v1::NicList* nics = nullptr);
  // The node registered under `agent_id`. Errors: NOT_FOUND unknown id.
  absl::StatusOr<std::string> NodeOf(const std::string& agent_id);
  // Every agent, sorted by node name, with state and heartbeat age; only
  // those of `nodes` when it is not empty (unknown ones left out): a cost
  // of the nodes asked for, not of the fleet.
  std::vector<v1::AgentInfo> List(const std::vector<std::string>& nodes = {});
  // Replaces the NICs of the agent registered as `node` at `address` by a
  // fresher description's (already checked with ValidateAgentInfo):
  // heartbeats carry workers only, so the planner's Describe answers keep
  // the listed NIC states current. No agent of that node and address:
  // nothing changes.
  void RefreshNics(const std::string& node, const std::string& address,
                   const google::protobuf::RepeatedPtrField<v1::NicInfo>& nics);
  uint64_t epoch();
  // Registered agents, lost ones included (at most limits.max_agents).
  int size();
  const MembershipLimits& limits() const { return limits_; }
  // Registrations refused since start (any error).
  uint64_t registrations_refused();
  // The heartbeat interval and lease for the fleet as it is now.
  absl::Duration HeartbeatInterval();
  absl::Duration Lease();
  // Agents by state.
  struct Counts {
    int alive = 0;
    int lost = 0;
  };
  Counts CountByState();

  // The agents of a sweep: `nodes` (all live agents when empty), sorted by
  // node name. Errors: INVALID_ARGUMENT unknown node (quoted by its prefix;
  // at most 10 known names listed); UNAVAILABLE a named node is lost, or no
  // live agent.
  absl::StatusOr<std::vector<v1::AgentInfo>> Select(
      const std::vector<std::string>& nodes);
  // Marks the nodes busy for `sweep_id`. Errors: RESOURCE_EXHAUSTED one is
  // already busy (names it and its sweep).
  absl::Status Reserve(const std::vector<std::string>& nodes,
                       const std::string& sweep_id);
  void Release(const std::vector<std::string>& nodes);

 private:
  struct Record {
    std::string agent_id;
    v1::AgentInfo info;
    std::string peer_host;  // where its registration came from
    absl::Time last_heartbeat;
    bool lost = false;
    std::string busy_with;
    int registered_workers = 0;
    // The last instance refused this node name, and when that was logged:
    // a second agent with the same name is logged once, not per retry.
    std::string refused_instance;
    absl::Time refusal_logged = absl::InfinitePast();
  };
  // Marks agents whose lease ran out as lost, and forgets agents lost for
  // longer than limits_.forget_lost_after (unless a sweep holds them).
  void UpdateLeases() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Forgets lost agents, the longest lost first, until `agents` more agents
  // and `ranks` more ranks fit; whether they do. `keep` is never forgotten.
  bool MakeRoom(int agents, int ranks, const std::string& keep)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Forget(std::map<std::string, Record>::iterator it)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // ALREADY_EXISTS for `info`, which asks for a name `holder` holds.
  absl::Status RefuseDuplicate(const v1::AgentInfo& info, Record& holder)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const core::TimeoutBudget timeouts_;
  core::Clock* const clock_;
  const MembershipLimits limits_;
  absl::Mutex mu_;
  std::map<std::string, Record> by_node_ ABSL_GUARDED_BY(mu_);
  // Workers over every record (registered counts).
  int ranks_ ABSL_GUARDED_BY(mu_) = 0;
  // agent id -> node name, so that a heartbeat finds its agent at once.
  std::map<std::string, std::string> node_by_id_ ABSL_GUARDED_BY(mu_);
  uint64_t epoch_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t refused_ ABSL_GUARDED_BY(mu_) = 0;
  // Register's checks and the new record; Register counts its refusals.
  absl::StatusOr<Registered> RegisterLocked(const v1::AgentInfo& info,
                                            const std::string& peer_host)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
};

}  // namespace fabricpulse::coordinator
