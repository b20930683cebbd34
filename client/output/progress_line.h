// A one-line progress indicator ("\r[12/48] all_reduce 1M") for terminals.
#pragma once

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace fabricpulse::client {

// Writes to `fd` only when it is a terminal (isatty at construction);
// otherwise every method does nothing, so logs and pipes stay clean. The
// line is redrawn in place with '\r', padded over a longer previous line and
// cut to the terminal's width. Not thread-safe. Write errors are ignored
// (progress is cosmetic). Call Clear before printing results to the same
// terminal.
class ProgressLine {
 public:
  explicit ProgressLine(int fd = 2);

  // Draws "[done/total] label".
  void Update(int done, int total, absl::string_view label);
  // Erases the line, if one is drawn.
  void Clear();

  bool enabled() const { return enabled_; }

 private:
  void Write(absl::string_view text);

  const int fd_;
  const bool enabled_;
  // Length of the line on screen; 0 when none is drawn.
  size_t shown_ = 0;
};

}  // namespace fabricpulse::client
