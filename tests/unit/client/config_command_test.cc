// `fabricpulse config check FILE` against real files: the shipped config,
// a broken one and a missing one.
#include "client/commands/config_command.h"

#include <stdlib.h>

#include <fstream>
#include <sstream>
#include <string>

#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "client/commands/exit_codes.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::client {
namespace {
namespace FP_UNITY_ID {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

std::string WriteFile(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

// 2026-12-01 17:10 UTC.
absl::Time Now() {
  return absl::FromCivil(absl::CivilMinute(2026, 12, 1, 17, 10),
                         absl::UTCTimeZone());
}

TEST(ConfigCheckTest, TheShippedConfigIsValidAndSummarized) {
  std::ostringstream out;
  ConfigCheckFlags flags{std::string(FABRICPULSE_SOURCE_DIR) +
                         "/deploy/config/coordinator.yaml"};
  ASSERT_EQ(RunConfigCheck(flags, Now(), out), kExitOk);
  const std::string text = out.str();
  EXPECT_THAT(text, HasSubstr(": valid, 2 plan(s), 2 schedule(s)\n"));
  EXPECT_THAT(text, HasSubstr("plan nightly-full: all_reduce, all_gather, "
                              "reduce_scatter, alltoall, broadcast, sendrecv; "
                              "8 to 1G (factor 2);"));
  EXPECT_THAT(text, HasSubstr("iters auto (1 % tolerance, 4 to 8"));
  // The shipped plans never isolate by themselves; the nightly one is a
  // campaign of pairs across racks.
  EXPECT_THAT(text, HasSubstr("; isolate on off; one sweep\n"));
  EXPECT_THAT(text, HasSubstr("; isolate on off; campaign pairs by rack, "
                              "window 2h, 16 groups or 50 % of the nodes at "
                              "once, busy retry 5m, warn 0.9, critical 0.7, "
                              "valid 24h\n"));
  EXPECT_THAT(text, Not(HasSubstr("isolate on regression")));
  EXPECT_THAT(text, HasSubstr("schedule nightly: plan nightly-full, cron \"0 2 "
                              "* * *\" (UTC); next: 2026-12-02 02:00 UTC, "
                              "2026-12-03 02:00 UTC\n"));
  EXPECT_THAT(text, HasSubstr("schedule hourly: plan hourly-allreduce, cron "
                              "\"30 * * * *\" (UTC); next: 2026-12-01 17:30 "
                              "UTC, 2026-12-01 18:30 UTC\n"));
}

TEST(ConfigCheckTest, AnUnknownPlanIsRefusedNamingTheLineAndNothingIsPrinted) {
  const std::string path = WriteFile("bad-config.yaml", R"(plans:
  quick:
    ops: [all_reduce]
schedules:
  - name: nightly
    plan: quik
    cron: "0 2 * * *"
)");
  std::ostringstream out;
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(RunConfigCheck({path}, Now(), out), kExitBadInput);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(err, HasSubstr("config line 6: schedules[0].plan: unknown plan "
                             "'quik'"));
  EXPECT_THAT(out.str(), IsEmpty());
}

TEST(ConfigCheckTest, AMissingFileIsBadInput) {
  std::ostringstream out;
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(RunConfigCheck({::testing::TempDir() + "no-such.yaml"}, Now(), out),
            kExitBadInput);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              HasSubstr("cannot read"));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::client
