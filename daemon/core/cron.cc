#include "daemon/core/cron.h"

#include <array>
#include <cstdint>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/civil_time.h"
#include "daemon/core/name_rules.h"

namespace fabricpulse::core {
namespace {

constexpr std::array<absl::string_view, 12> kMonthNames = {
    "jan", "feb", "mar", "apr", "may", "jun",
    "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr std::array<absl::string_view, 7> kDayNames = {
    "sun", "mon", "tue", "wed", "thu", "fri", "sat"};

struct FieldInfo {
  absl::string_view name;
  int min;
  int max;
  // Names for values min, min+1, ... (empty when the field takes numbers
  // only).
  const absl::string_view* names = nullptr;
  int name_count = 0;
  absl::string_view name_hint = "";
};

constexpr FieldInfo kFields[5] = {
    {"minute", 0, 59},
    {"hour", 0, 23},
    {"day-of-month", 1, 31},
    {"month", 1, 12, kMonthNames.data(), 12, " or a month name (JAN-DEC)"},
    {"day-of-week", 0, 7, kDayNames.data(), 7, " or a day name (SUN-SAT)"},
};

struct Macro {
  absl::string_view name;
  absl::string_view expansion;
};

constexpr std::array<Macro, 7> kMacros = {{
    {"@hourly", "0 * * * *"},
    {"@daily", "0 0 * * *"},
    {"@midnight", "0 0 * * *"},
    {"@weekly", "0 0 * * 0"},
    {"@monthly", "0 0 1 * *"},
    {"@yearly", "0 0 1 1 *"},
    {"@annually", "0 0 1 1 *"},
}};

absl::Status FieldError(const FieldInfo& field, absl::string_view item,
                        absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(
      "cron: ", field.name, " field ", QuotePrefix(item), " ", problem));
}

absl::StatusOr<int> ParseValue(const FieldInfo& field, absl::string_view item,
                               absl::string_view text) {
  int value = 0;
  if (!text.empty() && absl::ascii_isdigit(static_cast<uint8_t>(text[0]))) {
    if (!absl::SimpleAtoi(text, &value)) {
      return FieldError(field, item,
                        absl::StrCat("is not a number", field.name_hint));
    }
  } else {
    const std::string lower = absl::AsciiStrToLower(text);
    int i = 0;
    while (i < field.name_count && field.names[i] != lower) ++i;
    if (i == field.name_count) {
      return FieldError(field, item,
                        absl::StrCat("is not a number", field.name_hint));
    }
    // Months are named from 1 (JAN), days from 0 (SUN).
    value = field.min + i;
  }
  if (value < field.min || value > field.max) {
    return FieldError(
        field, item,
        absl::StrCat("is out of range ", field.min, "-", field.max));
  }
  return value;
}

// Parses one comma-separated list item and sets its bits in `bits` (indexed
// by value; day-of-week 7 folds onto 0).
absl::Status ParseItem(const FieldInfo& field, absl::string_view item,
                       std::vector<bool>& bits) {
  absl::string_view base = item;
  int step = 1;
  bool has_step = false;
  if (const size_t slash = item.find('/'); slash != absl::string_view::npos) {
    base = item.substr(0, slash);
    has_step = true;
    if (!absl::SimpleAtoi(item.substr(slash + 1), &step) || step < 1) {
      return FieldError(field, item,
                        "has a bad step; use */n or a-b/n with a whole "
                        "number n >= 1");
    }
  }
  int first = field.min;
  int last = field.max;
  if (base == "*") {
    if (field.name == "day-of-week") last = 6;  // 7 would repeat Sunday
  } else if (const size_t dash = base.find('-');
             dash != absl::string_view::npos) {
    absl::StatusOr<int> a = ParseValue(field, item, base.substr(0, dash));
    if (!a.ok()) return a.status();
    absl::StatusOr<int> b = ParseValue(field, item, base.substr(dash + 1));
    if (!b.ok()) return b.status();
    first = *a;
    last = *b;
    if (first > last) {
      return FieldError(field, item, "is a range that ends before it starts");
    }
  } else {
    if (has_step) {
      return FieldError(field, item,
                        "has a step without a range; use */n or a-b/n");
    }
    absl::StatusOr<int> value = ParseValue(field, item, base);
    if (!value.ok()) return value.status();
    first = last = *value;
  }
  // 64-bit: "59-59/2147483647" would overflow an int and write before the
  // vector.
  for (int64_t v = first; v <= last; v += step) bits[v] = true;
  return absl::OkStatus();
}

// Parses a whole field into a vector of field.max + 1 flags.
absl::StatusOr<std::vector<bool>> ParseField(const FieldInfo& field,
                                             absl::string_view text) {
  std::vector<bool> bits(field.max + 1, false);
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    if (item.empty()) {
      return FieldError(field, text, "has an empty list item");
    }
    absl::Status status = ParseItem(field, item, bits);
    if (!status.ok()) return status;
  }
  return bits;
}

template <size_t N>
std::bitset<N> ToBits(const std::vector<bool>& flags) {
  std::bitset<N> bits;
  for (size_t i = 0; i < flags.size(); ++i) {
    if (flags[i]) bits.set(i % N);  // day-of-week 7 -> 0
  }
  return bits;
}

}  // namespace

bool IsValidTimeZoneName(absl::string_view name) {
  if (name.empty() || name.size() > kMaxTimeZoneName) return false;
  for (absl::string_view part : absl::StrSplit(name, '/')) {
    if (part.empty() || part == "." || part == "..") return false;
    for (const char c : part) {
      if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_' &&
          c != '-' && c != '+') {
        return false;
      }
    }
  }
  return true;
}

CronSchedule::CronSchedule() : zone_(absl::UTCTimeZone()) {}

absl::StatusOr<CronSchedule> CronSchedule::Parse(absl::string_view expr,
                                                 absl::string_view time_zone) {
  CronSchedule schedule;
  schedule.expr_ = std::string(absl::StripAsciiWhitespace(expr));
  if (!IsValidTimeZoneName(time_zone) ||
      !absl::LoadTimeZone(std::string(time_zone), &schedule.zone_)) {
    return absl::InvalidArgumentError(
        absl::StrCat("time_zone: unknown zone ", QuotePrefix(time_zone),
                     "; use an IANA zone name such as UTC or Europe/Berlin"));
  }
  schedule.zone_name_ = std::string(time_zone);

  absl::string_view fields_text = schedule.expr_;
  if (absl::StartsWith(fields_text, "@")) {
    const std::string lower = absl::AsciiStrToLower(fields_text);
    const Macro* found = nullptr;
    for (const Macro& macro : kMacros) {
      if (macro.name == lower) found = &macro;
    }
    if (found == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cron: unknown macro ", QuotePrefix(fields_text),
          "; allowed: @hourly, @daily, @midnight, @weekly, @monthly, "
          "@yearly, @annually"));
    }
    fields_text = found->expansion;
  }
  const std::vector<absl::string_view> fields = absl::StrSplit(
      fields_text, absl::ByAnyChar(" \t\n\r"), absl::SkipEmpty());
  if (fields.size() != 5) {
    return absl::InvalidArgumentError(
        absl::StrCat("cron: expected 5 fields, got ", fields.size(),
                     " (minute hour day-of-month month day-of-week)"));
  }
  std::vector<bool> parsed[5];
  for (int i = 0; i < 5; ++i) {
    absl::StatusOr<std::vector<bool>> bits = ParseField(kFields[i], fields[i]);
    if (!bits.ok()) return bits.status();
    parsed[i] = *std::move(bits);
  }
  schedule.minutes_ = ToBits<60>(parsed[0]);
  schedule.hours_ = ToBits<24>(parsed[1]);
  schedule.days_of_month_ = ToBits<32>(parsed[2]);
  schedule.months_ = ToBits<13>(parsed[3]);
  schedule.days_of_week_ = ToBits<7>(parsed[4]);
  schedule.dom_star_ = absl::StartsWith(fields[2], "*");
  schedule.dow_star_ = absl::StartsWith(fields[4], "*");
  schedule.wildcard_ =
      absl::StartsWith(fields[0], "*") || absl::StartsWith(fields[1], "*");
  schedule.valid_ = true;
  return schedule;
}

bool CronSchedule::DayMatches(int month, int day, int weekday) const {
  if (!months_[month]) return false;
  const bool dom = days_of_month_[day];
  const bool dow = days_of_week_[weekday];
  if (dom_star_ || dow_star_) return dom && dow;
  return dom || dow;
}

absl::Time CronSchedule::Next(absl::Time after) const {
  if (!valid_ || after == absl::InfiniteFuture() ||
      after == absl::InfinitePast()) {
    return absl::InfiniteFuture();
  }
  // Start one local day early: where a transition crosses midnight, a time
  // of the previous local day can still lie after `after`. Local days never
  // overlap otherwise, so the first day with a candidate holds the answer.
  const absl::CivilDay start = absl::ToCivilDay(after, zone_) - 1;
  for (int i = 0; i <= kCronSearchDays + 1; ++i) {
    const absl::CivilDay day = start + i;
    // absl's Weekday runs Monday = 0 .. Sunday = 6; cron's Sunday = 0.
    const int weekday = (static_cast<int>(absl::GetWeekday(day)) + 1) % 7;
    if (!DayMatches(day.month(), day.day(), weekday)) continue;
    absl::Time best = absl::InfiniteFuture();
    auto consider = [&](absl::Time t) {
      if (t > after && t < best) best = t;
    };
    for (int h = 0; h < 24; ++h) {
      if (!hours_[h]) continue;
      for (int m = 0; m < 60; ++m) {
        if (!minutes_[m]) continue;
        const absl::TimeZone::TimeInfo info = zone_.At(
            absl::CivilMinute(day.year(), day.month(), day.day(), h, m));
        switch (info.kind) {
          case absl::TimeZone::TimeInfo::UNIQUE:
            consider(info.pre);
            break;
          case absl::TimeZone::TimeInfo::SKIPPED:
            // A fixed-time job runs at the end of the gap; a wildcard job
            // has no such local time this day.
            if (!wildcard_) consider(info.trans);
            break;
          case absl::TimeZone::TimeInfo::REPEATED:
            // `pre` is the first occurrence, `post` the second.
            consider(info.pre);
            if (wildcard_) consider(info.post);
            break;
        }
      }
    }
    if (best != absl::InfiniteFuture()) return best;
  }
  return absl::InfiniteFuture();
}

std::string CronSchedule::ToString() const {
  if (!valid_) return "(never)";
  return absl::StrCat(expr_, " (", zone_name_, ")");
}

bool operator==(const CronSchedule& a, const CronSchedule& b) {
  return a.valid_ == b.valid_ && a.zone_name_ == b.zone_name_ &&
         a.minutes_ == b.minutes_ && a.hours_ == b.hours_ &&
         a.days_of_month_ == b.days_of_month_ && a.months_ == b.months_ &&
         a.days_of_week_ == b.days_of_week_ && a.dom_star_ == b.dom_star_ &&
         a.dow_star_ == b.dow_star_ && a.wildcard_ == b.wildcard_;
}

}  // namespace fabricpulse::core
