#include "daemon/security/call_limiter.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "daemon/security/caller.h"

namespace fabricpulse::security {

CallSlot::CallSlot(CallSlot&& other) noexcept
    : limiter_(std::exchange(other.limiter_, nullptr)),
      key_(std::move(other.key_)) {}

CallSlot& CallSlot::operator=(CallSlot&& other) noexcept {
  if (this != &other) {
    Release();
    limiter_ = std::exchange(other.limiter_, nullptr);
    key_ = std::move(other.key_);
  }
  return *this;
}

CallSlot::~CallSlot() { Release(); }

void CallSlot::Release() {
  if (limiter_ != nullptr) limiter_->Release(key_);
  limiter_ = nullptr;
}

CallLimiter::CallLimiter(Limits limits)
    : limits_{std::clamp(limits.per_identity, 1, 1024),
              std::clamp(limits.anonymous, 1, 1024)} {}

absl::StatusOr<CallSlot> CallLimiter::Acquire(
    const grpc::ServerContextBase& context) {
  std::optional<Identity> id = CallerIdentity(context);
  return AcquireFor(id ? id->ToString() : std::string(kAnonymous));
}

absl::StatusOr<CallSlot> CallLimiter::AcquireFor(const std::string& key) {
  absl::MutexLock lock(&mu_);
  int& count = in_flight_[key];
  const bool anonymous = key == kAnonymous;
  if (count >= (anonymous ? limits_.anonymous : limits_.per_identity)) {
    refused_++;
    return absl::ResourceExhaustedError(absl::StrCat(
        key.substr(0, 96), anonymous ? " have " : " has ", count,
        " calls in flight, the most ",
        anonymous ? "they may have together" : "one identity may have",
        " at once; retry when one has ended"));
  }
  count++;
  return CallSlot(this, key);
}

void CallLimiter::Release(const std::string& key) {
  absl::MutexLock lock(&mu_);
  auto it = in_flight_.find(key);
  if (it == in_flight_.end()) return;
  if (--it->second <= 0) in_flight_.erase(it);
}

int CallLimiter::InFlight(const std::string& key) const {
  absl::MutexLock lock(&mu_);
  auto it = in_flight_.find(key);
  return it == in_flight_.end() ? 0 : it->second;
}

size_t CallLimiter::identities() const {
  absl::MutexLock lock(&mu_);
  return in_flight_.size();
}

uint64_t CallLimiter::refused() const {
  absl::MutexLock lock(&mu_);
  return refused_;
}

}  // namespace fabricpulse::security
