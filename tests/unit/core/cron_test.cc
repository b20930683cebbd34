#include "daemon/core/cron.h"

#include <string>
#include <vector>

#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

using ::testing::HasSubstr;
using ::testing::StartsWith;

absl::TimeZone Zone(const std::string& name) {
  absl::TimeZone tz;
  EXPECT_TRUE(absl::LoadTimeZone(name, &tz)) << name;
  return tz;
}

// A local wall-clock time in `zone` (first occurrence when repeated).
absl::Time Local(const std::string& zone, int y, int mo, int d, int h, int mi,
                 int s = 0) {
  return Zone(zone).At(absl::CivilSecond(y, mo, d, h, mi, s)).pre;
}

// "2024-03-10 03:00 -0400": local time with its UTC offset.
std::string Fmt(absl::Time t, const std::string& zone) {
  if (t == absl::InfiniteFuture()) return "never";
  return absl::FormatTime("%Y-%m-%d %H:%M:%S %z", t, Zone(zone));
}

CronSchedule MustParse(const std::string& expr,
                       const std::string& zone = "UTC") {
  absl::StatusOr<CronSchedule> schedule = CronSchedule::Parse(expr, zone);
  EXPECT_TRUE(schedule.ok()) << expr << ": " << schedule.status();
  return schedule.ok() ? *schedule : CronSchedule();
}

// The next `n` firings after `from`, formatted in the schedule's zone.
std::vector<std::string> Firings(const std::string& expr,
                                 const std::string& zone, absl::Time from,
                                 int n) {
  const CronSchedule schedule = MustParse(expr, zone);
  std::vector<std::string> out;
  absl::Time t = from;
  for (int i = 0; i < n; ++i) {
    t = schedule.Next(t);
    out.push_back(Fmt(t, zone));
    if (t == absl::InfiniteFuture()) break;
  }
  return out;
}

TEST(CronTest, EveryMinuteIsStrictlyAfter) {
  const CronSchedule every = MustParse("* * * * *");
  EXPECT_EQ(Fmt(every.Next(Local("UTC", 2024, 1, 1, 10, 0, 30)), "UTC"),
            "2024-01-01 10:01:00 +0000");
  EXPECT_EQ(Fmt(every.Next(Local("UTC", 2024, 1, 1, 10, 1)), "UTC"),
            "2024-01-01 10:02:00 +0000");
  EXPECT_EQ(Fmt(every.Next(Local("UTC", 2024, 12, 31, 23, 59)), "UTC"),
            "2025-01-01 00:00:00 +0000");
  EXPECT_EQ(every.Next(Local("UTC", 2024, 1, 1, 10, 0) + absl::Milliseconds(1)),
            Local("UTC", 2024, 1, 1, 10, 1));
}

TEST(CronTest, ListsAndSteps) {
  EXPECT_EQ(MustParse("0,15,30,45 * * * *"), MustParse("*/15 * * * *"));
  EXPECT_EQ(Firings("*/15 * * * *", "UTC", Local("UTC", 2024, 1, 1, 10, 16), 3),
            (std::vector<std::string>{"2024-01-01 10:30:00 +0000",
                                      "2024-01-01 10:45:00 +0000",
                                      "2024-01-01 11:00:00 +0000"}));
  EXPECT_EQ(
      Firings("*/25 1,3 * * *", "UTC", Local("UTC", 2024, 1, 1, 1, 50), 4),
      (std::vector<std::string>{
          "2024-01-01 03:00:00 +0000", "2024-01-01 03:25:00 +0000",
          "2024-01-01 03:50:00 +0000", "2024-01-02 01:00:00 +0000"}));
}

TEST(CronTest, RangesWithSteps) {
  EXPECT_EQ(Firings("10-30/10 9-17/4 * * *", "UTC",
                    Local("UTC", 2024, 1, 1, 0, 0), 7),
            (std::vector<std::string>{
                "2024-01-01 09:10:00 +0000", "2024-01-01 09:20:00 +0000",
                "2024-01-01 09:30:00 +0000", "2024-01-01 13:10:00 +0000",
                "2024-01-01 13:20:00 +0000", "2024-01-01 13:30:00 +0000",
                "2024-01-01 17:10:00 +0000"}));
  EXPECT_EQ(MustParse("0 0 * * 1-5"), MustParse("0 0 * * mon-FRI"));
  EXPECT_EQ(MustParse("0 0 * * 1-7/2"), MustParse("0 0 * * 0,1,3,5"));
  EXPECT_EQ(MustParse("0 0 * * 5-7"), MustParse("0 0 * * FRI,SAT,SUN"));
}

TEST(CronTest, ThirtyFirstSkipsShortMonths) {
  EXPECT_EQ(Firings("0 0 31 * *", "UTC", Local("UTC", 2024, 1, 31, 0, 0), 4),
            (std::vector<std::string>{
                "2024-03-31 00:00:00 +0000", "2024-05-31 00:00:00 +0000",
                "2024-07-31 00:00:00 +0000", "2024-08-31 00:00:00 +0000"}));
  EXPECT_EQ(Firings("0 12 30 * *", "UTC", Local("UTC", 2023, 1, 31, 0, 0), 1),
            (std::vector<std::string>{"2023-03-30 12:00:00 +0000"}));
}

TEST(CronTest, FebruaryTwentyNinthOnlyInLeapYears) {
  EXPECT_EQ(Firings("0 0 29 2 *", "UTC", Local("UTC", 2023, 1, 1, 0, 0), 3),
            (std::vector<std::string>{"2024-02-29 00:00:00 +0000",
                                      "2028-02-29 00:00:00 +0000",
                                      "2032-02-29 00:00:00 +0000"}));
  // 2100 is not a leap year: eight years between Feb 29ths.
  EXPECT_EQ(Firings("0 0 29 2 *", "UTC", Local("UTC", 2096, 3, 1, 0, 0), 1),
            (std::vector<std::string>{"2104-02-29 00:00:00 +0000"}));
}

TEST(CronTest, ImpossibleDateNeverFires) {
  EXPECT_EQ(MustParse("0 0 30 2 *").Next(Local("UTC", 2024, 1, 1, 0, 0)),
            absl::InfiniteFuture());
  EXPECT_EQ(MustParse("0 0 31 4,6,9,11 *").Next(Local("UTC", 2024, 1, 1, 0, 0)),
            absl::InfiniteFuture());
  EXPECT_EQ(CronSchedule().Next(Local("UTC", 2024, 1, 1, 0, 0)),
            absl::InfiniteFuture());
  EXPECT_EQ(MustParse("* * * * *").Next(absl::InfiniteFuture()),
            absl::InfiniteFuture());
}

TEST(CronTest, DayOfWeekNamesAndSunday) {
  // 2024-01-05 is a Friday.
  EXPECT_EQ(
      Firings("0 9 * * MON-FRI", "UTC", Local("UTC", 2024, 1, 5, 9, 0), 2),
      (std::vector<std::string>{"2024-01-08 09:00:00 +0000",
                                "2024-01-09 09:00:00 +0000"}));
  EXPECT_EQ(MustParse("0 0 * * 7"), MustParse("0 0 * * 0"));
  EXPECT_EQ(MustParse("0 0 * * sun"), MustParse("0 0 * * 0"));
  EXPECT_EQ(
      Fmt(MustParse("0 0 * * 7").Next(Local("UTC", 2024, 1, 1, 0, 0)), "UTC"),
      "2024-01-07 00:00:00 +0000");
  EXPECT_EQ(
      Firings("0 0 1 jan,Jul *", "UTC", Local("UTC", 2024, 1, 1, 0, 0), 2),
      (std::vector<std::string>{"2024-07-01 00:00:00 +0000",
                                "2025-01-01 00:00:00 +0000"}));
}

TEST(CronTest, DayOfMonthOrDayOfWeekWhenBothRestricted) {
  // Every 13th and every Friday: Jan 5 and 12 are Fridays, Jan 13 a Saturday.
  EXPECT_EQ(Firings("0 0 13 * FRI", "UTC", Local("UTC", 2024, 1, 1, 0, 0), 4),
            (std::vector<std::string>{
                "2024-01-05 00:00:00 +0000", "2024-01-12 00:00:00 +0000",
                "2024-01-13 00:00:00 +0000", "2024-01-19 00:00:00 +0000"}));
  // Unrestricted day-of-month ("*" or "*/n"): both must match (Vixie).
  EXPECT_EQ(Firings("0 0 * * FRI", "UTC", Local("UTC", 2024, 1, 1, 0, 0), 2),
            (std::vector<std::string>{"2024-01-05 00:00:00 +0000",
                                      "2024-01-12 00:00:00 +0000"}));
  EXPECT_EQ(Firings("0 0 */2 * FRI", "UTC", Local("UTC", 2024, 1, 1, 0, 0), 2),
            (std::vector<std::string>{"2024-01-05 00:00:00 +0000",
                                      "2024-01-19 00:00:00 +0000"}));
  // Unrestricted day-of-week: day-of-month alone decides.
  EXPECT_EQ(Firings("0 0 13 * *", "UTC", Local("UTC", 2024, 1, 1, 0, 0), 1),
            (std::vector<std::string>{"2024-01-13 00:00:00 +0000"}));
}

TEST(CronTest, Macros) {
  EXPECT_EQ(MustParse("@hourly"), MustParse("0 * * * *"));
  EXPECT_EQ(MustParse("@daily"), MustParse("0 0 * * *"));
  EXPECT_EQ(MustParse("@midnight"), MustParse("0 0 * * *"));
  EXPECT_EQ(MustParse("@weekly"), MustParse("0 0 * * 0"));
  EXPECT_EQ(MustParse("@monthly"), MustParse("0 0 1 * *"));
  EXPECT_EQ(MustParse("@yearly"), MustParse("0 0 1 1 *"));
  EXPECT_EQ(MustParse("@ANNUALLY"), MustParse("0 0 1 1 *"));
  const absl::Time from = Local("UTC", 2024, 5, 15, 10, 20);
  EXPECT_EQ(Fmt(MustParse("@hourly").Next(from), "UTC"),
            "2024-05-15 11:00:00 +0000");
  EXPECT_EQ(Fmt(MustParse("@daily").Next(from), "UTC"),
            "2024-05-16 00:00:00 +0000");
  EXPECT_EQ(Fmt(MustParse("@weekly").Next(from), "UTC"),
            "2024-05-19 00:00:00 +0000");
  EXPECT_EQ(Fmt(MustParse("@monthly").Next(from), "UTC"),
            "2024-06-01 00:00:00 +0000");
  EXPECT_EQ(Fmt(MustParse("@yearly").Next(from), "UTC"),
            "2025-01-01 00:00:00 +0000");
}

TEST(CronTest, ZoneShiftsFirings) {
  const absl::Time from = Local("UTC", 2024, 1, 1, 0, 0);
  EXPECT_EQ(Fmt(MustParse("0 2 * * *", "Europe/Berlin").Next(from), "UTC"),
            "2024-01-01 01:00:00 +0000");
  EXPECT_EQ(Fmt(MustParse("0 2 * * *", "America/New_York").Next(from), "UTC"),
            "2024-01-01 07:00:00 +0000");
}

// New York 2024-03-10: 02:00 EST jumps to 03:00 EDT.
TEST(CronTest, NewYorkSpringForward) {
  const std::string ny = "America/New_York";
  // A fixed-time job in the gap fires once, at the end of the gap.
  EXPECT_EQ(Firings("30 2 * * *", ny, Local(ny, 2024, 3, 9, 3, 0), 3),
            (std::vector<std::string>{"2024-03-10 03:00:00 -0400",
                                      "2024-03-11 02:30:00 -0400",
                                      "2024-03-12 02:30:00 -0400"}));
  EXPECT_EQ(Firings("0 2 * * *", ny, Local(ny, 2024, 3, 9, 3, 0), 2),
            (std::vector<std::string>{"2024-03-10 03:00:00 -0400",
                                      "2024-03-11 02:00:00 -0400"}));
  // Wildcard jobs skip the missing local times.
  EXPECT_EQ(Firings("*/30 * * * *", ny, Local(ny, 2024, 3, 10, 1, 0), 3),
            (std::vector<std::string>{"2024-03-10 01:30:00 -0500",
                                      "2024-03-10 03:00:00 -0400",
                                      "2024-03-10 03:30:00 -0400"}));
  EXPECT_EQ(Firings("30 * * * *", ny, Local(ny, 2024, 3, 10, 1, 0), 2),
            (std::vector<std::string>{"2024-03-10 01:30:00 -0500",
                                      "2024-03-10 03:30:00 -0400"}));
}

// New York 2024-11-03: 02:00 EDT falls back to 01:00 EST.
TEST(CronTest, NewYorkFallBack) {
  const std::string ny = "America/New_York";
  // A fixed-time job in the repeated hour fires once, the first time.
  EXPECT_EQ(Firings("30 1 * * *", ny, Local(ny, 2024, 11, 2, 12, 0), 3),
            (std::vector<std::string>{"2024-11-03 01:30:00 -0400",
                                      "2024-11-04 01:30:00 -0500",
                                      "2024-11-05 01:30:00 -0500"}));
  // A wildcard job follows elapsed time: 01:00 comes twice.
  EXPECT_EQ(Firings("0 * * * *", ny, Local(ny, 2024, 11, 3, 0, 30), 3),
            (std::vector<std::string>{"2024-11-03 01:00:00 -0400",
                                      "2024-11-03 01:00:00 -0500",
                                      "2024-11-03 02:00:00 -0500"}));
}

// Berlin 2024-03-31: 02:00 CET jumps to 03:00 CEST; 2024-10-27: 03:00 CEST
// falls back to 02:00 CET.
TEST(CronTest, BerlinSpringForwardAndFallBack) {
  const std::string berlin = "Europe/Berlin";
  EXPECT_EQ(Firings("30 2 * * *", berlin, Local(berlin, 2024, 3, 30, 12, 0), 2),
            (std::vector<std::string>{"2024-03-31 03:00:00 +0200",
                                      "2024-04-01 02:30:00 +0200"}));
  EXPECT_EQ(
      Firings("30 2 * * *", berlin, Local(berlin, 2024, 10, 26, 12, 0), 2),
      (std::vector<std::string>{"2024-10-27 02:30:00 +0200",
                                "2024-10-28 02:30:00 +0100"}));
  EXPECT_EQ(
      Firings("*/30 2 * * *", berlin, Local(berlin, 2024, 10, 27, 1, 0), 5),
      (std::vector<std::string>{
          "2024-10-27 02:00:00 +0200", "2024-10-27 02:30:00 +0200",
          "2024-10-27 02:00:00 +0100", "2024-10-27 02:30:00 +0100",
          "2024-10-28 02:00:00 +0100"}));
}

TEST(CronTest, ToStringAndEquality) {
  EXPECT_EQ(MustParse("  0 2 * * *  ").ToString(), "0 2 * * * (UTC)");
  EXPECT_EQ(MustParse("@daily", "Europe/Berlin").ToString(),
            "@daily (Europe/Berlin)");
  EXPECT_EQ(MustParse("0 2 * * *").expression(), "0 2 * * *");
  EXPECT_EQ(MustParse("0 2 * * *").time_zone_name(), "UTC");
  EXPECT_NE(MustParse("0 2 * * *", "UTC"),
            MustParse("0 2 * * *", "Europe/Berlin"));
  EXPECT_NE(MustParse("0 2 * * *"), MustParse("0 3 * * *"));
  EXPECT_EQ(MustParse("0 2 * * *"), MustParse("0\t2 * *  *"));
  EXPECT_EQ(CronSchedule().ToString(), "(never)");
}

struct BadCase {
  std::string expr;
  std::string message;
};

class CronBadInputTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(CronBadInputTest, NamesTheField) {
  absl::StatusOr<CronSchedule> schedule =
      CronSchedule::Parse(GetParam().expr, "UTC");
  ASSERT_FALSE(schedule.ok()) << GetParam().expr;
  EXPECT_EQ(schedule.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(schedule.status().message()),
              StartsWith(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Errors, CronBadInputTest,
    ::testing::Values(
        BadCase{"61 * * * *", "cron: minute field '61' is out of range 0-59"},
        BadCase{"* * * *", "cron: expected 5 fields, got 4"},
        BadCase{"", "cron: expected 5 fields, got 0"},
        BadCase{"* * * * * *", "cron: expected 5 fields, got 6"},
        BadCase{"* 24 * * *", "cron: hour field '24' is out of range 0-23"},
        BadCase{"* * 0 * *",
                "cron: day-of-month field '0' is out of range 1-31"},
        BadCase{"* * * 13 *", "cron: month field '13' is out of range 1-12"},
        BadCase{"* * * * 8", "cron: day-of-week field '8' is out of range 0-7"},
        BadCase{"1,70 * * * *", "cron: minute field '70' is out of range 0-59"},
        BadCase{"* * * FOO *",
                "cron: month field 'FOO' is not a number or a month name "
                "(JAN-DEC)"},
        BadCase{"* * * * funday",
                "cron: day-of-week field 'funday' is not a number or a day "
                "name (SUN-SAT)"},
        BadCase{"x * * * *", "cron: minute field 'x' is not a number"},
        BadCase{"*/0 * * * *", "cron: minute field '*/0' has a bad step"},
        BadCase{"*/x * * * *", "cron: minute field '*/x' has a bad step"},
        BadCase{"5/2 * * * *",
                "cron: minute field '5/2' has a step without a range"},
        BadCase{"30-10 * * * *",
                "cron: minute field '30-10' is a range that ends before it "
                "starts"},
        BadCase{"1,,2 * * * *",
                "cron: minute field '1,,2' has an empty list item"},
        BadCase{"@reboot", "cron: unknown macro '@reboot'"}));

TEST(CronTest, UnknownZone) {
  absl::StatusOr<CronSchedule> schedule =
      CronSchedule::Parse("* * * * *", "Mars/Base");
  ASSERT_FALSE(schedule.ok());
  EXPECT_EQ(schedule.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(schedule.status().message()),
              StartsWith("time_zone: unknown zone 'Mars/Base'"));
  schedule = CronSchedule::Parse("* * * * *", "");
  ASSERT_FALSE(schedule.ok());
  EXPECT_THAT(std::string(schedule.status().message()),
              HasSubstr("unknown zone ''"));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
