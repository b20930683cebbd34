#include "daemon/security/policy_source.h"

#include <sys/stat.h>

#include "absl/strings/str_cat.h"
#include "daemon/core/bounded_file.h"
#include "daemon/core/log.h"

namespace fabricpulse::security {
namespace {

struct Loaded {
  std::string stamp;  // inode, size and mtime: a change means re-read
  std::string text;
};

absl::StatusOr<Loaded> ReadPolicyFile(const std::string& file) {
  Loaded out;
  struct stat st;
  if (stat(file.c_str(), &st) == 0) {
    out.stamp = absl::StrCat(st.st_ino, ":", st.st_size, ":", st.st_mtim.tv_sec,
                             ".", st.st_mtim.tv_nsec);
  }
  absl::StatusOr<std::string> text =
      core::ReadBoundedFile(file, AuthzPolicy::kMaxJsonBytes, "--authz-policy");
  if (!text.ok()) return absl::InvalidArgumentError(text.status().message());
  out.text = *std::move(text);
  return out;
}

}  // namespace

std::shared_ptr<PolicySource> PolicySource::BuiltIn(
    Service service, absl::string_view trust_domain) {
  std::shared_ptr<PolicySource> out(new PolicySource());
  out->current_ = std::make_shared<const AuthzPolicy>(
      AuthzPolicy::Default(service, trust_domain));
  return out;
}

absl::StatusOr<std::shared_ptr<PolicySource>> PolicySource::FromFile(
    const std::string& file, absl::Duration refresh) {
  absl::StatusOr<Loaded> loaded = ReadPolicyFile(file);
  if (!loaded.ok()) return loaded.status();
  absl::StatusOr<AuthzPolicy> policy = AuthzPolicy::Parse(loaded->text);
  if (!policy.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--authz-policy ", file, ": ", policy.status().message()));
  }
  std::shared_ptr<PolicySource> out(new PolicySource());
  out->file_ = file;
  out->refresh_ = refresh;
  out->loaded_stamp_ = loaded->stamp;
  out->current_ = std::make_shared<const AuthzPolicy>(*std::move(policy));
  out->watcher_ = std::thread([raw = out.get()] { raw->Watch(); });
  return out;
}

PolicySource::~PolicySource() {
  stop_.Notify();
  if (watcher_.joinable()) watcher_.join();
}

std::shared_ptr<const AuthzPolicy> PolicySource::Current() const {
  absl::MutexLock lock(&mu_);
  return current_;
}

void PolicySource::Watch() {
  std::string failed_stamp;  // log a bad file once, not every refresh
  while (!stop_.WaitForNotificationWithTimeout(refresh_)) {
    absl::StatusOr<Loaded> loaded = ReadPolicyFile(file_);
    const std::string stamp = loaded.ok() ? loaded->stamp : "missing";
    if (stamp == loaded_stamp_ || stamp == failed_stamp) continue;
    absl::Status error = loaded.status();
    if (loaded.ok()) {
      absl::StatusOr<AuthzPolicy> policy = AuthzPolicy::Parse(loaded->text);
      if (policy.ok()) {
        auto next = std::make_shared<const AuthzPolicy>(*std::move(policy));
        FP_LOG_INFO(absl::StrCat("--authz-policy ", file_, ": policy '",
                                 next->name(), "' loaded"));
        absl::MutexLock lock(&mu_);
        current_ = std::move(next);
        loaded_stamp_ = stamp;
        failed_stamp.clear();
        continue;
      }
      error = policy.status();
    }
    FP_LOG_ERROR(
        absl::StrCat("--authz-policy ", file_,
                     ": kept the last good policy: ", error.message()));
    failed_stamp = stamp;
    rejected_++;
  }
}

}  // namespace fabricpulse::security
