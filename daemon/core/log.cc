#include "daemon/core/log.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "daemon/core/name_rules.h"

namespace fabricpulse::core {
namespace {

struct LoggerState {
  std::mutex mu;
  std::string tag;
  std::atomic<int> level{-1};
};

LoggerState& State() {
  static LoggerState* state = new LoggerState();
  return *state;
}

int EffectiveLevel() {
  int level = State().level.load();
  if (level >= 0) return level;
  const char* env = std::getenv("FABRICPULSE_LOG");
  level = (env != nullptr && std::string(env) == "debug")
              ? static_cast<int>(LogLevel::kDebug)
              : static_cast<int>(LogLevel::kInfo);
  State().level.store(level);
  return level;
}

const char* LevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "D";
    case LogLevel::kInfo:
      return "I";
    case LogLevel::kWarning:
      return "W";
    case LogLevel::kError:
      return "E";
  }
  return "?";
}

}  // namespace

void SetLogLevel(LogLevel level) {
  State().level.store(static_cast<int>(level));
}

void SetLogTag(absl::string_view tag) {
  std::lock_guard<std::mutex> lock(State().mu);
  State().tag = std::string(tag);
}

bool LogEnabled(LogLevel level) {
  return static_cast<int>(level) >= EffectiveLevel();
}

void Log(LogLevel level, absl::string_view message) {
  if (static_cast<int>(level) < EffectiveLevel()) return;
  // A line is one line whatever a client put into the message (a newline in
  // a node name would forge the next line), and bounded.
  std::string text;
  if (message.size() > kMaxLogMessageBytes) {
    text = absl::StrCat(EscapeControl(message.substr(0, kMaxLogMessageBytes)),
                        "... (", message.size() - kMaxLogMessageBytes,
                        " more bytes)");
  } else {
    text = EscapeControl(message);
  }
  std::lock_guard<std::mutex> lock(State().mu);
  std::string line = absl::StrCat(
      LevelName(level), " ",
      absl::FormatTime("%H:%M:%E3S", absl::Now(), absl::UTCTimeZone()), " ",
      EscapeControl(State().tag), State().tag.empty() ? "" : ": ", text, "\n");
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace fabricpulse::core
