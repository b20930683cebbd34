// A sweep's outcome: every name parses to its value and back; a name this
// build does not know is kUnknown, never a guess.
#include "daemon/core/sweep_outcome.h"

#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

TEST(SweepOutcomeTest, NamesRoundTrip) {
  for (SweepOutcome o :
       {SweepOutcome::kRunning, SweepOutcome::kSucceeded, SweepOutcome::kFailed,
        SweepOutcome::kAborted, SweepOutcome::kInterrupted,
        SweepOutcome::kPreempted}) {
    EXPECT_EQ(ParseSweepOutcome(SweepOutcomeName(o)), o) << SweepOutcomeName(o);
  }
  EXPECT_EQ(ParseSweepOutcome("preempted"), SweepOutcome::kPreempted);
  EXPECT_EQ(ParseSweepOutcome("Preempted"), SweepOutcome::kUnknown);
  EXPECT_EQ(ParseSweepOutcome(""), SweepOutcome::kUnknown);
  EXPECT_EQ(SweepOutcomeName(SweepOutcome::kUnknown), "unknown");
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
