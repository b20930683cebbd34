#include "daemon/coordinator/store/history_retention.h"

#include "absl/strings/str_cat.h"
#include "daemon/core/byte_size.h"
#include "daemon/core/log.h"

namespace fabricpulse::coordinator {

HistoryRetention::HistoryRetention(HistoryStore* history,
                                   const RetentionPolicy& policy,
                                   core::Clock* clock)
    : history_(history), policy_(policy), clock_(clock) {}

absl::StatusOr<PruneResult> HistoryRetention::RunNow() {
  return history_->Prune(clock_->Now() - policy_.max_age, policy_.max_bytes);
}

bool HistoryRetention::Tick() {
  const absl::Time now = clock_->Now();
  const uint64_t finished = history_->finished_count();
  if (finished == last_finished_ && now - last_run_ < policy_.interval) {
    return false;
  }
  last_run_ = now;
  last_finished_ = finished;
  absl::StatusOr<PruneResult> result = RunNow();
  if (!result.ok()) {
    // Tried again after the next sweep or the interval, so logged at most
    // that often.
    FP_LOG_ERROR(
        absl::StrCat("history retention: ", result.status().message()));
    return true;
  }
  const int removed = result->removed_by_age + result->removed_by_size;
  if (removed > 0) {
    FP_LOG_INFO(absl::StrCat(
        "history retention: removed ", removed, " sweep(s) (",
        result->removed_by_age, " older than ",
        absl::FormatDuration(policy_.max_age), ", ", result->removed_by_size,
        " over ", core::HumanByteSize(policy_.max_bytes), "); file ",
        core::HumanByteSize(result->bytes_before), " -> ",
        core::HumanByteSize(result->bytes_after)));
  }
  return true;
}

}  // namespace fabricpulse::coordinator
