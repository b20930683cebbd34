// One small logger: timestamped lines on stderr, thread-safe.
#pragma once

#include <cstddef>

#include "absl/strings/string_view.h"

namespace fabricpulse::core {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };

// Sets the process-wide minimum level (default kInfo; FABRICPULSE_LOG=debug
// in the environment lowers it). Call from main before threads start.
void SetLogLevel(LogLevel level);
// Prefix added to every line (e.g. "agent node-a").
void SetLogTag(absl::string_view tag);

// Whether a line at `level` would be written now.
bool LogEnabled(LogLevel level);

// Messages longer than this are cut (the line says how much).
inline constexpr size_t kMaxLogMessageBytes = 16384;

// Writes one line: control characters in the tag and `message` are escaped
// (core::EscapeControl), so no message can start a line of its own.
void Log(LogLevel level, absl::string_view message);

}  // namespace fabricpulse::core

#define FP_LOG_DEBUG(msg) \
  ::fabricpulse::core::Log(::fabricpulse::core::LogLevel::kDebug, (msg))
#define FP_LOG_INFO(msg) \
  ::fabricpulse::core::Log(::fabricpulse::core::LogLevel::kInfo, (msg))
#define FP_LOG_WARNING(msg) \
  ::fabricpulse::core::Log(::fabricpulse::core::LogLevel::kWarning, (msg))
#define FP_LOG_ERROR(msg) \
  ::fabricpulse::core::Log(::fabricpulse::core::LogLevel::kError, (msg))
