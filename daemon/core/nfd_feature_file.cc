#include "daemon/core/nfd_feature_file.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace fabricpulse::core {

namespace {

constexpr absl::string_view kNfdExpiryDirective = "# +expiry-time=";

bool NfdValueChar(char c) {
  return absl::ascii_isalnum(c) || c == '-' || c == '_' || c == '.';
}

}  // namespace

bool IsLabelValue(absl::string_view value) {
  if (value.empty()) return true;
  if (value.size() > 63) return false;
  if (!absl::ascii_isalnum(value.front()) ||
      !absl::ascii_isalnum(value.back())) {
    return false;
  }
  for (char c : value) {
    if (!NfdValueChar(c)) return false;
  }
  return true;
}

std::string CompactUtc(absl::Time t) {
  return absl::FormatTime("%Y%m%dT%H%M%SZ", t, absl::UTCTimeZone());
}

std::string NfdFeatureFileText(const NfdVerdictLabels& labels) {
  std::string text = absl::StrCat(
      "# FabricPulse: this node's NCCL verdict; written by "
      "fabricpulse-agent.\n",
      kNfdExpiryDirective,
      absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", labels.expires,
                       absl::UTCTimeZone()),
      "\n", kNfdHealthLabel, "=", labels.health, "\n");
  if (labels.tested != absl::InfinitePast()) {
    absl::StrAppend(&text, kNfdTestedLabel, "=", CompactUtc(labels.tested),
                    "\n");
  }
  if (!labels.plan.empty() && IsLabelValue(labels.plan)) {
    absl::StrAppend(&text, kNfdPlanLabel, "=", labels.plan, "\n");
  }
  return text;
}

std::optional<absl::Time> NfdFileExpiry(absl::string_view text) {
  std::optional<absl::Time> expiry;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!absl::ConsumePrefix(&line, kNfdExpiryDirective)) continue;
    absl::Time t;
    std::string error;
    if (absl::ParseTime(absl::RFC3339_full, std::string(line), &t, &error)) {
      expiry = t;
    }
  }
  return expiry;
}

}  // namespace fabricpulse::core
