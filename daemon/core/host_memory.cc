#include "daemon/core/host_memory.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace fabricpulse::core {
namespace {

// cgroup v1 reports "no limit" as LONG_MAX rounded down to a page; any
// figure this large is no limit in practice.
constexpr uint64_t kNoLimitFrom = uint64_t{1} << 62;

}  // namespace

absl::StatusOr<uint64_t> ParseMemAvailable(absl::string_view meminfo) {
  constexpr absl::string_view kKey = "MemAvailable:";
  for (absl::string_view line : absl::StrSplit(meminfo, '\n')) {
    if (!absl::StartsWith(line, kKey)) continue;
    std::vector<absl::string_view> parts =
        absl::StrSplit(absl::StripAsciiWhitespace(line.substr(kKey.size())),
                       ' ', absl::SkipEmpty());
    uint64_t kib = 0;
    if (parts.size() != 2 || parts[1] != "kB" ||
        !absl::SimpleAtoi(parts[0], &kib) ||
        kib > std::numeric_limits<uint64_t>::max() / 1024) {
      return absl::InvalidArgumentError(
          "/proc/meminfo: MemAvailable is not \"<number> kB\"");
    }
    return kib * 1024;
  }
  return absl::NotFoundError(
      "/proc/meminfo has no MemAvailable line (Linux 3.14 or later has one)");
}

std::optional<uint64_t> ParseCgroupBytes(absl::string_view text) {
  uint64_t bytes = 0;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(text), &bytes) ||
      bytes >= kNoLimitFrom) {
    return std::nullopt;
  }
  return bytes;
}

uint64_t HostAvailableBytes(uint64_t mem_available,
                            std::optional<uint64_t> cgroup_limit,
                            std::optional<uint64_t> cgroup_usage) {
  if (!cgroup_limit || !cgroup_usage) return mem_available;
  const uint64_t room =
      *cgroup_usage >= *cgroup_limit ? 0 : *cgroup_limit - *cgroup_usage;
  return std::min(mem_available, room);
}

}  // namespace fabricpulse::core
