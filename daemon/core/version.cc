#include "daemon/core/version.h"

#include "absl/strings/str_cat.h"
#include "fabricpulse/version_info.h"

namespace fabricpulse::core {

std::string FormatVersion(absl::string_view number, absl::string_view commit,
                          bool dirty) {
  if (commit.empty()) return std::string(number);
  return absl::StrCat(number, "+", commit, dirty ? ".dirty" : "");
}

absl::string_view VersionNumber() { return FABRICPULSE_VERSION_NUMBER; }
absl::string_view GitCommit() { return FABRICPULSE_GIT_COMMIT; }
bool GitDirty() { return FABRICPULSE_GIT_DIRTY != 0; }

const std::string& Version() {
  static const std::string* const version = new std::string(
      FormatVersion(FABRICPULSE_VERSION_NUMBER, FABRICPULSE_GIT_COMMIT,
                    FABRICPULSE_GIT_DIRTY != 0));
  return *version;
}

std::string VersionLine(absl::string_view binary) {
  return absl::StrCat(binary, " ", Version());
}

}  // namespace fabricpulse::core
