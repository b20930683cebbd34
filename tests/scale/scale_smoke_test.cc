// Smoke test of the fleet simulator against the real coordinator: 16
// healthy simulated agents (one slow) plus a dead and a hung one, hosted by
// two fleet_sim processes that get the same fault flags.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "daemon/common/port_file.h"
#include "daemon/common/process.h"
#include "fabricpulse/v1/coordinator.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/integration/test_support.h"
#include "tests/scale/fault_plan.h"
#include "tests/scale/fleet_test_support.h"

namespace fabricpulse::scale {
namespace {

using ::fabricpulse::testing::Eventually;

constexpr absl::Duration kStartTimeout = absl::Seconds(20);
constexpr absl::Duration kSweepTimeout = absl::Seconds(30);
constexpr int kHealthy = 16;
const char kSlowNode[] = "sim-0003";
const char kDeadNode[] = "sim-0016";
const char kHangNode[] = "sim-0017";

// Every event of one sweep, as it arrives (readable while it runs).
class SweepStream {
 public:
  SweepStream(v1::CoordinatorService::Stub& stub, v1::SweepRequest request) {
    context_.set_deadline(absl::ToChronoTime(absl::Now() + kSweepTimeout));
    thread_ = std::thread([this, &stub, request] {
      auto reader = stub.RunSweep(&context_, request);
      v1::SweepEvent event;
      while (reader->Read(&event)) {
        absl::MutexLock lock(&mu_);
        events_.push_back(event);
      }
      grpc::Status status = reader->Finish();
      absl::MutexLock lock(&mu_);
      status_ = status;
      ended_ = true;
    });
  }
  ~SweepStream() { Join(); }

  // Waits until `want` holds for the events so far (or the stream ended).
  bool WaitFor(
      const std::function<bool(const std::vector<v1::SweepEvent>&)>& want,
      absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    auto ready = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return ended_ || want(events_);
    };
    mu_.AwaitWithTimeout(absl::Condition(&ready), timeout);
    return want(events_);
  }
  void Join() {
    if (thread_.joinable()) thread_.join();
  }
  // Valid after Join().
  const grpc::Status& status() const { return status_; }
  const std::vector<v1::SweepEvent>& events() const { return events_; }

 private:
  grpc::ClientContext context_;
  absl::Mutex mu_;
  std::vector<v1::SweepEvent> events_;
  grpc::Status status_;
  bool ended_ = false;
  std::thread thread_;
};

bool Has(const std::vector<v1::SweepEvent>& events,
         v1::SweepEvent::EventCase which) {
  for (const auto& e : events) {
    if (e.event_case() == which) return true;
  }
  return false;
}

v1::SweepRequest Request(const std::vector<std::string>& nodes) {
  return AllReduceRequest(nodes, 1024, 1 << 20);
}

class ScaleSmokeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/fabricpulse-scale-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    const std::string ports = dir_ + "/coord.ports";
    auto coordinator =
        common::Spawn({{Bin("fabricpulse-coordinator"), "--listen",
                        "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0",
                        "--state-dir", dir_ + "/state", "--port-file", ports,
                        // fleet_sim's agents speak plaintext gRPC.
                        "--insecure"},
                       {},
                       dir_ + "/coordinator.log"});
    ASSERT_TRUE(coordinator.ok()) << coordinator.status();
    coordinator_ = *coordinator;
    auto bound = common::WaitForPortFile(ports, kStartTimeout);
    ASSERT_TRUE(bound.ok()) << bound.status();
    address_ = bound->grpc;
    // Two processes, 8 + 10 agents: sim-0000..0007 and sim-0008..0017. Both
    // get every fault flag; each applies those naming its own nodes.
    StartFleet(0, 8, "a");
    StartFleet(8, 10, "b");
    for (const char* name : {"a", "b"}) {
      const std::string ready = absl::StrCat(dir_, "/fleet-", name, ".ready");
      ASSERT_TRUE(
          Eventually([&] { return ReadyCount(ready) > 0; }, kStartTimeout))
          << "fleet " << name << " not registered; logs in " << dir_;
    }
    stub_ = v1::CoordinatorService::NewStub(
        grpc::CreateChannel(address_, grpc::InsecureChannelCredentials()));
  }

  void StartFleet(int first, int agents, const std::string& name) {
    auto pid = common::Spawn(
        {{Bin("fleet_sim"), "--coordinator", address_, "--agents",
          absl::StrCat(agents), "--first-index", absl::StrCat(first),
          "--slow-node", absl::StrCat(kSlowNode, ":4"), "--dead-node",
          kDeadNode, "--hang-node", kHangNode, "--port-file",
          absl::StrCat(dir_, "/fleet-", name, ".ready")},
         {},
         absl::StrCat(dir_, "/fleet-", name, ".log")});
    ASSERT_TRUE(pid.ok()) << pid.status();
    fleets_.push_back(*pid);
  }

  void TearDown() override {
    // An open client connection holds the coordinator's shutdown up to its
    // 5 s grace: close it first.
    stub_.reset();
    for (pid_t pid : fleets_) {
      auto exit = common::TerminateProcess(pid, absl::Seconds(10));
      ASSERT_TRUE(exit.has_value());
      EXPECT_EQ(exit->exit_code, 0) << "fleet_sim " << exit->Describe();
    }
    if (coordinator_ > 0) {
      common::TerminateProcess(coordinator_, absl::Seconds(10));
    }
    if (!HasFailure()) std::filesystem::remove_all(dir_);
  }

  std::string dir_;
  std::string address_;
  pid_t coordinator_ = -1;
  std::vector<pid_t> fleets_;
  std::unique_ptr<v1::CoordinatorService::Stub> stub_;
};

TEST_F(ScaleSmokeTest, AgentsRegisterAsSimulatedGlooNodes) {
  grpc::ClientContext ctx;
  v1::ListAgentsResponse agents;
  ASSERT_TRUE(stub_->ListAgents(&ctx, {}, &agents).ok());
  ASSERT_EQ(agents.agents_size(), kHealthy + 2);
  for (int i = 0; i < agents.agents_size(); ++i) {
    const v1::AgentInfo& a = agents.agents(i);
    EXPECT_EQ(a.node_name(), SimNodeName(i));
    EXPECT_EQ(a.state(), "alive");
    EXPECT_EQ(a.backend(), "gloo");
    EXPECT_EQ(a.backend_version(), "fleet-sim");
    EXPECT_TRUE(absl::StartsWith(a.address(), "127.0.0.1:")) << a.address();
    ASSERT_EQ(a.workers_size(), 1);
    EXPECT_TRUE(a.workers(0).ready());
    EXPECT_EQ(a.workers(0).gpu(), -1);
  }
}

TEST_F(ScaleSmokeTest, SweepOverSixteenNodesSucceedsAndNamesTheSlowNode) {
  std::vector<std::string> nodes;
  for (int i = 0; i < kHealthy; ++i) nodes.push_back(SimNodeName(i));
  SweepStream sweep(*stub_, Request(nodes));
  sweep.Join();
  ASSERT_TRUE(sweep.status().ok()) << sweep.status().error_message();
  int results = 0;
  for (const v1::SweepEvent& e : sweep.events()) {
    if (e.has_started()) {
      EXPECT_EQ(e.started().nodes_size(), kHealthy);
      EXPECT_EQ(e.started().nranks(), kHealthy);
    }
    if (e.has_result()) {
      results++;
      // Ranks follow sorted node names, one per node: sim-0003 is rank 3.
      EXPECT_EQ(e.result().slowest_rank(), 3) << e.result().step().bytes();
      EXPECT_GT(e.result().busbw_bytes_per_second(), 0);
    }
    if (e.has_finished()) {
      EXPECT_EQ(e.finished().status(), "succeeded");
      EXPECT_TRUE(absl::StrContains(e.finished().straggler(), kSlowNode))
          << e.finished().straggler();
    }
  }
  EXPECT_EQ(results, 11);  // 1 KiB .. 1 MiB by 2, out of place
}

TEST_F(ScaleSmokeTest, DeadNodeFailsTheSweepUnavailableNamingIt) {
  SweepStream sweep(*stub_, Request({"sim-0000", "sim-0001", kDeadNode}));
  sweep.Join();
  EXPECT_EQ(sweep.status().error_code(), grpc::StatusCode::UNAVAILABLE)
      << sweep.status().error_message();
  EXPECT_TRUE(absl::StrContains(sweep.status().error_message(), kDeadNode))
      << sweep.status().error_message();
  EXPECT_TRUE(
      absl::StrContains(sweep.status().error_message(), "simulated dead rank"))
      << sweep.status().error_message();
  ASSERT_FALSE(sweep.events().empty());
  EXPECT_EQ(sweep.events().back().finished().status(), "failed");
}

TEST_F(ScaleSmokeTest, HungNodeSweepEndsAbortedWhenAborted) {
  SweepStream sweep(*stub_, Request({"sim-0002", kHangNode}));
  // Every rank (the hung one too) reports comm_ready; no step completes.
  ASSERT_TRUE(sweep.WaitFor(
      [](const std::vector<v1::SweepEvent>& events) {
        return Has(events, v1::SweepEvent::kCommReady);
      },
      kSweepTimeout));
  std::string sweep_id;
  ASSERT_TRUE(sweep.WaitFor(
      [&](const std::vector<v1::SweepEvent>& events) {
        for (const auto& e : events) {
          if (e.has_started()) sweep_id = e.started().sweep_id();
        }
        return !Has(events, v1::SweepEvent::kResult) && !sweep_id.empty();
      },
      absl::ZeroDuration()));
  grpc::ClientContext ctx;
  v1::AbortSweepRequest abort;
  abort.set_sweep_id(sweep_id);
  v1::AbortSweepResponse aborted;
  ASSERT_TRUE(stub_->AbortSweep(&ctx, abort, &aborted).ok());
  const absl::Time asked = absl::Now();
  sweep.Join();
  EXPECT_LT(absl::Now() - asked, absl::Seconds(5));
  EXPECT_EQ(sweep.status().error_code(), grpc::StatusCode::ABORTED)
      << sweep.status().error_message();
  ASSERT_FALSE(sweep.events().empty());
  EXPECT_EQ(sweep.events().back().finished().status(), "aborted");
}

}  // namespace
}  // namespace fabricpulse::scale
