// gloo::rendezvous::Store over our KeyValueStore, so that Gloo's rendezvous
// goes through the coordinator's key-value service.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "daemon/backend/key_value_store.h"
#include "gloo/rendezvous/store.h"

namespace fabricpulse::backend::gloo_impl {

// Values are raw bytes carried in std::string. Every wait is bounded by the
// `deadline` given at construction, not by the per-call timeout Gloo passes:
// Gloo derives that timeout from the context timeout, which the backend
// shortens so that Gloo's pair connect (bounded by 5x that timeout) fits in
// the rendezvous budget.
//
// Gloo's Store interface reports errors by throwing, so every method throws
// gloo::IoException on a store error (message says "timeout" for
// DEADLINE_EXCEEDED); the first such error is also kept as a status
// (error()) so the caller can return it unchanged. Thread-safe.
class KvStoreAdapter : public ::gloo::rendezvous::Store {
 public:
  // `store` must outlive the adapter.
  KvStoreAdapter(KeyValueStore* store, absl::Time deadline);

  void set(const std::string& key, const std::vector<char>& data) override;
  // Returns the value of `key`, waiting for it until the deadline.
  std::vector<char> get(const std::string& key) override;
  // Waits until every key exists or the deadline passes.
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override;

  // The first store error, or OK.
  absl::Status error() const;

 private:
  // Returns the value of `key` from the cache, or fetches it from the store
  // into the cache. Throws on error.
  std::string Fetch(const std::string& key);
  // Records `status` as the first error and throws it as gloo::IoException.
  [[noreturn]] void Throw(const absl::Status& status);

  KeyValueStore* const store_;
  const absl::Time deadline_;
  mutable std::mutex mu_;
  std::map<std::string, std::string> cache_ ABSL_GUARDED_BY(mu_);
  absl::Status first_error_ ABSL_GUARDED_BY(mu_);
};

}  // namespace fabricpulse::backend::gloo_impl
