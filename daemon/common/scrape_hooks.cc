#include "daemon/common/scrape_hooks.h"

namespace fabricpulse::common {

void ScrapeHooks::Add(std::function<void()> hook) {
  absl::MutexLock lock(&mu_);
  hooks_.push_back(std::move(hook));
}

void ScrapeHooks::Clear() {
  absl::MutexLock lock(&mu_);
  hooks_.clear();
}

std::vector<prometheus::MetricFamily> ScrapeHooks::Collect() const {
  {
    absl::MutexLock lock(&mu_);
    for (const std::function<void()>& hook : hooks_) hook();
  }
  return registry_->Collect();
}

}  // namespace fabricpulse::common
