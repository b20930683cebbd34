#include "tests/scale/link_model.h"

#include <vector>

#include "daemon/common/spec_convert.h"
#include "daemon/core/op_traits.h"
#include "daemon/core/step_merge.h"
#include "daemon/core/straggler.h"
#include "gtest/gtest.h"

namespace fabricpulse::scale {
namespace {
namespace FP_UNITY_ID {

core::Step MakeStep(core::Op op, uint64_t bytes, int index = 0) {
  core::Step step;
  step.index = index;
  step.op = op;
  step.bytes = bytes;
  return step;
}

// Merges every rank's modeled timing the way the coordinator does.
core::MergedStep Merge(const LinkModel& model, const core::Step& step,
                       int nranks, int slow_rank = -1, double slow = 1) {
  std::vector<core::RankStepTiming> ranks;
  for (int r = 0; r < nranks; ++r) {
    ranks.push_back(common::TimingFromProto(
        RankTimingFor(model, step, nranks, r, r == slow_rank ? slow : 1)));
  }
  return core::MergeStep(step, ranks, nranks);
}

TEST(LinkModelTest, ValidatesFields) {
  EXPECT_TRUE(ValidateLinkModel(LinkModel{}).ok());
  LinkModel bad;
  bad.link_gbps = 0;
  EXPECT_EQ(ValidateLinkModel(bad).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(ValidateLinkModel(bad).message().find("link_gbps"),
            std::string::npos);
  bad = LinkModel{};
  bad.latency_us = -1;
  EXPECT_NE(ValidateLinkModel(bad).message().find("latency_us"),
            std::string::npos);
  bad = LinkModel{};
  bad.jitter = 1;
  EXPECT_NE(ValidateLinkModel(bad).message().find("jitter"), std::string::npos);
}

TEST(LinkModelTest, LatencyHopsFollowTheRing) {
  EXPECT_EQ(LatencyHops(core::Op::kAllReduce, 8), 14);
  EXPECT_EQ(LatencyHops(core::Op::kAllGather, 8), 7);
  EXPECT_EQ(LatencyHops(core::Op::kBroadcast, 8), 7);
  EXPECT_EQ(LatencyHops(core::Op::kSendRecv, 8), 1);
  EXPECT_EQ(LatencyHops(core::Op::kAllReduce, 1), 2);
}

TEST(LinkModelTest, StepSecondsIsLatencyPlusWireTime) {
  LinkModel model;
  model.link_gbps = 80;  // 10 GB/s
  model.latency_us = 10;
  const core::Step step = MakeStep(core::Op::kAllReduce, 1'000'000'000);
  // 2 x 3 hops x 10 us + 1e9 x 2 x 3/4 / 1e10.
  EXPECT_NEAR(StepSeconds(model, step, 4), 60e-6 + 0.15, 1e-12);
}

TEST(LinkModelTest, LargeStepsReachTheLinkBandwidthAsBusbw) {
  LinkModel model;
  model.link_gbps = 100;
  model.jitter = 0;
  for (core::Op op : {core::Op::kAllReduce, core::Op::kAllGather,
                      core::Op::kBroadcast, core::Op::kAllToAll}) {
    const core::MergedStep merged = Merge(model, MakeStep(op, 1ull << 34), 64);
    EXPECT_NEAR(merged.busbw / LinkBytesPerSecond(model), 1.0, 0.01)
        << core::OpName(op);
  }
}

TEST(LinkModelTest, SmallStepsAreLatencyBound) {
  LinkModel model;
  model.jitter = 0;
  const core::MergedStep small =
      Merge(model, MakeStep(core::Op::kAllReduce, 1024), 64);
  EXPECT_LT(small.busbw, 0.01 * LinkBytesPerSecond(model));
  EXPECT_NEAR(small.time_seconds, 2 * 63 * 5e-6, 1e-6);
}

TEST(LinkModelTest, JitterIsDeterministicAndBounded) {
  LinkModel model;
  model.jitter = 0.02;
  const core::Step step = MakeStep(core::Op::kAllReduce, 1 << 20, 3);
  const double base = StepSeconds(model, step, 16);
  bool differs = false;
  for (int r = 0; r < 16; ++r) {
    const v1::RankTiming a = RankTimingFor(model, step, 16, r, 1);
    const v1::RankTiming b = RankTimingFor(model, step, 16, r, 1);
    EXPECT_EQ(a.mean_seconds(), b.mean_seconds());
    EXPECT_EQ(a.rank(), r);
    EXPECT_GE(a.mean_seconds(), base);
    EXPECT_LT(a.mean_seconds(), base * 1.02);
    EXPECT_LE(a.min_seconds(), a.mean_seconds());
    EXPECT_GE(a.max_seconds(), a.mean_seconds());
    EXPECT_EQ(a.p99_seconds(), a.max_seconds());
    EXPECT_EQ(a.wrong(), 0);
    differs =
        differs ||
        a.mean_seconds() != RankTimingFor(model, step, 16, 0, 1).mean_seconds();
  }
  EXPECT_TRUE(differs);
}

TEST(LinkModelTest, SlowRankIsTheSlowestInEveryStep) {
  LinkModel model;
  for (int index = 0; index < 20; ++index) {
    const core::MergedStep merged = Merge(
        model, MakeStep(core::Op::kAllReduce, 1024ull << index, index), 32,
        /*slow_rank=*/7, /*slow=*/1.5);
    EXPECT_EQ(merged.slowest_rank, 7) << "step " << index;
    // It arrives last; whether by the straggler's margin depends on the
    // step's length (>= 200 us late).
    EXPECT_EQ(merged.last_arrival_rank, 7) << "step " << index;
  }
}

TEST(LinkModelTest, HealthyRanksAreNeverLate) {
  LinkModel model;
  for (int index = 0; index < 20; ++index) {
    const core::MergedStep merged = Merge(
        model, MakeStep(core::Op::kAllReduce, 1024ull << index, index), 32);
    ASSERT_TRUE(merged.arrival_lateness_seconds.has_value());
    EXPECT_FALSE(core::LateRank(merged).has_value()) << "step " << index;
  }
}

TEST(LinkModelTest, CommInitGrowsWithRanks) {
  LinkModel model;
  EXPECT_NEAR(CommInitSeconds(model, 1), 1e-3, 1e-12);
  EXPECT_GT(CommInitSeconds(model, 1024), CommInitSeconds(model, 64));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::scale
