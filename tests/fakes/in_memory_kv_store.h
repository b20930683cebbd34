// An in-process KeyValueStore for tests: ranks running as threads of one
// process rendezvous through it. Thread-safe; Get waits on a condition
// variable until the key appears or its timeout passes.
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "daemon/backend/key_value_store.h"

namespace fabricpulse::fakes {

class InMemoryKvStore : public backend::KeyValueStore {
 public:
  absl::Status Set(const std::string& key, const std::string& value) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!set_error_.ok()) return set_error_;
    data_[key] = value;
    cv_.notify_all();
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> Get(const std::string& key,
                                  absl::Duration timeout) override {
    // Clamped so that an infinite timeout does not overflow the clock.
    const auto deadline =
        std::chrono::steady_clock::now() +
        absl::ToChronoNanoseconds(std::min(timeout, absl::Hours(24)));
    std::unique_lock<std::mutex> lock(mu_);
    if (!get_error_.ok()) return get_error_;
    const bool found = cv_.wait_until(
        lock, deadline, [&] { return data_.find(key) != data_.end(); });
    if (!found) {
      return absl::DeadlineExceededError(
          absl::StrCat("key '", key, "' did not appear within ",
                       absl::FormatDuration(timeout)));
    }
    return data_.at(key);
  }

  // Makes every later Set (Get) return `status`; OK clears the injection.
  void InjectSetError(absl::Status status) {
    std::lock_guard<std::mutex> lock(mu_);
    set_error_ = std::move(status);
  }
  void InjectGetError(absl::Status status) {
    std::lock_guard<std::mutex> lock(mu_);
    get_error_ = std::move(status);
  }

  size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return data_.size();
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::string> data_ ABSL_GUARDED_BY(mu_);
  absl::Status set_error_ ABSL_GUARDED_BY(mu_);
  absl::Status get_error_ ABSL_GUARDED_BY(mu_);
};

}  // namespace fabricpulse::fakes
