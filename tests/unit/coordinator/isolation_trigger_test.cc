// When the coordinator isolates by itself (issue 15, item 2): the rule.
#include "daemon/coordinator/isolation_trigger.h"

#include "daemon/coordinator/busy_gpus.h"
#include "gtest/gtest.h"

namespace fabricpulse::coordinator {
namespace {
namespace FP_UNITY_ID {

const core::IsolateOn kBoth{.regression = true, .failure = true};

SweepEnd End() {
  SweepEnd end;
  end.sweep_id = "s1";
  end.plan = "nightly";
  end.trigger = "schedule:nightly";
  end.nodes = {"node-0", "node-1", "node-2", "node-3"};
  end.largest = IsolationStep{"all_reduce", 1 << 20, false};
  return end;
}

TEST(IsolationTriggerTest, FiresOnARegressionWithTheRegressedStep) {
  SweepEnd end = End();
  end.regressed = IsolationStep{"all_gather", 4096, true};
  auto start = IsolationStartFor(end, {.regression = true});
  ASSERT_TRUE(start.has_value());
  EXPECT_EQ(start->cause, "regression");
  EXPECT_EQ(start->step.op, "all_gather");
  EXPECT_EQ(start->step.bytes, 4096u);
  EXPECT_TRUE(start->step.in_place);
  // A failed sweep with a regressed step before the fault, too.
  end.status = absl::DeadlineExceededError("timed out");
  start = IsolationStartFor(end, {.regression = true});
  ASSERT_TRUE(start.has_value());
  EXPECT_EQ(start->cause, "regression");
}

TEST(IsolationTriggerTest, FiresOnAFailureWithTheFailedStepElseTheLargest) {
  SweepEnd end = End();
  end.status = absl::DeadlineExceededError("rank 2 timed out");
  end.failed = IsolationStep{"broadcast", 8192, false};
  auto start = IsolationStartFor(end, {.failure = true});
  ASSERT_TRUE(start.has_value());
  EXPECT_EQ(start->cause, "failure");
  EXPECT_EQ(start->step.op, "broadcast");
  end.failed.reset();
  start = IsolationStartFor(end, {.failure = true});
  ASSERT_TRUE(start.has_value());
  EXPECT_EQ(start->step.op, "all_reduce");
  EXPECT_EQ(start->step.bytes, 1u << 20);
  // Failure wins over a regression.
  end.regressed = IsolationStep{"all_gather", 4096, false};
  EXPECT_EQ(IsolationStartFor(end, kBoth)->cause, "failure");
}

TEST(IsolationTriggerTest, SilentOnACleanSweep) {
  EXPECT_FALSE(IsolationStartFor(End(), kBoth).has_value());
}

TEST(IsolationTriggerTest, SilentForIsolationSweepsThemselves) {
  SweepEnd end = End();
  end.trigger = "isolation:s0";
  end.plan = "adhoc";
  end.regressed = IsolationStep{"all_reduce", 1024, false};
  end.status = absl::UnavailableError("agent lost");
  EXPECT_FALSE(IsolationStartFor(end, kBoth).has_value());
}

TEST(IsolationTriggerTest, SilentWhenThePlanDoesNotAsk) {
  SweepEnd end = End();
  end.regressed = IsolationStep{"all_reduce", 1024, false};
  EXPECT_FALSE(IsolationStartFor(end, {}).has_value());
  EXPECT_FALSE(IsolationStartFor(end, {.failure = true}).has_value());
  end.regressed.reset();
  end.status = absl::UnavailableError("agent lost");
  EXPECT_FALSE(IsolationStartFor(end, {.regression = true}).has_value());
}

TEST(IsolationTriggerTest, SilentOnOneNodeAnAbortACancelOrAYield) {
  SweepEnd end = End();
  end.status = absl::UnavailableError("agent lost");
  end.nodes = {"node-0"};
  EXPECT_FALSE(IsolationStartFor(end, kBoth).has_value());
  end = End();
  end.regressed = IsolationStep{"all_reduce", 1024, false};
  for (const absl::Status& status :
       {absl::AbortedError("sweep aborted by request"),
        absl::CancelledError("the client went away"),
        PreemptedError(BusyGpu{"node-1", 0, 1})}) {
    end.status = status;
    EXPECT_FALSE(IsolationStartFor(end, kBoth).has_value()) << status;
  }
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::coordinator
