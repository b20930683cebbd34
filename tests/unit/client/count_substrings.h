// How often a string occurs in a page: the report tests count chart
// elements in HTML with it.
#pragma once

#include <string>

namespace fabricpulse::testing {

// Non-overlapping occurrences of `what` (non-empty) in `text`.
inline int CountSubstrings(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + what.size())) {
    ++n;
  }
  return n;
}

}  // namespace fabricpulse::testing
