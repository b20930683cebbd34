// Helpers for tests of the daemons' Prometheus series: the exposition text
// of a registry, and promtool's verdict on it.
#pragma once

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "prometheus/registry.h"
#include "prometheus/text_serializer.h"

namespace fabricpulse::testing {

// The registry as a scrape would see it.
inline std::string Serialize(prometheus::Registry& registry) {
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, registry.Collect());
  return out.str();
}

// Lines of the exposition text (series plus # HELP / # TYPE lines).
inline int CountLines(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

// The value line of `series` (name{labels} exactly as serialized), without
// the series; "" when the series is absent.
inline std::string ValueOf(const std::string& text, const std::string& series) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::ConsumePrefix(&line, series) && absl::ConsumePrefix(&line, " ")) {
      return std::string(line);
    }
  }
  return "";
}

// Runs a shell command; its combined output and exit status.
struct CommandResult {
  int exit_code = -1;
  std::string output;
};
inline CommandResult RunCommand(const std::string& command) {
  CommandResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) {
    result.output.append(buffer, n);
  }
  int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

// promtool from PATH (found with `which`); "" when not installed.
inline std::string FindPromtool() {
  CommandResult which = RunCommand("which promtool 2>/dev/null");
  std::string path = which.output;
  while (!path.empty() && (path.back() == '\n' || path.back() == '\r')) {
    path.pop_back();
  }
  return which.exit_code == 0 ? path : "";
}

// Pipes `text` into `promtool check metrics` (which both parses it and
// lints names, units and help texts).
inline CommandResult PromtoolCheckMetrics(const std::string& promtool,
                                          const std::string& text) {
  char path[] = "/tmp/fabricpulse-metrics-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return {-1, "cannot create a temporary file under /tmp"};
  close(fd);
  {
    std::ofstream out(path);
    out << text;
  }
  CommandResult result = RunCommand(
      absl::StrCat("'", promtool, "' check metrics < '", path, "' 2>&1"));
  unlink(path);
  return result;
}

inline constexpr char kPromtoolMissing[] =
    "promtool not found in PATH (`which promtool` failed). It lints the "
    "exposition text; install it (Debian: apt-get install prometheus) - CI "
    "does.";

}  // namespace fabricpulse::testing
