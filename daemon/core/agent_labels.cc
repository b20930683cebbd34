#include "daemon/core/agent_labels.h"

#include <set>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "daemon/core/name_rules.h"

namespace fabricpulse::core {
namespace {

constexpr absl::string_view kRule =
    "up to 63 characters of A-Z a-z 0-9 . _ -, starting and ending with a "
    "letter or digit";

bool IsLabelChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' ||
         c == '_' || c == '-';
}

absl::Status CheckLabelText(absl::string_view field, absl::string_view what,
                            absl::string_view text, bool allow_empty) {
  const bool ends_ok =
      text.empty() ||
      (absl::ascii_isalnum(static_cast<unsigned char>(text.front())) &&
       absl::ascii_isalnum(static_cast<unsigned char>(text.back())));
  bool chars_ok = true;
  for (char c : text) chars_ok = chars_ok && IsLabelChar(c);
  if ((text.empty() && !allow_empty) || text.size() > kMaxLabelLength ||
      !ends_ok || !chars_ok) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": ", what, " ", QuotePrefix(text), " is not allowed; a label ",
        what, " is ", allow_empty ? "empty or " : "", kRule));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateLabelKey(absl::string_view field, absl::string_view key) {
  return CheckLabelText(field, "key", key, /*allow_empty=*/false);
}

absl::Status ValidateLabelValue(absl::string_view field,
                                absl::string_view value) {
  return CheckLabelText(field, "value", value, /*allow_empty=*/true);
}

absl::Status ValidateLabels(absl::string_view field,
                            const AgentLabels& labels) {
  if (labels.size() > kMaxAgentLabels) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": ", labels.size(), " labels is out of range; allowed: up to ",
        kMaxAgentLabels));
  }
  for (const auto& [key, value] : labels) {
    if (absl::Status s = ValidateLabelKey(field, key); !s.ok()) return s;
    if (absl::Status s = ValidateLabelValue(field, value); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::StatusOr<AgentLabels> ParseLabels(absl::string_view field,
                                        absl::string_view text) {
  AgentLabels labels;
  if (absl::StripAsciiWhitespace(text).empty()) return labels;
  for (absl::string_view entry : absl::StrSplit(text, ',')) {
    entry = absl::StripAsciiWhitespace(entry);
    const size_t eq = entry.find('=');
    if (eq == absl::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": entry ", QuotePrefix(entry),
                       " has no '='; write key=value[,key=value...]"));
    }
    const std::string key(entry.substr(0, eq));
    if (!labels.emplace(key, std::string(entry.substr(eq + 1))).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": key ", QuotePrefix(key), " is given twice"));
    }
  }
  if (absl::Status s = ValidateLabels(field, labels); !s.ok()) return s;
  return labels;
}

std::string LabelsText(const AgentLabels& labels) {
  return absl::StrJoin(labels, ",", absl::PairFormatter("="));
}

bool LabelsMatch(const AgentLabels& labels, const AgentLabels& selector) {
  for (const auto& [key, value] : selector) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  return true;
}

}  // namespace fabricpulse::core
