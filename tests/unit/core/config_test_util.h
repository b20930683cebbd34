// Helpers for tests of the coordinator config parser.
#pragma once

#include <initializer_list>
#include <string>

#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "daemon/core/coordinator_config.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {

// Lines joined with '\n', so that element i is file line i + 1.
inline std::string Yaml(std::initializer_list<absl::string_view> lines) {
  return absl::StrJoin(lines, "\n");
}

// The error message of parsing `text` ("OK" when it parses).
inline std::string ErrorOf(const std::string& text) {
  absl::StatusOr<CoordinatorConfig> config = ParseCoordinatorConfig(text);
  if (config.ok()) return "OK";
  EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(config.status().message());
}

}  // namespace fabricpulse::core
