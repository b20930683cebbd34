// Bounds on what a sweep takes from its clients and agents, over fake
// agents: a request's node list, an agent's Describe answer, and the
// agents' event streams (each rank reports its communicator once and each
// step once, in order; anything more fails the sweep naming the agent).
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/coordinator/orchestrator_fixture.h"

namespace fabricpulse::testing {
namespace {

using ::testing::HasSubstr;

v1::RankEvent CommReady(int rank) {
  v1::RankEvent e;
  e.mutable_comm_ready()->set_rank(rank);
  return e;
}

v1::RankEvent Step(int index, int rank) {
  v1::RankEvent e;
  e.mutable_step()->set_step_index(index);
  e.mutable_step()->mutable_timing()->set_rank(rank);
  e.mutable_step()->mutable_timing()->set_mean_seconds(1e-3);
  return e;
}

class SweepBoundsTest : public OrchestratorTest {
 protected:
  absl::Status Run(const v1::SweepRequest& request) {
    return orchestrator_->Execute(request, "cli",
                                  [](const v1::SweepEvent&) { return true; });
  }
  // node-a healthy (ranks 0, 1); node-b (ranks 2, 3) sends `script`.
  absl::Status RunWithRogue(std::vector<v1::RankEvent> script) {
    AddAgent("node-a", 2);
    auto b = AddAgent("node-b", 2);
    b->SetScript(std::move(script));
    return Run(ThreeSteps());
  }
};

TEST_F(SweepBoundsTest, ARankReportingAStepTwiceFailsTheSweepNamingItsNode) {
  absl::Status status = RunWithRogue(
      {CommReady(2), CommReady(3), Step(0, 2), Step(0, 3), Step(0, 2)});
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted) << status;
  EXPECT_THAT(status.message(),
              HasSubstr("node node-b sent an event out of bounds: rank 2 "
                        "reported step 0 after step 0"));
}

TEST_F(SweepBoundsTest, AFloodOfEventsIsCutAtTheFirstOneOutOfBounds) {
  std::vector<v1::RankEvent> flood = {CommReady(2), CommReady(3)};
  for (int i = 0; i < 100000; ++i) flood.push_back(Step(0, 2));
  absl::Status status = RunWithRogue(std::move(flood));
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted) << status;
  EXPECT_THAT(status.message(), HasSubstr("node node-b"));
  // The sweep is recorded as failed with that reason.
  auto sweeps = history_->ListSweeps(1);
  ASSERT_TRUE(sweeps.ok() && sweeps->size() == 1);
  EXPECT_EQ((*sweeps)[0].status, "failed");
  EXPECT_THAT((*sweeps)[0].error, HasSubstr("node node-b"));
}

TEST_F(SweepBoundsTest, ARankThatIsNotTheAgentsOwnFailsTheSweep) {
  absl::Status status = RunWithRogue({CommReady(0)});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(status.message(),
              HasSubstr("node node-b sent an event out of bounds: rank 0 is "
                        "not one of its ranks"));
}

TEST_F(SweepBoundsTest, AStepThatDoesNotExistFailsTheSweep) {
  absl::Status status = RunWithRogue({CommReady(2), Step(3, 2)});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(status.message(),
              HasSubstr("rank 2 reported step 3 of a sweep of 3 steps"));
}

TEST_F(SweepBoundsTest, ACommunicatorReportedTwiceFailsTheSweep) {
  absl::Status status = RunWithRogue({CommReady(2), CommReady(2)});
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted) << status;
  EXPECT_THAT(status.message(),
              HasSubstr("rank 2 reported its communicator twice"));
}

TEST_F(SweepBoundsTest, EveryEventOnceInOrderPasses) {
  AddAgent("node-a", 2);
  auto b = AddAgent("node-b", 2);
  std::vector<v1::RankEvent> script = {CommReady(2), CommReady(3)};
  for (int step = 0; step < 3; ++step) {
    script.push_back(Step(step, 3));
    script.push_back(Step(step, 2));
  }
  b->SetScript(script);
  auto bg = Start(ThreeSteps());
  // The scripted agent keeps its stream open after its events: every step
  // is merged and stored, and the sweep waits for the stream's end only.
  auto stored_steps = [this]() -> size_t {
    auto sweeps = history_->ListSweeps(1);
    if (!sweeps.ok() || sweeps->empty()) return 0;
    auto sweep = history_->GetSweep((*sweeps)[0].id);
    return sweep.ok() ? sweep->steps.size() : 0;
  };
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (stored_steps() < 3 && absl::Now() < deadline) {
    std::this_thread::yield();
  }
  EXPECT_EQ(stored_steps(), 3u);
  orchestrator_->AbortAll();
  ASSERT_TRUE(bg->done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(bg->status.code(), absl::StatusCode::kAborted) << bg->status;
}

// Results no path can carry (issue 31, item 7): an agent whose ranks all
// report 1 ps per 4 KiB all_reduce (4e6 GB/s) fails the sweep with the
// reason; the same agent at 1 ms per step passes.
TEST_F(SweepBoundsTest, AFigureBeyondThePhysicalLimitFailsTheSweep) {
  auto a = AddAgent("node-a", 2);
  a->SetRankSeconds(1e-12);
  absl::Status status = Run(ThreeSteps());
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << status;
  EXPECT_THAT(status.message(), HasSubstr("step 0 (all_reduce 1K): busbw "));
  EXPECT_THAT(status.message(),
              HasSubstr(" GB/s is beyond the physical limit of the pcie_shm "
                        "path (2000 GB/s, physical_limits.pcie_shm): "
                        "rejected; a worker or agent reports false figures"));
  auto sweeps = history_->ListSweeps(1);
  ASSERT_TRUE(sweeps.ok() && sweeps->size() == 1);
  EXPECT_EQ((*sweeps)[0].status, "failed");
}

// A GPU model's own ceiling (physical_limits.by_gpu_model): two NVLinked
// H200 ranks reporting 1,000 GB/s stay within the plain 2,000 but not within
// the H200's 480; 4 GB/s passes.
TEST_F(SweepBoundsTest, AGpuModelsOwnCeilingApplies) {
  core::CoordinatorConfig config;
  core::PathLimits h200;
  h200.nvlink_gbps = 480;
  config.physical_limits.by_gpu_model["NVIDIA H200"] = h200;
  orchestrator_ = std::make_unique<coordinator::SweepOrchestrator>(
      config, history_.get(), metrics_.get(), &agents_, &clock_);
  orchestrator_->SetAdvertisedAddress("coordinator:1");
  v1::AgentInfo info = CpuAgent("node-a", 2);
  for (int i = 0; i < 2; ++i) {
    v1::WorkerInfo* w = info.mutable_workers(i);
    w->set_gpu(i);
    w->set_gpu_model("NVIDIA H200");
    w->add_nvlink_peers(1 - i);
  }
  auto a = AddAgent(info);
  a->SetRankSeconds(1.024e-9);  // 1 KiB in 1 ns: 1,000 GB/s
  absl::Status status = Run(ThreeSteps());
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << status;
  EXPECT_THAT(status.message(),
              HasSubstr("beyond the physical limit of the nvlink path (480 "
                        "GB/s, physical_limits.by_gpu_model[NVIDIA "
                        "H200].nvlink)"));
  a->SetRankSeconds(1e-6);
  EXPECT_TRUE(Run(ThreeSteps()).ok());
}

TEST_F(SweepBoundsTest, PlausibleFiguresPassTheLimit) {
  auto a = AddAgent("node-a", 2);
  a->SetRankSeconds(1e-6);  // 4 KiB in 1 us: 4 GB/s
  EXPECT_TRUE(Run(ThreeSteps()).ok());
}

// One rank's bytes cross no link (a broadcast or send to itself is a copy
// at memory speed, beyond any link's): not checked.
TEST_F(SweepBoundsTest, ASingleRanksFiguresAreNotHeldToALink) {
  auto a = AddAgent("node-a", 1);
  a->SetRankSeconds(1e-12);
  EXPECT_TRUE(Run(ThreeSteps()).ok());
}

TEST_F(SweepBoundsTest, ANodeListIsCheckedBeforeAnythingRuns) {
  auto a = AddAgent("node-a", 2);
  v1::SweepRequest request = ThreeSteps();
  request.add_nodes("node-a\nI 00:00:00.000 forged");
  absl::Status status = Run(request);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("nodes[0]: 'node-a\\nI 00:00"));
  request = ThreeSteps();
  request.add_nodes("node-a");
  request.add_nodes("node-a");
  status = Run(request);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("nodes[1]: node node-a is listed "
                                          "twice"));
  EXPECT_EQ(a->describe_calls(), 0);
  EXPECT_TRUE(history_->ListSweeps(1)->empty());
}

TEST_F(SweepBoundsTest, AThreeHundredThousandOpSpecIsNeverStored) {
  AddAgent("node-a", 2);
  v1::SweepRequest request = ThreeSteps();
  for (int i = 0; i < 300000; ++i)
    request.mutable_spec()->add_ops("all_reduce");
  absl::Status status = Run(request);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("ops: 300001 entries"));
  EXPECT_TRUE(history_->ListSweeps(1)->empty());
}

TEST_F(SweepBoundsTest, ADescribeAnswerWithMoreWorkersThanRegisteredIsRefused) {
  v1::AgentInfo registered;
  registered.set_node_name("node-a");
  registered.set_address("fake:node-a");
  registered.set_backend("gloo");
  for (int i = 0; i < 2; ++i) {
    v1::WorkerInfo* w = registered.add_workers();
    w->set_local_index(i);
    w->set_ready(true);
    w->set_gpu(-1);
  }
  ASSERT_TRUE(orchestrator_->membership().Register(registered).ok());
  v1::AgentInfo rogue = registered;
  for (int i = 2; i < 500; ++i) {
    v1::WorkerInfo* w = rogue.add_workers();
    w->set_local_index(i);
    w->set_ready(true);
  }
  agents_.Add(rogue);
  absl::Status status = Run(ThreeSteps());
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(status.message(),
              HasSubstr("node node-a (fake:node-a) describes itself out of "
                        "bounds: workers: 500 listed; allowed: up to 2"));
  EXPECT_TRUE(history_->ListSweeps(1)->empty());
}

}  // namespace
}  // namespace fabricpulse::testing
