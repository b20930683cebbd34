#include "daemon/worker/fault_injection.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace fabricpulse::worker {

absl::StatusOr<LateRankFault> ParseLateRankFault(const std::string& value) {
  LateRankFault fault;
  if (value.empty()) return fault;
  const std::vector<std::string> parts = absl::StrSplit(value, ':');
  int rank = -1;
  int every = 1;
  absl::Duration delay;
  if ((parts.size() != 2 && parts.size() != 3) ||
      !absl::SimpleAtoi(parts[0], &rank) || rank < 0 ||
      !absl::ParseDuration(parts[1], &delay) || delay <= absl::ZeroDuration() ||
      delay > absl::Seconds(10) ||
      (parts.size() == 3 &&
       (!absl::SimpleAtoi(parts[2], &every) || every < 1))) {
    return absl::InvalidArgumentError(absl::StrCat(
        kLateRankFaultEnv, ": expected RANK:DURATION[:EVERY] with RANK >= 0, ",
        "0 < DURATION <= 10s and EVERY >= 1 (e.g. 3:5ms); got \"", value,
        "\""));
  }
  fault.rank = rank;
  fault.delay = delay;
  fault.every = every;
  return fault;
}

}  // namespace fabricpulse::worker
