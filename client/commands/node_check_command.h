// `fabricpulse node-check --verdict-file PATH`: node-problem-detector's
// custom plugin (issue 30). Reads the verdict the node's agent keeps with
// --verdict-file (v1::LocalVerdictFile) and answers with NPD's contract:
// exit 0 OK, 1 a problem, 2 unknown, and one line of at most
// kNodeCheckMaxMessage characters on stdout (NPD's max_output_length).
//  - problem: the verdict is fail or degraded (confirmed findings);
//  - OK: pass, or suspect (one unconfirmed bad measurement names nobody);
//  - unknown: no file or one that does not parse (agent stopped -- it
//    removes the file --, or not publishing), a file older than --max-age
//    (the agent died: it rewrites the file every minute), no verdict (no
//    campaign plan covers the node), untested, or a verdict past its expiry.
// A bad --max-age is unknown too (exit 2, the CLI's bad-input code).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace fabricpulse::client {

inline constexpr int kNodeCheckOk = 0;
inline constexpr int kNodeCheckProblem = 1;
inline constexpr int kNodeCheckUnknown = 2;
inline constexpr size_t kNodeCheckMaxMessage = 80;
// The agent's file is well under 1 KiB; anything larger is not its.
inline constexpr size_t kNodeCheckMaxFileBytes = 64 * 1024;
// Above the agent's refresh of the file (a minute), so that a live agent
// never reads as silent.
inline constexpr absl::Duration kNodeCheckMinMaxAge = absl::Minutes(2);
inline constexpr absl::Duration kNodeCheckMaxMaxAge = absl::Hours(24);

struct NodeCheckFlags {
  std::string verdict_file;
  std::string max_age = "3m";
};

struct NodeCheckAnswer {
  int exit_code = kNodeCheckUnknown;
  std::string message;  // <= kNodeCheckMaxMessage characters
};

// The answer for the verdict file's text (or the error reading it) at
// `now`.
NodeCheckAnswer JudgeVerdictFile(const absl::StatusOr<std::string>& text,
                                 absl::Time now, absl::Duration max_age);

// Prints the answer's line; returns its exit code.
int RunNodeCheckCommand(const NodeCheckFlags& flags);

}  // namespace fabricpulse::client
