// The orchestrator and busy GPUs (issue 14, item 5), over fake agents: a
// sweep refused on a member GPU that its agent describes as busy unless it
// allows busy GPUs; a sweep ended "preempted" by an agent's `preempted`
// event, as a request and not a fault, even when a peer's error caused by
// the yield arrives first.
#include "daemon/coordinator/busy_gpus.h"
#include "daemon/coordinator/sweep_orchestrator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/coordinator/metrics_test_util.h"
#include "tests/unit/coordinator/orchestrator_fixture.h"

namespace fabricpulse::testing {
namespace {
namespace FP_UNITY_ID {

using ::fabricpulse::testing::Serialize;
using ::testing::Each;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using SweepMode = fakes::FakeAgentClient::SweepMode;

class SweepBusyGpuTest : public OrchestratorTest {
 protected:
  // The script of an agent whose rank `rank` got its communicator and then
  // saw a foreign process on GPU `gpu`.
  static std::vector<v1::RankEvent> YieldingAgent(int rank, int gpu) {
    v1::RankEvent ready;
    ready.mutable_comm_ready()->set_rank(rank);
    v1::RankEvent preempted;
    preempted.mutable_preempted()->set_gpu(gpu);
    preempted.mutable_preempted()->set_other_processes(1);
    return {ready, preempted};
  }
  std::string Sweeps(const std::string& outcome) {
    return ValueOf(Serialize(registry_),
                   absl::StrCat("fabricpulse_sweeps_total{outcome=\"", outcome,
                                "\",plan=\"adhoc\",trigger=\"cli\"}"));
  }
  // Checks what a preempted sweep leaves: its events, history and series.
  void ExpectPreempted(const Background& bg, const std::string& node) {
    EXPECT_TRUE(coordinator::IsPreempted(bg.status)) << bg.status;
    ASSERT_FALSE(bg.events.empty());
    const v1::SweepFinished& finished = bg.events.back().finished();
    EXPECT_EQ(finished.status(), "preempted");
    EXPECT_THAT(finished.error(), HasSubstr(absl::StrCat("node ", node,
                                                         " GPU 0: a compute "
                                                         "process")));
    auto stored = history_->GetSweep(finished.sweep_id());
    ASSERT_TRUE(stored.ok()) << stored.status();
    EXPECT_EQ(stored->sweep.status, coordinator::kSweepPreempted);
    EXPECT_EQ(stored->sweep.diagnosis, "");  // not diagnosed
    EXPECT_EQ(Sweeps("preempted"), "1");
    EXPECT_EQ(Sweeps("failed"), "0");
    const std::string text = Serialize(registry_);
    EXPECT_EQ(text.find("fabricpulse_hangs_total{"), std::string::npos);
    EXPECT_EQ(text.find("fabricpulse_last_sweep_success{"), std::string::npos);
  }
};

TEST_F(SweepBusyGpuTest, RefusesASweepOnABusyGpuUnlessItAllowsBusyGpus) {
  auto a = AddAgent("node-a", 2);
  a->SetGpu(0, 0, 0);
  a->SetGpu(1, 1, 2);
  std::vector<v1::SweepEvent> events;
  auto sink = [&](const v1::SweepEvent& e) {
    events.push_back(e);
    return true;
  };
  absl::Status refused = orchestrator_->Execute(ThreeSteps(), "cli", sink);
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted) << refused;
  EXPECT_TRUE(coordinator::IsGpuBusy(refused));
  EXPECT_THAT(refused.message(),
              HasSubstr("GPUs busy: node node-a GPU 1 (2 other processes)"));
  EXPECT_THAT(events, IsEmpty());
  EXPECT_THAT(a->sweeps(), IsEmpty());                       // reached no agent
  EXPECT_THAT(history_->ListSweeps(10).value(), IsEmpty());  // not recorded

  v1::SweepRequest request = ThreeSteps();
  request.set_allow_busy(true);
  absl::Status ran = orchestrator_->Execute(request, "cli", sink);
  ASSERT_TRUE(ran.ok()) << ran;
  ASSERT_EQ(a->sweeps().size(), 1u);
  EXPECT_TRUE(a->sweeps()[0].allow_busy());  // the agent will not yield
  EXPECT_EQ(events.back().finished().status(), "succeeded");

  a->SetGpu(1, 1, 0);  // the other process ended
  ASSERT_TRUE(orchestrator_->Execute(ThreeSteps(), "cli", sink).ok());
  EXPECT_FALSE(a->sweeps()[1].allow_busy());
}

TEST_F(SweepBusyGpuTest, APreemptedEventEndsTheSweepAsRequestedNotAsAFault) {
  auto a = AddAgent("node-a", 1);
  auto b = AddAgent("node-b", 1);
  b->SetSweepMode(SweepMode::kHang);
  a->SetScript(YieldingAgent(0, 0));
  auto bg = Start(ThreeSteps());
  ASSERT_TRUE(AdvanceUntilDone(*bg));
  ExpectPreempted(*bg, "node-a");
  // Every member is told to abort, as on a request (no restart counted).
  EXPECT_THAT(a->abort_causes(), ElementsAre(common::AbortCause::kRequest));
  EXPECT_THAT(b->abort_causes(), ElementsAre(common::AbortCause::kRequest));
  EXPECT_EQ(a->records_calls() + b->records_calls(), 0);
}

TEST_F(SweepBusyGpuTest, APeersErrorFromTheYieldDoesNotMakeItAFailure) {
  // node-a's stream ends with the error its ranks saw when node-b's went,
  // and the runner takes it first; node-b's `preempted` is the root cause.
  auto a = AddAgent("node-a", 1);
  auto b = AddAgent("node-b", 1);
  a->SetSweepMode(SweepMode::kFail,
                  absl::UnavailableError("rank 0: connection reset"));
  b->SetScript(YieldingAgent(1, 0));
  auto bg = Start(ThreeSteps());
  ASSERT_TRUE(AdvanceUntilDone(*bg));
  ExpectPreempted(*bg, "node-b");
  EXPECT_THAT(b->abort_causes(), Each(common::AbortCause::kFailure));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::testing
