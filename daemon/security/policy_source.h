// The authorization policy in force: the built-in one, or a policy file
// (--authz-policy) re-read when it changes. A file that no longer parses
// keeps the last good policy in force and is logged.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "daemon/security/authz_policy.h"

namespace fabricpulse::security {

// Thread-safe.
class PolicySource {
 public:
  // The built-in policy of `service`.
  static std::shared_ptr<PolicySource> BuiltIn(Service service,
                                               absl::string_view trust_domain);
  // The policy in `file` (a regular file of at most
  // AuthzPolicy::kMaxJsonBytes), checked every `refresh`. Errors:
  // INVALID_ARGUMENT naming --authz-policy, the file and what is wrong.
  static absl::StatusOr<std::shared_ptr<PolicySource>> FromFile(
      const std::string& file, absl::Duration refresh);
  ~PolicySource();  // stops the file watch

  std::shared_ptr<const AuthzPolicy> Current() const;
  // Changed versions of the file that were refused (unreadable or bad).
  uint64_t rejected() const { return rejected_.load(); }

 private:
  PolicySource() = default;
  void Watch();

  std::string file_;
  absl::Duration refresh_;
  std::string loaded_stamp_;  // the watch thread's own
  mutable absl::Mutex mu_;
  std::shared_ptr<const AuthzPolicy> current_ ABSL_GUARDED_BY(mu_);
  std::atomic<uint64_t> rejected_{0};
  absl::Notification stop_;
  std::thread watcher_;
};

}  // namespace fabricpulse::security
