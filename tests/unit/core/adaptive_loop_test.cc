// RunAdaptiveBatches with scripted batch times, a fake agreement (the other
// ranks' proposals) and a fake clock: which batches run and why it stops.
#include "daemon/core/adaptive_loop.h"

#include <algorithm>
#include <vector>

#include "gtest/gtest.h"
#include "tests/fakes/fake_clock.h"
#include "tests/unit/core/adaptive_settings.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

// The scripted times' timer tick: finer than any spread they script.
constexpr double kTick = 1e-12;

// A rank whose ops take `sample(i)` seconds (i: the op's index in the
// step); fake time moves by that much per op.
struct ScriptedRank {
  explicit ScriptedRank(std::function<double(int)> sample)
      : sample(std::move(sample)) {}

  TimedBatch Batch() {
    return [this](int n, std::vector<double>* seconds) {
      batches.push_back(n);
      seconds->clear();
      for (int i = 0; i < n; ++i) {
        const double s = sample(ops++);
        seconds->push_back(s);
        clock.Advance(absl::Seconds(s));
      }
      return absl::OkStatus();
    };
  }
  // The agreement: the maximum with what the other ranks propose.
  AgreeMaxFn Agree(std::vector<double> others = {0, 0, 0}) {
    return [this, others](const std::vector<double>& mine)
               -> absl::StatusOr<std::vector<double>> {
      proposals.push_back(mine);
      std::vector<double> out = mine;
      for (size_t i = 0; i < out.size() && i < others.size(); ++i) {
        out[i] = std::max(out[i], others[i]);
      }
      return out;
    };
  }

  std::function<double(int)> sample;
  fakes::FakeClock clock;
  int ops = 0;
  std::vector<int> batches;
  std::vector<std::vector<double>> proposals;
};

TEST(RunAdaptiveBatchesTest, SteadyTimesStopAtMin) {
  ScriptedRank rank([](int i) { return i % 2 == 0 ? 0.0100 : 0.0101; });
  absl::StatusOr<AdaptiveRun> run = RunAdaptiveBatches(
      AdaptiveSettings(), false, kTick, rank.Batch(), rank.Agree(), rank.clock);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->reason, StopReason::kConverged);
  EXPECT_EQ(run->iterations, 5);
  EXPECT_EQ(run->batches, 1);
  EXPECT_EQ(run->seconds.size(), 5u);
  ASSERT_EQ(rank.proposals.size(), 1u);
  EXPECT_NEAR(rank.proposals[0][1], 0.0502, 1e-9);   // elapsed
  EXPECT_NEAR(rank.proposals[0][2], 0.01004, 1e-9);  // per iteration
}

// Batches whose first op waits for its launch (1.15 ms); the others take
// `odd` and `even` seconds in turn. Records each batch's size.
TimedBatch SlowFirstOp(std::vector<int>* batches, double odd, double even) {
  return [=](int n, std::vector<double>* seconds) {
    batches->push_back(n);
    seconds->clear();
    for (int i = 0; i < n; ++i) {
      seconds->push_back(i == 0 ? 0.00115 : (i % 2 ? odd : even));
    }
    return absl::OkStatus();
  };
}

// Every rank proposes the same.
AgreeMaxFn Alone() {
  return [](const std::vector<double>& mine) {
    return absl::StatusOr<std::vector<double>>(mine);
  };
}

TEST(RunAdaptiveBatchesTest, ASlowFirstOpPerBatchDoesNotKeepItGoing) {
  // The others are steady within 0.2 %: the interval converges at
  // min_iters, and the slow op still counts in the times kept.
  std::vector<int> batches;
  fakes::FakeClock clock;
  absl::StatusOr<AdaptiveRun> run = RunAdaptiveBatches(
      AdaptiveSettings(), false, kTick, SlowFirstOp(&batches, 0.001, 0.001002),
      Alone(), clock);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->reason, StopReason::kConverged);
  EXPECT_EQ(batches, std::vector<int>{5});
  ASSERT_EQ(run->seconds.size(), 5u);
  EXPECT_DOUBLE_EQ(run->seconds[0], 0.00115);
}

TEST(RunAdaptiveBatchesTest, NoisyOpsAfterTheFirstStillKeepItGoing) {
  // The others alternate 1 and 1.2 ms: the interval is over their spread,
  // which is real, and it does not stop at min_iters.
  std::vector<int> batches;
  fakes::FakeClock clock;
  absl::StatusOr<AdaptiveRun> run =
      RunAdaptiveBatches(AdaptiveSettings(0.01, 5, 40), false, kTick,
                         SlowFirstOp(&batches, 0.001, 0.0012), Alone(), clock);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->reason, StopReason::kMaxIters);
  EXPECT_EQ(run->iterations, 40);
}

TEST(RunAdaptiveBatchesTest, NoisyTimesRunToMax) {
  // Alternating 1 and 3: the interval never gets within 1 %.
  ScriptedRank rank([](int i) { return i % 2 == 0 ? 0.001 : 0.003; });
  absl::StatusOr<AdaptiveRun> run =
      RunAdaptiveBatches(AdaptiveSettings(0.01, 5, 60), false, kTick,
                         rank.Batch(), rank.Agree(), rank.clock);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->reason, StopReason::kMaxIters);
  EXPECT_EQ(run->iterations, 60);
  // Doubling while far off, the last cut to max.
  EXPECT_EQ(rank.batches, (std::vector<int>{5, 5, 10, 20, 20}));
}

TEST(RunAdaptiveBatchesTest, TimeCapStopsIt) {
  ScriptedRank rank([](int i) { return i % 2 == 0 ? 0.1 : 0.3; });
  absl::StatusOr<AdaptiveRun> run = RunAdaptiveBatches(
      AdaptiveSettings(0.01, 5, 1000, absl::Milliseconds(3050)), false, kTick,
      rank.Batch(), rank.Agree(), rank.clock);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->reason, StopReason::kTimeCap);
  // 5 ops: 0.9 s (0.18 s each), so 5 more fit (doubling); then 2.0 s at
  // 0.2 s each leaves room for 5 of the 10 doubling asks; then 2.9 s at
  // 0.193 s each leaves no room for one more.
  EXPECT_EQ(rank.batches, (std::vector<int>{5, 5, 5}));
  EXPECT_EQ(run->iterations, 15);
}

TEST(RunAdaptiveBatchesTest, ANoisyPeerKeepsEveryRankGoing) {
  // This rank converged at once; another rank's interval is wide, so the
  // agreed maximum continues, and this rank runs what that rank runs.
  ScriptedRank rank([](int) { return 0.01; });
  absl::StatusOr<AdaptiveRun> run =
      RunAdaptiveBatches(AdaptiveSettings(0.01, 5, 30), false, kTick,
                         rank.Batch(), rank.Agree({0.5, 0, 0}), rank.clock);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->reason, StopReason::kMaxIters);
  EXPECT_EQ(run->iterations, 30);
  // Its own: converged (the tick's rounding alone, far below 1 %).
  EXPECT_LT(rank.proposals.front()[0], 1e-6);
}

TEST(RunAdaptiveBatchesTest, ASlowPeerStopsEveryRankAtTheCap) {
  ScriptedRank rank([](int i) { return i % 2 == 0 ? 0.001 : 0.003; });
  absl::StatusOr<AdaptiveRun> run = RunAdaptiveBatches(
      AdaptiveSettings(0.01, 5, 1000, absl::Seconds(2)), false, kTick,
      rank.Batch(), rank.Agree({0, 2.5, 0.5}), rank.clock);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->reason, StopReason::kTimeCap);
  EXPECT_EQ(run->iterations, 5);
}

TEST(RunAdaptiveBatchesTest, BatchMeansJudgeTheBatchMeans) {
  // Batches timed as a whole report their mean for every op. Ops of one
  // batch alternate 1 and 3 ms, but every batch of 4 averages 2 ms: the
  // per-op spread would never converge; the batch means do at two batches.
  ScriptedRank rank([](int) { return 0.002; });
  absl::StatusOr<AdaptiveRun> run =
      RunAdaptiveBatches(AdaptiveSettings(0.01, 4, 100), true, kTick,
                         rank.Batch(), rank.Agree(), rank.clock);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->reason, StopReason::kConverged);
  EXPECT_EQ(run->iterations, 8);
  EXPECT_EQ(rank.batches, (std::vector<int>{4, 4}));
}

TEST(RunAdaptiveBatchesTest, ErrorsEndItAtOnce) {
  ScriptedRank rank([](int) { return 0.01; });
  int agreements = 0;
  absl::StatusOr<AdaptiveRun> run = RunAdaptiveBatches(
      AdaptiveSettings(), false, kTick, rank.Batch(),
      [&](const std::vector<double>&) -> absl::StatusOr<std::vector<double>> {
        ++agreements;
        return absl::DeadlineExceededError("peer gone");
      },
      rank.clock);
  EXPECT_EQ(run.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(agreements, 1);
  auto failing = [](int, std::vector<double>*) {
    return absl::UnavailableError("lost");
  };
  run = RunAdaptiveBatches(AdaptiveSettings(), false, kTick, failing,
                           rank.Agree(), rank.clock);
  EXPECT_EQ(run.status().code(), absl::StatusCode::kUnavailable);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
