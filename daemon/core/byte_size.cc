#include "daemon/core/byte_size.h"

#include <cctype>
#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "daemon/core/name_rules.h"

namespace fabricpulse::core {

absl::StatusOr<uint64_t> ParseByteSize(absl::string_view text,
                                       absl::string_view field) {
  std::string s = absl::AsciiStrToUpper(absl::StripAsciiWhitespace(text));
  auto error = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": ", QuotePrefix(text),
                     " is not a byte size; use a whole number with an "
                     "optional K, M or G suffix (e.g. 8, 64K, 1M, 2G)"));
  };
  if (!s.empty() && s.back() == 'B') s.pop_back();
  uint64_t multiplier = 1;
  if (!s.empty() && std::isalpha(static_cast<unsigned char>(s.back()))) {
    switch (s.back()) {
      case 'K':
        multiplier = 1ull << 10;
        break;
      case 'M':
        multiplier = 1ull << 20;
        break;
      case 'G':
        multiplier = 1ull << 30;
        break;
      case 'T':
        multiplier = 1ull << 40;
        break;
      default:
        return error();
    }
    s.pop_back();
  }
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0]))) {
    return error();
  }
  uint64_t value = 0;
  if (!absl::SimpleAtoi(s, &value)) return error();
  if (value > std::numeric_limits<uint64_t>::max() / multiplier) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": ", QuotePrefix(text), " is too large"));
  }
  return value * multiplier;
}

std::string FormatByteSize(uint64_t bytes) {
  static constexpr struct {
    uint64_t unit;
    const char* suffix;
  } kUnits[] = {{1ull << 40, "T"},
                {1ull << 30, "G"},
                {1ull << 20, "M"},
                {1ull << 10, "K"}};
  for (const auto& u : kUnits) {
    if (bytes >= u.unit && bytes % u.unit == 0) {
      return absl::StrCat(bytes / u.unit, u.suffix);
    }
  }
  return absl::StrCat(bytes);
}

std::string HumanByteSize(uint64_t bytes) {
  static constexpr struct {
    uint64_t unit;
    const char* name;
  } kUnits[] = {{1ull << 40, "TiB"},
                {1ull << 30, "GiB"},
                {1ull << 20, "MiB"},
                {1ull << 10, "KiB"}};
  for (const auto& u : kUnits) {
    if (bytes < u.unit) continue;
    if (bytes % u.unit == 0) return absl::StrCat(bytes / u.unit, " ", u.name);
    return absl::StrFormat("%.1f %s", static_cast<double>(bytes) / u.unit,
                           u.name);
  }
  return absl::StrCat(bytes, " B");
}

}  // namespace fabricpulse::core
