// A simulated fleet for the campaign tests: nodes over two racks; a group
// sweep runs at kSimRef times its slowest member's speed times noise drawn
// uniformly from [1 - spread, 1 + spread] by a fixed generator (the same
// runs every time for the same seed); with Hiccups(rate, factor), a sweep
// also runs at `factor` with probability `rate` (a noisy fabric under load:
// one bad number, not a bad node); a dead node's groups fail.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "daemon/core/campaign.h"
#include "daemon/core/campaign_groups.h"
#include "daemon/core/node_verdict.h"

namespace fabricpulse::core {

inline constexpr double kSimRef = 100e9;

class SimFleet {
 public:
  SimFleet(int n, double spread, uint64_t seed = 42)
      : spread_(spread), state_(seed) {
    for (int i = 0; i < n; ++i) {
      const std::string name = absl::StrCat("gpu-", 100 + i);
      nodes_.push_back({name, {{"rack", absl::StrCat("r", i % 2)}}});
      speed_[name] = 1.0;
    }
  }

  void Slow(const std::string& node, double speed) { speed_[node] = speed; }
  void Kill(const std::string& node) { dead_.insert(node); }
  void Hiccups(double rate, double factor) {
    hiccup_rate_ = rate;
    hiccup_factor_ = factor;
  }
  const std::vector<CampaignNode>& nodes() const { return nodes_; }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const CampaignNode& n : nodes_) out.push_back(n.name);
    return out;
  }

  // One group sweep as the campaign sees it.
  GroupMeasurement Sweep(const std::vector<std::string>& group, absl::Time at) {
    GroupMeasurement m;
    m.sweep_id = absl::StrCat("sweep-", ++sweeps_);
    m.at = at;
    for (const std::string& n : group) {
      if (dead_.count(n) > 0) {
        m.error = absl::StrCat("agent ", n, " is lost");
        return m;
      }
    }
    double speed = 1.0;
    for (const std::string& n : group) speed = std::min(speed, speed_.at(n));
    m.ok = true;
    m.busbw = kSimRef * speed * (1 - spread_ + 2 * spread_ * Uniform());
    if (hiccup_rate_ > 0 && Uniform() < hiccup_rate_) m.busbw *= hiccup_factor_;
    return m;
  }

  // The same, judged against kSimRef (for the book alone).
  GroupResult Measure(const std::vector<std::string>& group, absl::Time at) {
    const GroupMeasurement m = Sweep(group, at);
    GroupResult r;
    r.nodes = group;
    r.ok = m.ok;
    r.busbw = m.busbw;
    r.error = m.error;
    r.reference_busbw = kSimRef;
    r.sweep_id = m.sweep_id;
    r.at = at;
    return r;
  }

 private:
  double Uniform() {
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state_ >> 11) / static_cast<double>(1ull << 53);
  }

  double spread_;
  double hiccup_rate_ = 0;
  double hiccup_factor_ = 1;
  uint64_t state_;
  int sweeps_ = 0;
  std::vector<CampaignNode> nodes_;
  std::map<std::string, double> speed_;
  std::set<std::string> dead_;
};

}  // namespace fabricpulse::core
