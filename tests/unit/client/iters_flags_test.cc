#include "client/commands/iters_flags.h"

#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace fabricpulse::client {
namespace {

std::string ErrorOf(const ItersFlags& flags) {
  core::SweepSpec spec;
  absl::Status status = ApplyItersFlags(flags, spec);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  return std::string(status.message());
}

TEST(ItersFlagsTest, FixedCount) {
  ItersFlags flags;
  flags.iters = "50";
  core::SweepSpec spec;
  ASSERT_TRUE(ApplyItersFlags(flags, spec).ok());
  EXPECT_EQ(spec.iters, 50);
  EXPECT_FALSE(spec.adaptive.enabled);
}

TEST(ItersFlagsTest, AutoWithDefaults) {
  ItersFlags flags;
  flags.iters = "auto";
  core::SweepSpec spec;
  ASSERT_TRUE(ApplyItersFlags(flags, spec).ok());
  EXPECT_TRUE(spec.adaptive.enabled);
  EXPECT_EQ(spec.adaptive, (core::AdaptiveIters{true}));
}

TEST(ItersFlagsTest, AutoWithEverySetting) {
  ItersFlags flags;
  flags.iters = "auto";
  flags.tolerance = "0.005";
  flags.min_iters = "3";
  flags.max_iters = "40";
  flags.step_time_cap = "500ms";
  core::SweepSpec spec;
  ASSERT_TRUE(ApplyItersFlags(flags, spec).ok());
  EXPECT_EQ(spec.adaptive.tolerance, 0.005);
  EXPECT_EQ(spec.adaptive.min_iters, 3);
  EXPECT_EQ(spec.adaptive.max_iters, 40);
  EXPECT_EQ(spec.adaptive.step_time_cap, absl::Milliseconds(500));
  flags.step_time_cap = "1.5";  // plain seconds
  ASSERT_TRUE(ApplyItersFlags(flags, spec).ok());
  EXPECT_EQ(spec.adaptive.step_time_cap, absl::Milliseconds(1500));
}

TEST(ItersFlagsTest, BadValuesNameTheFlag) {
  ItersFlags flags;
  flags.iters = "lots";
  EXPECT_EQ(ErrorOf(flags), "--iters: 'lots' is not a whole number or auto");
  flags.iters = "auto";
  flags.tolerance = "tight";
  EXPECT_EQ(ErrorOf(flags),
            "--tolerance: 'tight' is not a number such as 0.01");
  flags.tolerance = "";
  flags.min_iters = "2.5";
  EXPECT_EQ(ErrorOf(flags), "--min-iters: '2.5' is not a whole number");
  flags.min_iters = "";
  flags.max_iters = "x";
  EXPECT_EQ(ErrorOf(flags), "--max-iters: 'x' is not a whole number");
  flags.max_iters = "";
  flags.step_time_cap = "soon";
  EXPECT_EQ(ErrorOf(flags),
            "--step-time-cap: 'soon' is not a duration; use e.g. 2s, 500ms, "
            "1m");
}

TEST(ItersFlagsTest, AdaptiveSettingsNeedAuto) {
  ItersFlags flags;
  flags.max_iters = "100";
  EXPECT_EQ(ErrorOf(flags),
            "--max-iters: only with --iters auto (adaptive iteration counts)");
}

}  // namespace
}  // namespace fabricpulse::client
