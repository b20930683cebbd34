#include "daemon/common/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "absl/strings/str_cat.h"

namespace fabricpulse::common {

absl::Status WriteFileAtomically(const std::string& path,
                                 const std::string& temp_path,
                                 absl::string_view content) {
  {
    std::ofstream out(temp_path, std::ios::trunc | std::ios::binary);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) {
      const std::string reason = std::strerror(errno);
      std::remove(temp_path.c_str());
      return absl::InternalError(
          absl::StrCat("cannot write '", temp_path, "': ", reason));
    }
  }
  if (std::rename(temp_path.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(temp_path.c_str());
    return absl::InternalError(absl::StrCat("cannot rename '", temp_path,
                                            "' to '", path, "': ", reason));
  }
  return absl::OkStatus();
}

absl::Status RemoveFileIfPresent(const std::string& path) {
  if (std::remove(path.c_str()) == 0 || errno == ENOENT) {
    return absl::OkStatus();
  }
  return absl::InternalError(
      absl::StrCat("cannot remove '", path, "': ", std::strerror(errno)));
}

}  // namespace fabricpulse::common
