// Fuzzes cron parsing and evaluation (daemon/core/cron.h): refusals start
// "cron: " or "time_zone: "; an accepted schedule re-parses to itself from
// its own text, and Next() moves strictly forward, within the search window,
// and is consistent with itself.
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "daemon/core/cron.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_targets.h"

namespace fabricpulse::fuzz {
namespace {

// A few instants around daylight-saving changes and leap days.
absl::Time From(int i) {
  switch (i) {
    case 0:
      return absl::FromCivil(absl::CivilSecond(2026, 3, 29, 0, 30, 0),
                             absl::UTCTimeZone());
    case 1:
      return absl::FromCivil(absl::CivilSecond(2026, 10, 25, 0, 59, 30),
                             absl::UTCTimeZone());
    default:
      return absl::FromCivil(absl::CivilSecond(2096, 2, 28, 23, 59, 59),
                             absl::UTCTimeZone());
  }
}

void CheckNext(const core::CronSchedule& schedule, absl::Time from) {
  const absl::Time next = schedule.Next(from);
  if (next == absl::InfiniteFuture()) return;
  if (next <= from) Fail(absl::StrCat(schedule.ToString(), ": Next <= from"));
  if (next - from > absl::Hours(24) * (core::kCronSearchDays + 2)) {
    Fail(absl::StrCat(schedule.ToString(), ": Next beyond the search window"));
  }
  // Nothing fires in (from, next), so from just before `next` the answer
  // is `next` again.
  const absl::Time just_before = next - absl::Nanoseconds(1);
  if (just_before > from && schedule.Next(just_before) != next) {
    Fail(absl::StrCat(schedule.ToString(), ": Next(", absl::FormatTime(next),
                      " - 1ns) is not ", absl::FormatTime(next)));
  }
  if (schedule.Next(next) <= next) {
    Fail(absl::StrCat(schedule.ToString(), ": Next does not move on"));
  }
}

}  // namespace

int FuzzCron(const uint8_t* data, size_t size) {
  const std::string input = AsString(data, size);
  std::string zone = "UTC";
  std::string expr = input;
  if (const size_t newline = input.find('\n'); newline != std::string::npos) {
    zone = input.substr(0, newline);
    expr = input.substr(newline + 1);
  }
  const auto schedule = core::CronSchedule::Parse(expr, zone);
  if (!schedule.ok()) {
    CheckCode(schedule.status(), {absl::StatusCode::kInvalidArgument},
              "CronSchedule::Parse");
    if (!absl::StartsWith(schedule.status().message(), "cron: ") &&
        !absl::StartsWith(schedule.status().message(), "time_zone: ")) {
      Fail(absl::StrCat("cron error without its prefix: ",
                        schedule.status().message()));
    }
    return 0;
  }
  if (ZoneNameIsPath(zone)) {
    Fail(absl::StrCat("a zone name that is a path was accepted: ", zone));
  }
  if (!(*schedule == *schedule)) Fail("a schedule differs from itself");
  const auto again = core::CronSchedule::Parse(schedule->expression(), zone);
  if (!again.ok() || !(*again == *schedule)) {
    Fail("the schedule's own expression parses differently");
  }
  for (int i = 0; i < 3; ++i) CheckNext(*schedule, From(i));
  return 0;
}

}  // namespace fabricpulse::fuzz
