#include "client/output/progress_line.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace fabricpulse::client {
namespace {

// Columns of the terminal on `fd`, 0 when unknown.
size_t TerminalWidth(int fd) {
  struct winsize size {};
  if (ioctl(fd, TIOCGWINSZ, &size) != 0) return 0;
  return size.ws_col;
}

}  // namespace

absl::StatusOr<ProgressMode> ParseProgressMode(absl::string_view text) {
  if (text == "auto") return ProgressMode::kAuto;
  if (text == "always") return ProgressMode::kAlways;
  if (text == "never") return ProgressMode::kNever;
  return absl::InvalidArgumentError(absl::StrCat(
      "--progress: unknown mode '", text, "'; allowed: auto, always, never"));
}

ProgressLine::ProgressLine(int fd, ProgressMode mode,
                           std::function<absl::Time()> now)
    : fd_(fd),
      mode_(mode),
      terminal_(isatty(fd) == 1),
      now_(std::move(now)),
      start_(now_()) {}

void ProgressLine::Update(int done, int total, absl::string_view label) {
  if (mode_ == ProgressMode::kNever) return;
  if (terminal_) {
    Redraw(done, total, label);
  } else {
    Plain(done, total, label);
  }
}

void ProgressLine::Redraw(int done, int total, absl::string_view label) {
  std::string line = absl::StrFormat("[%d/%d] %s", done, total, label);
  // A line that wraps cannot be redrawn with '\r'; keep it one column short
  // of the width so the cursor never moves to the next line.
  const size_t width = TerminalWidth(fd_);
  if (width > 1 && line.size() > width - 1) line.resize(width - 1);
  const size_t length = line.size();
  if (length < shown_) line.append(shown_ - length, ' ');
  Write(absl::StrCat("\r", line));
  shown_ = length;
}

void ProgressLine::Plain(int done, int total, absl::string_view label) {
  const absl::Time now = now_();
  const bool last = total > 0 && done >= total;
  // auto: quiet for a sweep shorter than kPlainProgressEvery (scripts and
  // their logs stay as they were); then a line every kPlainProgressEvery,
  // and the last step's once any was written.
  if (mode_ == ProgressMode::kAuto) {
    const bool due = now - start_ >= kPlainProgressEvery &&
                     now - last_plain_ >= kPlainProgressEvery;
    if (!due && !(last && plain_written_)) return;
  }
  last_plain_ = now;
  plain_written_ = true;
  const double elapsed = absl::ToDoubleSeconds(now - start_);
  std::string line = absl::StrFormat(
      "fabricpulse: progress: step %d of %d (%s), %.1f s elapsed", done, total,
      label, elapsed);
  if (done > 0 && !last) {
    absl::StrAppendFormat(&line, ", about %.0f s left",
                          elapsed / done * (total - done));
  }
  Write(absl::StrCat(line, "\n"));
}

void ProgressLine::Clear() {
  if (!terminal_ || shown_ == 0) return;
  Write(absl::StrCat("\r", std::string(shown_, ' '), "\r"));
  shown_ = 0;
}

void ProgressLine::Write(absl::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd_, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    text.remove_prefix(static_cast<size_t>(n));
  }
}

}  // namespace fabricpulse::client
