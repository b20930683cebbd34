#include "client/cli/command_suggestion.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace fabricpulse::client {

int EditDistance(absl::string_view a_in, absl::string_view b_in) {
  const std::string a = absl::AsciiStrToLower(a_in);
  const std::string b = absl::AsciiStrToLower(b_in);
  const size_t n = a.size(), m = b.size();
  // d[i][j]: distance between a's first i and b's first j characters.
  std::vector<std::vector<int>> d(n + 1, std::vector<int>(m + 1, 0));
  for (size_t i = 0; i <= n; ++i) d[i][0] = static_cast<int>(i);
  for (size_t j = 0; j <= m; ++j) d[0][j] = static_cast<int>(j);
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      const int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] =
          std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

std::optional<std::string> SuggestCommand(
    absl::string_view typed, const std::vector<std::string>& candidates) {
  constexpr int kMaxEdits = 2;
  const std::string* best = nullptr;
  int best_distance = kMaxEdits + 1;
  for (const std::string& candidate : candidates) {
    const int distance = EditDistance(typed, candidate);
    if (distance < best_distance) {
      best = &candidate;
      best_distance = distance;
    }
  }
  if (best != nullptr && best_distance < static_cast<int>(typed.size())) {
    return *best;
  }
  // A prefix ("diag") is far from its command by edits but unambiguous.
  const std::string* prefix_of = nullptr;
  if (typed.size() >= 2) {
    for (const std::string& candidate : candidates) {
      if (!absl::StartsWithIgnoreCase(candidate, typed)) continue;
      if (prefix_of != nullptr) return std::nullopt;  // ambiguous
      prefix_of = &candidate;
    }
  }
  if (prefix_of != nullptr) return *prefix_of;
  return std::nullopt;
}

std::string UnknownCommandMessage(absl::string_view program,
                                  absl::string_view typed,
                                  const std::vector<std::string>& candidates) {
  std::optional<std::string> suggestion = SuggestCommand(typed, candidates);
  if (suggestion.has_value()) {
    return absl::StrCat("unknown command '", typed, "'; did you mean '",
                        *suggestion, "'?");
  }
  return absl::StrCat("unknown command '", typed,
                      "'; commands: ", absl::StrJoin(candidates, ", "),
                      "; see '", program, " --help'");
}

}  // namespace fabricpulse::client
