// Which per-step series (busbw, algbw, latency, baseline, regression) of
// each plan label exist, so that their number stays bounded however many
// sweeps run (docs/metrics.md, "Series count").
//
// A step series is one label set {plan, op, dtype, size, placement,
// nranks}. Each is "current" (written since the plan's series were last
// replaced) or "old". Replace() drops the old ones and makes the current
// ones old: after it, a plan label holds exactly the steps written since the
// previous Replace(). A label set new to a plan label that already holds
// `cap` step series takes the place of its oldest old one; when every one is
// current, it is refused (not exported).
#pragma once

#include <cstddef>
#include <list>
#include <map>
#include <string>
#include <vector>

namespace fabricpulse::coordinator {

// Not thread-safe (CoordinatorMetrics guards it).
class StepSeriesIndex {
 public:
  using Labels = std::map<std::string, std::string>;

  // Whether the series `labels` of `plan` may be written; when it needs
  // room, `*evicted` gets the label set whose series must be removed first.
  // Marks it current.
  bool Admit(const std::string& plan, const Labels& labels, size_t cap,
             std::vector<Labels>* evicted);
  // Removes (returns) `plan`'s old series; the current ones become old. A
  // no-op when none is current (nothing was written since the last call).
  std::vector<Labels> Replace(const std::string& plan);
  // Step series of `plan` now.
  size_t size(const std::string& plan) const;

 private:
  struct Entry {
    bool current = true;
    std::list<Labels>::iterator old_position;  // valid when !current
  };
  struct Plan {
    std::map<Labels, Entry> entries;
    std::list<Labels> old;  // oldest first
  };
  std::map<std::string, Plan> plans_;
};

}  // namespace fabricpulse::coordinator
