#include "client/commands/node_check_command.h"

#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/core/bounded_file.h"
#include "fabricpulse/v1/types.pb.h"
#include "google/protobuf/util/json_util.h"

namespace fabricpulse::client {

namespace {

NodeCheckAnswer CheckAnswer(int code, std::string message) {
  if (message.size() > kNodeCheckMaxMessage) {
    message.resize(kNodeCheckMaxMessage);
  }
  return {code, std::move(message)};
}

absl::Time CheckAtUnix(double seconds) {
  return absl::UnixEpoch() + absl::Seconds(seconds);
}

std::string CheckMinute(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%MZ", t, absl::UTCTimeZone());
}

}  // namespace

NodeCheckAnswer JudgeVerdictFile(const absl::StatusOr<std::string>& text,
                                 absl::Time now, absl::Duration max_age) {
  if (!text.ok()) {
    return CheckAnswer(
        kNodeCheckUnknown,
        "no FabricPulse verdict file: agent down or not publishing");
  }
  v1::LocalVerdictFile file;
  if (!google::protobuf::util::JsonStringToMessage(*text, &file).ok()) {
    return CheckAnswer(kNodeCheckUnknown,
                       "FabricPulse verdict file unreadable");
  }
  const absl::Time written = CheckAtUnix(file.written_unix_seconds());
  if (file.written_unix_seconds() <= 0 || now - written > max_age) {
    return CheckAnswer(
        kNodeCheckUnknown,
        absl::StrCat("FabricPulse agent silent since ", CheckMinute(written)));
  }
  if (!file.has_verdict()) {
    return CheckAnswer(
        kNodeCheckUnknown,
        file.coordinator_answered_unix_seconds() > 0
            ? "no FabricPulse campaign covers this node"
            : "FabricPulse agent not heard by its coordinator yet");
  }
  const v1::NodeVerdictNotice& v = file.verdict();
  const double expires = v.expires_unix_seconds();
  if (expires > 0 && now >= CheckAtUnix(expires)) {
    return CheckAnswer(
        kNodeCheckUnknown,
        absl::StrCat("NCCL verdict ", v.verdict(), " expired at ",
                     CheckMinute(CheckAtUnix(expires)), " (plan ", v.plan(),
                     ")"));
  }
  const std::string tested =
      v.tested_unix_seconds() > 0
          ? absl::StrCat(", tested ",
                         CheckMinute(CheckAtUnix(v.tested_unix_seconds())))
          : "";
  const std::string line = absl::StrCat("NCCL verdict ", v.verdict(), " (plan ",
                                        v.plan(), tested, ")");
  if (v.verdict() == "fail" || v.verdict() == "degraded") {
    return CheckAnswer(kNodeCheckProblem, line);
  }
  if (v.verdict() == "pass" || v.verdict() == "suspect") {
    return CheckAnswer(kNodeCheckOk, line);
  }
  return CheckAnswer(kNodeCheckUnknown, line);  // untested, or unknown to us
}

int RunNodeCheckCommand(const NodeCheckFlags& flags) {
  absl::Duration max_age;
  if (!absl::ParseDuration(flags.max_age, &max_age) ||
      max_age < kNodeCheckMinMaxAge || max_age > kNodeCheckMaxMaxAge) {
    std::cout << CheckAnswer(
                     kNodeCheckUnknown,
                     absl::StrCat("--max-age: '", flags.max_age,
                                  "' is out of range; allowed: 2m to 24h"))
                     .message
              << std::endl;
    return kNodeCheckUnknown;
  }
  const NodeCheckAnswer answer = JudgeVerdictFile(
      core::ReadBoundedFile(flags.verdict_file, kNodeCheckMaxFileBytes,
                            "--verdict-file"),
      absl::Now(), max_age);
  std::cout << answer.message << std::endl;
  return answer.exit_code;
}

}  // namespace fabricpulse::client
