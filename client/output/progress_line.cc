#include "client/output/progress_line.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>

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

ProgressLine::ProgressLine(int fd) : fd_(fd), enabled_(isatty(fd) == 1) {}

void ProgressLine::Update(int done, int total, absl::string_view label) {
  if (!enabled_) return;
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

void ProgressLine::Clear() {
  if (!enabled_ || shown_ == 0) return;
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
