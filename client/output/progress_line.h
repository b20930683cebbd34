// Progress of a sweep on stderr: a line redrawn in place ("\r[12/48]
// all_reduce 1M") on a terminal, plain lines ("fabricpulse: progress: step
// 12 of 48 (all_reduce 1M), 8.1 s elapsed, about 24 s left") elsewhere
// (logs, CI, pipes).
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace fabricpulse::client {

// --progress: auto (the default): the redrawn line on a terminal, else
// nothing for the first kPlainProgressEvery, then a plain line at most
// every kPlainProgressEvery and one for the last step; always: the same, but
// a plain line after every step; never: nothing.
enum class ProgressMode { kAuto, kAlways, kNever };
inline constexpr absl::Duration kPlainProgressEvery = absl::Seconds(10);

// "auto", "always" or "never". Errors: INVALID_ARGUMENT naming --progress
// and the allowed values.
absl::StatusOr<ProgressMode> ParseProgressMode(absl::string_view text);

// Not thread-safe. Write errors are ignored (progress is cosmetic). Call
// Clear before printing results to the same terminal.
class ProgressLine {
 public:
  // Whether `fd` is a terminal is read once here. `now` is the clock of the
  // plain lines' pace and of the elapsed and remaining times.
  explicit ProgressLine(
      int fd = 2, ProgressMode mode = ProgressMode::kAuto,
      std::function<absl::Time()> now = [] { return absl::Now(); });

  // Step `done` of `total` has ended; `label` names it (op and size).
  void Update(int done, int total, absl::string_view label);
  // Erases the redrawn line, if one is drawn (plain lines stay).
  void Clear();

  bool enabled() const { return mode_ != ProgressMode::kNever; }
  bool terminal() const { return terminal_; }

 private:
  void Write(absl::string_view text);
  void Redraw(int done, int total, absl::string_view label);
  void Plain(int done, int total, absl::string_view label);

  const int fd_;
  const ProgressMode mode_;
  const bool terminal_;
  const std::function<absl::Time()> now_;
  const absl::Time start_;
  absl::Time last_plain_ = absl::InfinitePast();
  bool plain_written_ = false;
  // Length of the redrawn line on screen; 0 when none is drawn.
  size_t shown_ = 0;
};

}  // namespace fabricpulse::client
