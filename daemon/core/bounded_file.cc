#include "daemon/core/bounded_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace fabricpulse::core {
namespace {

constexpr size_t kMaxQuotedPath = 256;

std::string QuotedPath(const std::string& path) {
  if (path.size() <= kMaxQuotedPath) return path;
  return absl::StrCat(path.substr(0, kMaxQuotedPath), "...");
}

const char* FileType(mode_t mode) {
  if (S_ISDIR(mode)) return "Is a directory";
  if (S_ISFIFO(mode)) return "Is a FIFO";
  if (S_ISSOCK(mode)) return "Is a socket";
  if (S_ISCHR(mode)) return "Is a character device";
  if (S_ISBLK(mode)) return "Is a block device";
  return "Is not a regular file";
}

// Closes the descriptor on every path out.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  const int fd_;
};

}  // namespace

absl::StatusOr<std::string> ReadBoundedFile(const std::string& path,
                                            size_t max_bytes,
                                            absl::string_view what) {
  auto error = [&](absl::StatusCode code, absl::string_view reason) {
    return absl::Status(code, absl::StrCat(what, ": cannot read '",
                                           QuotedPath(path), "': ", reason));
  };
  auto errno_error = [&](int e) {
    return error(absl::ErrnoToStatusCode(e),
                 std::generic_category().message(e));
  };
  // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused
  // below); it changes nothing for a regular file.
  Fd fd(open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) return errno_error(errno);
  struct stat st;
  if (fstat(fd.get(), &st) != 0) return errno_error(errno);
  if (!S_ISREG(st.st_mode)) {
    return error(
        absl::StatusCode::kFailedPrecondition,
        absl::StrCat(FileType(st.st_mode), "; a regular file is required"));
  }
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size > max_bytes) {
    return error(absl::StatusCode::kResourceExhausted,
                 absl::StrCat(size, " bytes is larger than the bound of ",
                              max_bytes, " bytes"));
  }
  std::string text;
  text.reserve(static_cast<size_t>(size));
  char buffer[1 << 16];
  while (true) {
    // Never asks for more than one byte past the bound: a file that grew
    // since fstat is noticed without reading on.
    const size_t want = std::min(sizeof(buffer), max_bytes + 1 - text.size());
    const ssize_t n = read(fd.get(), buffer, want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error(errno);
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
    if (text.size() > max_bytes) {
      return error(absl::StatusCode::kResourceExhausted,
                   absl::StrCat("grew past the bound of ", max_bytes,
                                " bytes while being read"));
    }
  }
  return text;
}

}  // namespace fabricpulse::core
