#include "daemon/core/name_rules.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "daemon/core/limits.h"

namespace fabricpulse::core {
namespace {

constexpr char kNodeRule[] =
    "1 to 253 of A-Z a-z 0-9 . _ -, starting with a letter or digit";

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9');
}
bool IsNodeChar(char c) {
  return IsAlnum(c) || c == '.' || c == '_' || c == '-';
}
bool IsIdChar(char c) { return IsNodeChar(c) || c == ':'; }
bool IsAddressChar(char c) {
  return IsIdChar(c) || c == '[' || c == ']' || c == '%';
}
bool IsPrintable(char c) { return c >= 0x20 && c <= 0x7e; }

// Escapes as EscapeControl does, and bytes of 0x80 and above too: a
// client's string cut at any byte stays readable ASCII.
std::string EscapeAll(absl::string_view text) {
  std::string out;
  for (const char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x80) {
      absl::StrAppendFormat(&out, "\\x%02x", u);
    } else {
      out += EscapeControl(absl::string_view(&c, 1));
    }
  }
  return out;
}

// The quoted prefix, without the length.
std::string PrefixOnly(absl::string_view value) {
  if (value.size() <= kQuotedPrefixLength) {
    return absl::StrCat("'", EscapeAll(value), "'");
  }
  return absl::StrCat("'", EscapeAll(value.substr(0, kQuotedPrefixLength)),
                      "...'");
}

// The first character of `value` that `allowed` refuses, as an error naming
// `field` and `rule`; OK when there is none.
template <typename Pred>
absl::Status CheckChars(absl::string_view field, absl::string_view value,
                        Pred allowed, absl::string_view rule) {
  for (size_t i = 0; i < value.size(); ++i) {
    if (!allowed(value[i])) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": ", QuotePrefix(value),
                       " has a character that is not allowed at byte ", i, " (",
                       EscapeAll(value.substr(i, 1)), "); allowed: ", rule));
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::string EscapeControl(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      absl::StrAppendFormat(&out, "\\x%02x", u);
    } else {
      out += c;
    }
  }
  return out;
}

std::string QuotePrefix(absl::string_view value) {
  if (value.size() <= kQuotedPrefixLength) return PrefixOnly(value);
  return absl::StrCat(PrefixOnly(value), " (", value.size(), " bytes)");
}

absl::Status CheckLength(absl::string_view field, absl::string_view value,
                         size_t max, bool allow_empty) {
  if (value.empty() && !allow_empty) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": must not be empty; allowed: 1 to ", max, " bytes"));
  }
  if (value.size() > max) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": ", PrefixOnly(value), " is ", value.size(),
        " bytes long; allowed: ", allow_empty ? 0 : 1, " to ", max, " bytes"));
  }
  return absl::OkStatus();
}

bool IsValidNodeName(absl::string_view value) {
  if (value.empty() || value.size() > kMaxNodeNameLength) return false;
  if (!IsAlnum(value[0])) return false;
  for (const char c : value) {
    if (!IsNodeChar(c)) return false;
  }
  return true;
}

absl::Status ValidateNodeName(absl::string_view field,
                              absl::string_view value) {
  if (absl::Status length = CheckLength(field, value, kMaxNodeNameLength);
      !length.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(length.message(), " (", kNodeRule, ")"));
  }
  if (!IsAlnum(value[0])) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": ", QuotePrefix(value),
        " does not start with a letter or digit; allowed: ", kNodeRule));
  }
  return CheckChars(field, value, IsNodeChar, kNodeRule);
}

absl::Status ValidateId(absl::string_view field, absl::string_view value,
                        bool allow_empty, size_t max) {
  if (max == 0) max = kMaxIdLength;
  if (absl::Status length = CheckLength(field, value, max, allow_empty);
      !length.ok()) {
    return length;
  }
  return CheckChars(field, value, IsIdChar,
                    absl::StrCat("up to ", max, " of A-Z a-z 0-9 . _ - :"));
}

absl::Status ValidateAddress(absl::string_view field, absl::string_view value) {
  if (absl::Status length = CheckLength(field, value, kMaxAddressLength);
      !length.ok()) {
    return length;
  }
  return CheckChars(field, value, IsAddressChar,
                    absl::StrCat("HOST:PORT, 1 to ", kMaxAddressLength,
                                 " of A-Z a-z 0-9 . _ - : [ ] %"));
}

absl::Status ValidateText(absl::string_view field, absl::string_view value,
                          size_t max) {
  if (absl::Status length =
          CheckLength(field, value, max, /*allow_empty=*/true);
      !length.ok()) {
    return length;
  }
  return CheckChars(field, value, IsPrintable,
                    absl::StrCat("up to ", max, " printable ASCII characters"));
}

}  // namespace fabricpulse::core
