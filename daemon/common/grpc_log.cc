#include "daemon/common/grpc_log.h"

#include <grpc/support/log.h>

#include <atomic>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace fabricpulse::common {
namespace {

std::atomic<int> g_error_level{static_cast<int>(core::LogLevel::kWarning)};

absl::string_view BaseName(absl::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == absl::string_view::npos ? path : path.substr(slash + 1);
}

void Forward(gpr_log_func_args* args) {
  const absl::string_view message =
      args->message == nullptr ? "" : args->message;
  const core::LogLevel level =
      GrpcLineLevel(args->severity == GPR_LOG_SEVERITY_ERROR, message,
                    static_cast<core::LogLevel>(g_error_level.load()));
  core::Log(
      level,
      absl::StrCat("grpc: ", BaseName(args->file == nullptr ? "" : args->file),
                   ":", args->line, ": ", message));
}

}  // namespace

core::LogLevel GrpcLineLevel(bool grpc_error, absl::string_view message,
                             core::LogLevel error_level) {
  if (!grpc_error) return core::LogLevel::kDebug;
  for (absl::string_view routine : kRoutineGrpcLines) {
    if (absl::StrContains(message, routine)) return core::LogLevel::kDebug;
  }
  return error_level;
}

void RouteGrpcLogs(core::LogLevel error_level) {
  g_error_level.store(static_cast<int>(error_level));
  gpr_set_log_function(Forward);
  gpr_set_log_verbosity(core::LogEnabled(core::LogLevel::kDebug)
                            ? GPR_LOG_SEVERITY_INFO
                            : GPR_LOG_SEVERITY_ERROR);
}

}  // namespace fabricpulse::common
