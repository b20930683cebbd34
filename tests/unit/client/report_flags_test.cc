// `fabricpulse report`'s flags, checked before any coordinator is asked.
#include <string>

#include "absl/strings/match.h"
#include "client/commands/report_command.h"
#include "client/report/report_loader.h"
#include "gtest/gtest.h"

namespace fabricpulse::client {
namespace {
namespace FP_UNITY_ID {

ReportFlags Flags() {
  ReportFlags f;
  f.output_file = ::testing::TempDir() + "/report.html";
  return f;
}

TEST(ReportFlagsTest, OutputFileIsRequiredAndItsFolderMustBeWritable) {
  ReportFlags f = Flags();
  EXPECT_TRUE(CheckReportFlags(f).ok());
  f.output_file = "";
  absl::Status s = CheckReportFlags(f);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(s.message(), "-o: ")) << s;
  f.output_file = "/nonexistent-folder-xyz/report.html";
  s = CheckReportFlags(f);
  EXPECT_TRUE(absl::StrContains(s.message(), "/nonexistent-folder-xyz")) << s;
  f.output_file = "report.html";  // the working folder
  EXPECT_TRUE(CheckReportFlags(f).ok());
}

TEST(ReportFlagsTest, OneSelectionAtATime) {
  ReportFlags f = Flags();
  f.sweep_id = "x";
  f.plan = "p";
  EXPECT_TRUE(absl::StrContains(CheckReportFlags(f).message(),
                                "one of --sweep, --last and --plan"));
  f = Flags();
  f.last = 21;
  EXPECT_TRUE(absl::StrContains(CheckReportFlags(f).message(),
                                "--last: 21 is out of range; allowed: 1 to "
                                "20"));
  f = Flags();
  f.since = "7d";
  EXPECT_TRUE(
      absl::StrContains(CheckReportFlags(f).message(), "--since: only with"));
  f.plan = "nightly";
  EXPECT_TRUE(CheckReportFlags(f).ok());
  f.since = "soon";
  EXPECT_TRUE(
      absl::StrContains(CheckReportFlags(f).message(), "--since: 'soon'"));
}

TEST(ReportFlagsTest, SinceTakesDaysHoursAndSecondsWithinRange) {
  EXPECT_EQ(*report::ParseSince("7d"), absl::Hours(24 * 7));
  EXPECT_EQ(*report::ParseSince("1.5d"), absl::Hours(36));
  EXPECT_EQ(*report::ParseSince("36h"), absl::Hours(36));
  EXPECT_EQ(*report::ParseSince("1h30m"), absl::Minutes(90));
  EXPECT_EQ(*report::ParseSince("3600"), absl::Hours(1));
  EXPECT_EQ(*report::ParseSince("366d"), absl::Hours(24 * 366));
  for (const char* bad : {"0", "0d", "-1d", "367d", "d", "7x", "", "nan", "inf",
                          "-5m", "9000h"}) {
    absl::StatusOr<absl::Duration> d = report::ParseSince(bad);
    EXPECT_FALSE(d.ok()) << bad;
    EXPECT_TRUE(absl::StrContains(d.status().message(),
                                  "allowed: more than 0 up to 366d"))
        << bad;
  }
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::client
