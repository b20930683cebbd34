// Fuzzes what CoordinatorService does with a request's bytes: decode the
// request message (as gRPC does), then run what the handler runs on it
// before any effect outside a fresh, per-input state: Membership::Register
// and Heartbeat, RendezvousStore::Set and Get (never waiting),
// SweepPlanner::Plan over two fake agents, ListSweepsLimit. Requests that
// carry only a sweep id or nothing (AbortSweep, GetSweep, Diagnose,
// ListAgents, Stats) are decoded: their handlers hand the id to a map
// lookup or an SQLite bound parameter.
//
// Input: first byte = the request (request_methods.h), the rest = its
// wire bytes.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "daemon/coordinator/comm_naming.h"
#include "daemon/coordinator/membership.h"
#include "daemon/coordinator/rendezvous_store.h"
#include "daemon/coordinator/request_checks.h"
#include "daemon/coordinator/sweep_planner.h"
#include "daemon/core/coordinator_config.h"
#include "daemon/core/log.h"
#include "daemon/core/timeout_budget.h"
#include "fabricpulse/v1/coordinator.pb.h"
#include "tests/fakes/fake_agent_client.h"
#include "tests/fakes/fake_clock.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_targets.h"
#include "tests/fuzz/request_methods.h"

namespace fabricpulse::fuzz {
namespace {

using absl::StatusCode;

// What a handler may answer bad input with; never INTERNAL or UNKNOWN.
constexpr std::initializer_list<StatusCode> kRefusals = {
    StatusCode::kInvalidArgument,
    StatusCode::kOutOfRange,
    StatusCode::kFailedPrecondition,
    StatusCode::kResourceExhausted,
    StatusCode::kAlreadyExists,
    StatusCode::kPermissionDenied,
    StatusCode::kNotFound};

v1::AgentInfo Agent(const std::string& name, int ranks) {
  v1::AgentInfo info;
  info.set_node_name(name);
  info.set_address("fake:" + name);
  info.set_backend("gloo");
  info.set_backend_version("gloo");
  for (int i = 0; i < ranks; ++i) {
    v1::WorkerInfo* w = info.add_workers();
    w->set_local_index(i);
    w->set_incarnation(absl::StrCat(name, "-", i));
    w->set_ready(true);
    w->set_gpu(-1);
  }
  return info;
}

template <typename Message>
bool Decode(const uint8_t* data, size_t size, Message* message) {
  return message->ParseFromArray(data, static_cast<int>(size));
}

void Register(const v1::RegisterRequest& request) {
  fakes::FakeClock clock;
  coordinator::Membership membership(core::kTimeouts, &clock);
  const auto registered = membership.Register(request.agent());
  CheckCode(registered.status(), kRefusals, "Membership::Register");
  if (!registered.ok()) return;
  // Issue 13 item 5 (strict mode until it lands): names are printable.
  for (const char c : request.agent().node_name()) {
    if (Strict() && absl::ascii_iscntrl(c)) {
      Fail("Register accepted a node name with a control character");
    }
  }
  const std::vector<v1::AgentInfo> listed = membership.List();
  if (listed.size() != 1 ||
      listed[0].node_name() != request.agent().node_name() ||
      listed[0].agent_id() != registered->agent_id ||
      membership.epoch() != registered->epoch) {
    Fail("a registered agent is not listed as registered");
  }
  std::vector<v1::WorkerInfo> workers(request.agent().workers().begin(),
                                      request.agent().workers().end());
  CheckCode(membership.Heartbeat(registered->agent_id, workers).status(),
            kRefusals, "Membership::Heartbeat after Register");
}

void Heartbeat(const v1::HeartbeatRequest& request) {
  fakes::FakeClock clock;
  coordinator::Membership membership(core::kTimeouts, &clock);
  const auto registered = membership.Register(Agent("node-a", 2));
  if (!registered.ok()) Fail("registering a good agent failed");
  std::vector<v1::WorkerInfo> workers(request.workers().begin(),
                                      request.workers().end());
  const auto answer = membership.Heartbeat(request.agent_id(), workers);
  CheckCode(answer.status(), kRefusals, "Membership::Heartbeat");
  if (answer.ok() != (request.agent_id() == registered->agent_id)) {
    Fail("a heartbeat with an unknown agent id was accepted");
  }
  // The same workers from the registered agent.
  CheckCode(membership.Heartbeat(registered->agent_id, workers).status(),
            kRefusals, "Membership::Heartbeat");
}

// A store with one sweep's scope open ("comm/0/", node-a's two ranks), as
// the orchestrator opens it; node-a is the caller the handler takes from the
// agent's certificate.
constexpr char kScope[] = "comm/0/";

absl::StatusOr<std::string> GetNow(coordinator::RendezvousStore& store,
                                   const std::string& caller,
                                   const std::string& key) {
  absl::StatusOr<std::string> out = absl::UnknownError("not answered");
  store.Get(caller, key, absl::ZeroDuration(),
            [&out](absl::StatusOr<std::string> got) { out = std::move(got); });
  return out;
}

void KvSet(const v1::KvSetRequest& request) {
  fakes::FakeClock clock;
  coordinator::RendezvousStore store(&clock);
  if (!store.OpenScope(kScope, {"node-a"}, 2).ok()) Fail("opening a scope");
  const absl::Status set = store.Set("node-a", request.key(), request.value());
  CheckCode(set, kRefusals, "RendezvousStore::Set");
  // A node outside the sweep never writes, whatever the key.
  if (store.Set("node-z", request.key(), request.value()).ok()) {
    Fail("a non-member's Set was accepted");
  }
  if (!set.ok()) return;
  const auto got = GetNow(store, "node-a", request.key());
  if (!got.ok() || *got != request.value()) {
    Fail("a stored key does not read back");
  }
}

void KvGet(const v1::KvGetRequest& request) {
  fakes::FakeClock clock;
  coordinator::RendezvousStore store(&clock);
  if (!store.OpenScope(kScope, {"node-a"}, 2).ok()) Fail("opening a scope");
  if (!store.Set("node-a", "comm/0/rank0", "value").ok()) {
    Fail("Set of a good key");
  }
  const auto got = GetNow(store, "node-a", request.key());
  if (!got.ok()) {
    CheckCode(got.status(),
              {StatusCode::kDeadlineExceeded, StatusCode::kInvalidArgument,
               StatusCode::kFailedPrecondition, StatusCode::kResourceExhausted},
              "RendezvousStore::Get");
  }
  if (GetNow(store, "node-z", request.key()).ok()) {
    Fail("a non-member's Get was answered");
  }
  // wait_seconds is only clamped by the handler; any double must clamp.
  const absl::Duration wait =
      std::clamp(absl::Seconds(request.wait_seconds()), absl::ZeroDuration(),
                 core::kTimeouts.max_kv_wait);
  if (wait < absl::ZeroDuration() || wait > core::kTimeouts.max_kv_wait) {
    Fail("the KvGet wait is outside its clamp");
  }
}

void RunSweep(const v1::SweepRequest& request) {
  fakes::FakeClock clock;
  fakes::FakeAgentClients clients;
  coordinator::Membership membership(core::kTimeouts, &clock);
  for (const char* name : {"node-a", "node-b"}) {
    const v1::AgentInfo info = Agent(name, 2);
    if (!membership.Register(info).ok()) Fail("registering a good agent");
    clients.Add(info);
  }
  core::CoordinatorConfig config;
  core::PlanConfig quick;
  quick.name = "quick";
  quick.spec.max_bytes = 1 << 20;
  quick.nodes = {"node-a"};
  config.plans.emplace(quick.name, quick);
  coordinator::CommNaming naming;
  coordinator::SweepPlanner planner(&config, &membership, &naming, &clients,
                                    &clock, core::kTimeouts);
  const auto plan = planner.Plan(request, "127.0.0.1:1");
  CheckCode(plan.status(), kRefusals, "SweepPlanner::Plan");
  if (!plan.ok()) return;
  if (plan->steps.empty() || plan->steps.size() > core::kMaxSteps ||
      plan->nranks < 1 || plan->agents.empty() ||
      static_cast<int>(plan->rank_nodes.size()) != plan->nranks) {
    Fail("an accepted sweep has no steps, too many, or no ranks");
  }
}

void ListSweeps(const v1::ListSweepsRequest& request) {
  const auto last = coordinator::ListSweepsLimit(request);
  CheckCode(last.status(), {StatusCode::kInvalidArgument}, "ListSweepsLimit");
  if (last.ok() && (*last < 1 || *last > coordinator::kMaxListSweeps)) {
    Fail("ListSweepsLimit accepted a count outside its range");
  }
}

}  // namespace

int FuzzCoordinatorRequests(const uint8_t* data, size_t size) {
  static const bool quiet = (core::SetLogLevel(core::LogLevel::kError), true);
  (void)quiet;
  if (size == 0) return 0;
  const auto method = static_cast<CoordinatorMethod>(
      data[0] % static_cast<int>(CoordinatorMethod::kCount));
  ++data;
  --size;
  switch (method) {
    case CoordinatorMethod::kRegister: {
      v1::RegisterRequest request;
      if (Decode(data, size, &request)) Register(request);
      break;
    }
    case CoordinatorMethod::kHeartbeat: {
      v1::HeartbeatRequest request;
      if (Decode(data, size, &request)) Heartbeat(request);
      break;
    }
    case CoordinatorMethod::kKvSet: {
      v1::KvSetRequest request;
      if (Decode(data, size, &request)) KvSet(request);
      break;
    }
    case CoordinatorMethod::kKvGet: {
      v1::KvGetRequest request;
      if (Decode(data, size, &request)) KvGet(request);
      break;
    }
    case CoordinatorMethod::kRunSweep: {
      v1::SweepRequest request;
      if (Decode(data, size, &request)) RunSweep(request);
      break;
    }
    case CoordinatorMethod::kListSweeps: {
      v1::ListSweepsRequest request;
      if (Decode(data, size, &request)) ListSweeps(request);
      break;
    }
    default: {
      v1::AbortSweepRequest abort;
      v1::GetSweepRequest get;
      v1::DiagnoseRequest diagnose;
      v1::ListAgentsRequest list;
      v1::CoordinatorStatsRequest stats;
      (void)Decode(data, size, &abort);
      (void)Decode(data, size, &get);
      (void)Decode(data, size, &diagnose);
      (void)Decode(data, size, &list);
      (void)Decode(data, size, &stats);
      break;
    }
  }
  return 0;
}

}  // namespace fabricpulse::fuzz
