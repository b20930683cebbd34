// --max-bytes auto through the orchestrator over fake agents: the planner
// resolves it from the members' descriptions, every agent gets the resolved
// spec, the results and the history show the sizes picked.
#include "daemon/common/spec_convert.h"
#include "daemon/coordinator/history_convert.h"
#include "daemon/core/auto_max_bytes.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/coordinator/orchestrator_fixture.h"

namespace fabricpulse::testing {
namespace {

using ::testing::HasSubstr;

constexpr uint64_t kMiB = 1ull << 20;

class MaxBytesAutoPlanTest : public OrchestratorTest {
 protected:
  // Node `name`: `ranks` CPU ranks on machine `boot_id`, each reporting
  // `free` bytes of host memory (none when 0).
  std::shared_ptr<fakes::FakeAgentClient> AddAgent(const std::string& name,
                                                   int ranks, uint64_t free,
                                                   const std::string& boot_id) {
    v1::AgentInfo info = CpuAgent(name, ranks);
    info.set_boot_id(boot_id);
    for (v1::WorkerInfo& w : *info.mutable_workers()) {
      if (free > 0) w.set_free_memory_bytes(free);
    }
    return OrchestratorTest::AddAgent(info);
  }

  static v1::SweepRequest AutoRequest(double fraction) {
    v1::SweepRequest request;
    request.mutable_spec()->add_ops("all_reduce");
    request.mutable_spec()->add_ops("all_gather");
    request.mutable_spec()->set_min_bytes(64 * 1024);
    request.mutable_spec()->set_factor(4);
    request.mutable_spec()->set_placement("out_of_place");
    request.mutable_spec()->set_iters(1);
    request.mutable_spec()->set_warmup_iters(0);
    request.mutable_spec()->set_timeout_seconds(1);
    request.mutable_spec()->mutable_max_bytes_auto()->set_fraction(fraction);
    return request;
  }

  absl::Status Run(const v1::SweepRequest& request,
                   std::vector<v1::SweepEvent>& events) {
    return orchestrator_->Execute(request, "cli",
                                  [&events](const v1::SweepEvent& e) {
                                    events.push_back(e);
                                    return true;
                                  });
  }
};

uint64_t Largest(const std::vector<v1::SweepEvent>& events,
                 const std::string& op) {
  uint64_t largest = 0;
  for (const v1::SweepEvent& e : events) {
    if (e.has_result() && e.result().step().op() == op) {
      largest = std::max(largest, e.result().step().bytes());
    }
  }
  return largest;
}

// 2 agents x 2 ranks on one machine: each rank's share is a quarter of
// 256 MiB = 64 MiB; 0.5 of it is a 32 MiB budget. all_reduce holds 2
// copies (16 MiB), all_gather at 4 ranks 1.25 (16 MiB: 32 MiB needs 40).
TEST_F(MaxBytesAutoPlanTest, ResolvesPerOpAndEveryAgentGetsTheSameSpec) {
  auto a = AddAgent("node-a", 2, 256 * kMiB, "boot-1");
  auto b = AddAgent("node-b", 2, 256 * kMiB, "boot-1");
  std::vector<v1::SweepEvent> events;
  absl::Status status = Run(AutoRequest(0.5), events);
  ASSERT_TRUE(status.ok()) << status;
  ASSERT_FALSE(events.empty());
  const v1::SweepSpec& spec = events.front().started().spec();
  ASSERT_TRUE(spec.has_max_bytes_auto());
  const v1::MaxBytesAuto& resolved = spec.max_bytes_auto();
  EXPECT_EQ(resolved.fraction(), 0.5);
  EXPECT_EQ(resolved.free_bytes(), 64 * kMiB);
  EXPECT_EQ(resolved.budget_bytes(), 32 * kMiB);
  EXPECT_EQ(resolved.least_free(),
            "rank 0 (node node-a, host memory shared by 4 ranks)");
  ASSERT_EQ(resolved.ops_size(), 2);
  EXPECT_EQ(resolved.ops(0).op(), "all_reduce");
  EXPECT_EQ(resolved.ops(0).max_bytes(), 16 * kMiB);
  EXPECT_EQ(resolved.ops(1).op(), "all_gather");
  EXPECT_EQ(resolved.ops(1).max_bytes(), 16 * kMiB);
  EXPECT_EQ(spec.max_bytes(), 16 * kMiB);
  EXPECT_EQ(Largest(events, "all_reduce"), 16 * kMiB);
  EXPECT_EQ(Largest(events, "all_gather"), 16 * kMiB);

  // Both agents got the resolved spec.
  ASSERT_EQ(a->sweeps().size(), 1u);
  ASSERT_EQ(b->sweeps().size(), 1u);
  EXPECT_EQ(a->sweeps()[0].spec().SerializeAsString(),
            spec.SerializeAsString());
  EXPECT_EQ(b->sweeps()[0].spec().SerializeAsString(),
            spec.SerializeAsString());

  // The history keeps what was resolved; diagnosis re-expands it alike.
  auto stored = history_->GetSweep(events.back().finished().sweep_id());
  ASSERT_TRUE(stored.ok()) << stored.status();
  const v1::SweepSpec kept = coordinator::SpecFromJson(stored->sweep.spec_json);
  EXPECT_EQ(kept.max_bytes_auto().ops(1).max_bytes(), 16 * kMiB);
  auto steps = core::Expand(common::SpecFromProto(kept), 4);
  ASSERT_TRUE(steps.ok()) << steps.status();
  EXPECT_EQ(steps->size(), stored->steps.size());
}

TEST_F(MaxBytesAutoPlanTest, MachinesApartEachKeepTheirMemory) {
  AddAgent("node-a", 1, 256 * kMiB, "boot-1");
  AddAgent("node-b", 1, 128 * kMiB, "boot-2");
  std::vector<v1::SweepEvent> events;
  ASSERT_TRUE(Run(AutoRequest(0.5), events).ok());
  const v1::MaxBytesAuto& resolved =
      events.front().started().spec().max_bytes_auto();
  EXPECT_EQ(resolved.free_bytes(), 128 * kMiB);
  EXPECT_EQ(resolved.least_free(), "rank 1 (node node-b, host memory)");
  // 64 MiB budget: all_reduce 32 MiB; all_gather at 2 ranks 32 MiB (48).
  EXPECT_EQ(resolved.ops(0).max_bytes(), 32 * kMiB);
  EXPECT_EQ(resolved.ops(1).max_bytes(), 32 * kMiB);
}

TEST_F(MaxBytesAutoPlanTest, AClientsResolutionIsReplaced) {
  AddAgent("node-a", 2, 256 * kMiB, "boot-1");
  v1::SweepRequest request = AutoRequest(0.5);
  v1::OpMaxBytes* forged =
      request.mutable_spec()->mutable_max_bytes_auto()->add_ops();
  forged->set_op("all_reduce");
  forged->set_max_bytes(1ull << 40);
  request.mutable_spec()->mutable_max_bytes_auto()->set_least_free("forged");
  std::vector<v1::SweepEvent> events;
  absl::Status status = Run(request, events);
  ASSERT_TRUE(status.ok()) << status;
  const v1::MaxBytesAuto& resolved =
      events.front().started().spec().max_bytes_auto();
  EXPECT_EQ(resolved.ops_size(), 2);
  EXPECT_EQ(resolved.ops(0).max_bytes(), 32 * kMiB);
  EXPECT_NE(resolved.least_free(), "forged");
}

TEST_F(MaxBytesAutoPlanTest, NoFigureOrNoFitIsRefusedBeforeAnyAgentRuns) {
  auto a = AddAgent("node-a", 1, 0, "boot-1");
  std::vector<v1::SweepEvent> events;
  absl::Status unknown = Run(AutoRequest(0.5), events);
  EXPECT_EQ(unknown.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(unknown.message()),
              HasSubstr("rank 0 (node node-a, host memory)"));
  EXPECT_TRUE(a->sweeps().empty());
}

TEST_F(MaxBytesAutoPlanTest, NothingFitsNamesTheRankAndItsMemory) {
  auto a = AddAgent("node-a", 2, 16 * kMiB, "boot-1");
  v1::SweepRequest request = AutoRequest(0.5);
  request.mutable_spec()->set_min_bytes(64 * kMiB);
  std::vector<v1::SweepEvent> events;
  absl::Status status = Run(request, events);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("max_bytes: auto:0.5 leaves no size for all_reduce"));
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("8 MiB free on rank 0 (node node-a, host memory "
                        "shared by 2 ranks)"));
  EXPECT_TRUE(a->sweeps().empty());
}

}  // namespace
}  // namespace fabricpulse::testing
