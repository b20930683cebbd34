// A process's descendants from /proc, for tests that check that nothing a
// command started outlives it (processes tracked by pid, never by name).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace fabricpulse::testing {

// Every live descendant of `root` (children, their children, ...), from
// each /proc/PID/stat's parent pid; not `root` itself.
std::vector<pid_t> Descendants(pid_t root);

// Whether `pid` no longer runs: absent, or a zombie (dead, not yet reaped).
bool ProcessGone(pid_t pid);

// The argv of `pid` (/proc/PID/cmdline); empty when it is gone.
std::vector<std::string> CommandLine(pid_t pid);

// The value after `flag` in `pid`'s argv; empty when absent.
std::string FlagValue(pid_t pid, const std::string& flag);

// The number after "FIELD:" in /proc/PID/status ("VmRSS" in KiB,
// "Threads"); -1 when the process or the field is gone.
int64_t ProcStatusNumber(pid_t pid, const std::string& field);

}  // namespace fabricpulse::testing
