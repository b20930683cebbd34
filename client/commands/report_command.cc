#include "client/commands/report_command.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "client/commands/exit_codes.h"
#include "client/report/report_loader.h"
#include "client/report/report_page.h"
#include "daemon/core/version.h"

namespace fabricpulse::client {
namespace {

std::string FolderOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Writes `text` to `path` through a temporary file in the same folder
// renamed over it. Errors: INTERNAL naming the file and errno's text.
absl::Status WriteAtomically(const std::string& path, const std::string& text) {
  const std::string temp = absl::StrCat(path, ".tmp-", getpid());
  const int fd =
      open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) {
    return absl::InternalError(
        absl::StrCat("-o: cannot create ", temp, ": ", std::strerror(errno)));
  }
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      close(fd);
      unlink(temp.c_str());
      return absl::InternalError(
          absl::StrCat("-o: cannot write ", temp, ": ", std::strerror(err)));
    }
    done += static_cast<size_t>(n);
  }
  if (close(fd) != 0 || rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    unlink(temp.c_str());
    return absl::InternalError(
        absl::StrCat("-o: cannot write ", path, ": ", std::strerror(err)));
  }
  return absl::OkStatus();
}

int ExitCodeForLoad(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kInvalidArgument:
      return kExitBadInput;
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kDeadlineExceeded:
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kUnauthenticated:
      return kExitUnreachable;
    default:
      return kExitFailed;
  }
}

}  // namespace

absl::Status CheckReportFlags(const ReportFlags& flags) {
  if (flags.output_file.empty()) {
    return absl::InvalidArgumentError(
        "-o: the report's file is required (report -o FILE.html)");
  }
  const std::string folder = FolderOf(flags.output_file);
  if (access(folder.c_str(), W_OK | X_OK) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "-o: cannot write into folder ", folder, ": ", std::strerror(errno)));
  }
  const int ways = (flags.sweep_id.empty() ? 0 : 1) + (flags.last > 0 ? 1 : 0) +
                   (flags.plan.empty() ? 0 : 1);
  if (ways > 1) {
    return absl::InvalidArgumentError(
        "report: give one of --sweep, --last and --plan");
  }
  if (flags.last < 0 || flags.last > report::kMaxReportSweeps) {
    return absl::InvalidArgumentError(
        absl::StrCat("--last: ", flags.last, " is out of range; allowed: 1 to ",
                     report::kMaxReportSweeps));
  }
  if (!flags.since.empty()) {
    if (flags.plan.empty()) {
      return absl::InvalidArgumentError(
          "--since: only with --plan (the window of the plan's history)");
    }
    return report::ParseSince(flags.since).status();
  }
  return absl::OkStatus();
}

int RunReportCommand(const CoordinatorTarget& coordinator,
                     const ReportFlags& flags) {
  if (absl::Status bad = CheckReportFlags(flags); !bad.ok()) {
    PrintError(std::string(bad.message()));
    return kExitBadInput;
  }
  report::ReportSelection selection;
  selection.sweep_id = flags.sweep_id;
  selection.last = flags.last;
  selection.plan = flags.plan;
  if (!flags.since.empty()) selection.since = *report::ParseSince(flags.since);
  auto stub = ConnectCoordinator(coordinator);
  if (!stub.ok()) return ReportConnectError(stub.status());
  const absl::Time now = absl::Now();
  absl::StatusOr<report::ReportContent> content =
      report::LoadReport(**stub, selection, now);
  if (!content.ok()) {
    const int code = ExitCodeForLoad(content.status());
    PrintError(absl::StrCat(
        "report: ", code == kExitUnreachable ? "coordinator: " : "",
        content.status().message()));
    return code;
  }
  content->tool_version = core::VersionLine("fabricpulse");
  content->generated = now;
  if (absl::Status written = WriteAtomically(
          flags.output_file, report::RenderReportPage(*content));
      !written.ok()) {
    PrintError(std::string(written.message()));
    return kExitFailed;
  }
  std::printf("report: wrote %s (%s)\n", flags.output_file.c_str(),
              content->selection.c_str());
  return kExitOk;
}

}  // namespace fabricpulse::client
