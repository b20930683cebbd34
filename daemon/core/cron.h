// Cron schedules: standard 5-field expressions evaluated in an explicit time
// zone, with Vixie/cronie semantics for daylight-saving transitions.
#pragma once

#include <bitset>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace fabricpulse::core {

// How far Next() looks ahead, in days: 8 years, so that "0 0 29 2 *" finds
// Feb 29 across a skipped century leap year (2096 -> 2104).
inline constexpr int kCronSearchDays = 8 * 366 + 1;

// Whether `name` has the form of an IANA zone name: 1 to kMaxTimeZoneName
// characters of letters, digits, '_', '-', '+' and '/', in '/'-separated
// parts none of which is empty, "." or "..". absl opens a zone name as a
// file below the zoneinfo folder, or anywhere for an absolute path, a
// "../" or its "file:" prefix (a FIFO there would hang the coordinator):
// only names of this form are ever loaded.
inline constexpr size_t kMaxTimeZoneName = 64;
bool IsValidTimeZoneName(absl::string_view name);

// A parsed cron expression bound to a time zone. Immutable after Parse:
// all const methods are safe to call from any number of threads.
//
// Syntax: "minute hour day-of-month month day-of-week", fields separated by
// spaces or tabs:
//   minute 0-59, hour 0-23, day-of-month 1-31, month 1-12 or JAN-DEC,
//   day-of-week 0-7 or SUN-SAT (0 and 7 are Sunday).
// Each field is a comma-separated list of items: "*", "a", "a-b", "*/n" or
// "a-b/n" (n >= 1); names are case-insensitive and may be range ends
// ("MON-FRI"). A range must not end before it starts ("5-7" is allowed for
// day-of-week: Friday to Sunday).
// Macros: @hourly = "0 * * * *", @daily (@midnight) = "0 0 * * *",
// @weekly = "0 0 * * 0", @monthly = "0 0 1 * *",
// @yearly (@annually) = "0 0 1 1 *".
//
// Day rule (Vixie): a field is "unrestricted" when its text starts with '*'
// (so "*/2" counts as unrestricted, as in Vixie cron and cronie). When both
// day-of-month and day-of-week are restricted, a day matches if EITHER
// matches ("0 0 13 * FRI" is every 13th and every Friday); otherwise both
// must match.
//
// Daylight saving (Vixie cron / cronie semantics). A schedule is a
// "wildcard" schedule when its minute or hour field starts with '*'
// (e.g. "*/5 * * * *", "0 * * * *"), otherwise "fixed-time" (e.g.
// "30 2 * * *").
//  - Spring forward (local times that do not exist): a fixed-time schedule
//    whose local time falls in the gap fires once, at the first instant
//    after the gap (a daily 02:30 job where 02:00-03:00 is skipped fires at
//    03:00 that day). A wildcard schedule just skips the missing local times
//    and continues at the next local time that exists and matches.
//  - Fall back (local times that occur twice): a fixed-time schedule fires
//    once, at the first occurrence (a daily 01:30 job fires at 01:30 summer
//    time, not again an hour later). A wildcard schedule follows elapsed
//    time and fires at both occurrences (an hourly job fires at 01:00 summer
//    time and at 01:00 standard time).
class CronSchedule {
 public:
  // An empty schedule that never fires: Next() returns InfiniteFuture().
  // Exists so that structs holding a schedule can be default-constructed;
  // use Parse() for a real one.
  CronSchedule();

  // Parses `expr` for the IANA zone `time_zone` ("UTC", "Europe/Berlin").
  // Errors: INVALID_ARGUMENT with one line that starts "cron: " and names
  // the field, e.g. "cron: minute field '61' is out of range 0-59",
  // "cron: expected 5 fields, got 4", "cron: unknown macro '@reboot'...";
  // or, for a zone that is not a valid name (IsValidTimeZoneName) or
  // cannot be loaded, one that starts "time_zone: ", e.g. "time_zone:
  // unknown zone 'Mars/Base'".
  static absl::StatusOr<CronSchedule> Parse(absl::string_view expr,
                                            absl::string_view time_zone);

  // The first firing instant strictly after `after` (firings are on whole
  // local minutes, except the end of a spring-forward gap, see above).
  // Returns absl::InfiniteFuture() when nothing matches within
  // kCronSearchDays (e.g. "0 0 30 2 *"), for a default-constructed
  // schedule, and when `after` is infinite.
  absl::Time Next(absl::Time after) const;

  // "<expression> (<zone>)", e.g. "0 2 * * * (UTC)"; the expression as
  // given, with surrounding space trimmed.
  std::string ToString() const;

  const std::string& expression() const { return expr_; }
  const std::string& time_zone_name() const { return zone_name_; }

  // Same firing times: same fields, same wildcard/day rules and same zone
  // name ("@daily" equals "0 0 * * *").
  friend bool operator==(const CronSchedule& a, const CronSchedule& b);
  friend bool operator!=(const CronSchedule& a, const CronSchedule& b) {
    return !(a == b);
  }

 private:
  bool DayMatches(int month, int day, int weekday) const;

  std::string expr_;
  std::string zone_name_;
  absl::TimeZone zone_;
  bool valid_ = false;
  std::bitset<60> minutes_;
  std::bitset<24> hours_;
  std::bitset<32> days_of_month_;  // bit 0 unused
  std::bitset<13> months_;         // bit 0 unused
  std::bitset<7> days_of_week_;    // 0 = Sunday
  bool dom_star_ = false;
  bool dow_star_ = false;
  bool wildcard_ = false;  // minute or hour field starts with '*'
};

}  // namespace fabricpulse::core
