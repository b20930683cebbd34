#include "daemon/backend/gloo/kv_store_adapter.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gloo/common/error.h"

namespace fabricpulse::backend::gloo_impl {

KvStoreAdapter::KvStoreAdapter(KeyValueStore* store, absl::Time deadline)
    : store_(store), deadline_(deadline) {}

void KvStoreAdapter::set(const std::string& key,
                         const std::vector<char>& data) {
  absl::Status status = store_->Set(key, std::string(data.begin(), data.end()));
  if (!status.ok()) {
    Throw(absl::Status(status.code(), absl::StrCat("rendezvous: set '", key,
                                                   "': ", status.message())));
  }
}

std::vector<char> KvStoreAdapter::get(const std::string& key) {
  std::string value = Fetch(key);
  return std::vector<char>(value.begin(), value.end());
}

void KvStoreAdapter::wait(const std::vector<std::string>& keys) {
  for (const std::string& key : keys) Fetch(key);
}

void KvStoreAdapter::wait(const std::vector<std::string>& keys,
                          const std::chrono::milliseconds& /*timeout*/) {
  wait(keys);
}

absl::Status KvStoreAdapter::error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return first_error_;
}

std::string KvStoreAdapter::Fetch(const std::string& key) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
  }
  // Gloo waits for a key and then gets it; caching the value turns that
  // into one store round trip. A zero timeout still asks the store once.
  const absl::Duration remaining =
      std::max(deadline_ - absl::Now(), absl::ZeroDuration());
  absl::StatusOr<std::string> value = store_->Get(key, remaining);
  if (!value.ok()) {
    if (absl::IsDeadlineExceeded(value.status())) {
      Throw(absl::DeadlineExceededError(absl::StrCat(
          "rendezvous: timeout waiting for key '", key,
          "' (a peer did not arrive in time): ", value.status().message())));
    }
    Throw(absl::Status(value.status().code(),
                       absl::StrCat("rendezvous: get '", key,
                                    "': ", value.status().message())));
  }
  std::lock_guard<std::mutex> lock(mu_);
  return cache_.emplace(key, *std::move(value)).first->second;
}

void KvStoreAdapter::Throw(const absl::Status& status) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (first_error_.ok()) first_error_ = status;
  }
  throw ::gloo::IoException(std::string(status.message()));
}

}  // namespace fabricpulse::backend::gloo_impl
