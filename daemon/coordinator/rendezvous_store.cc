#include "daemon/coordinator/rendezvous_store.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace fabricpulse::coordinator {

absl::Status RendezvousStore::Set(const std::string& key, std::string value) {
  if (key.empty()) return absl::InvalidArgumentError("key: must not be empty");
  absl::MutexLock lock(&mu_);
  values_[key] = std::move(value);
  sets_++;
  return absl::OkStatus();
}

absl::StatusOr<std::string> RendezvousStore::Get(const std::string& key,
                                                 absl::Duration wait) {
  absl::MutexLock lock(&mu_);
  auto present = [this, &key]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return values_.count(key) > 0;
  };
  if (!mu_.AwaitWithTimeout(absl::Condition(&present), wait)) {
    return absl::DeadlineExceededError(absl::StrCat(
        "key '", key, "' not set within ", absl::FormatDuration(wait)));
  }
  return values_[key];
}

void RendezvousStore::ErasePrefix(const std::string& prefix) {
  absl::MutexLock lock(&mu_);
  for (auto it = values_.lower_bound(prefix);
       it != values_.end() && absl::StartsWith(it->first, prefix);) {
    it = values_.erase(it);
  }
}

uint64_t RendezvousStore::sets() const {
  absl::MutexLock lock(&mu_);
  return sets_;
}

}  // namespace fabricpulse::coordinator
