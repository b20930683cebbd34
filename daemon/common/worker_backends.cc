#include "daemon/common/worker_backends.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "daemon/common/process.h"

namespace fabricpulse::common {
namespace {

// The first line of what the worker wrote, for an error message.
std::string FirstLine(absl::string_view output) {
  output = absl::StripAsciiWhitespace(output);
  return std::string(output.substr(0, output.find('\n')));
}

}  // namespace

absl::StatusOr<std::vector<std::string>> QueryWorkerBackends(
    const std::string& worker_binary, absl::Duration timeout) {
  const std::string command =
      absl::StrCat(worker_binary, " ", kWorkerBackendsFlag);
  absl::StatusOr<CommandResult> run =
      RunCommand({worker_binary, kWorkerBackendsFlag}, timeout);
  if (!run.ok()) {
    return absl::Status(run.status().code(),
                        absl::StrCat(command, ": ", run.status().message()));
  }
  const std::string said = FirstLine(run->output);
  if (run->exit.signal != 0 || run->exit.exit_code != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(command, ": ", run->exit.Describe(),
                     said.empty() ? "" : absl::StrCat(": ", said)));
  }
  std::vector<std::string> names =
      absl::StrSplit(said, absl::ByAnyChar(" \t"), absl::SkipEmpty());
  if (names.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat(command, ": printed no backend"));
  }
  return names;
}

}  // namespace fabricpulse::common
