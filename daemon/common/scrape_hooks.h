// What the /metrics endpoint collects: a registry, after running the hooks
// that refresh the figures read only when someone looks (the agent's NIC
// series), so that a scrape sees them as they are at that moment and
// nothing reads them while nobody scrapes.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "prometheus/collectable.h"
#include "prometheus/registry.h"

namespace fabricpulse::common {

// Thread-safe. Scrapes (the endpoint's handler threads) run the hooks one
// scrape at a time, in the order they were added, then collect the registry.
class ScrapeHooks final : public prometheus::Collectable {
 public:
  explicit ScrapeHooks(std::shared_ptr<prometheus::Registry> registry)
      : registry_(std::move(registry)) {}

  void Add(std::function<void()> hook);
  // No hook runs once this returns: a scrape running them is waited for.
  void Clear();

  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  const std::shared_ptr<prometheus::Registry> registry_;
  mutable absl::Mutex mu_;
  std::vector<std::function<void()>> hooks_ ABSL_GUARDED_BY(mu_);
};

}  // namespace fabricpulse::common
