#include "daemon/core/campaign_run.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "daemon/core/range_error.h"

namespace fabricpulse::core {

absl::Status CampaignSettings::Validate() const {
  if (max_concurrent_groups < 1 ||
      max_concurrent_groups > kMaxConcurrentGroups) {
    return RangeError("max_concurrent_groups",
                      absl::StrCat(max_concurrent_groups),
                      absl::StrCat("1 to ", kMaxConcurrentGroups));
  }
  if (!(max_fleet_fraction > 0 && max_fleet_fraction <= 1)) {
    return RangeError("max_fleet_fraction", absl::StrCat(max_fleet_fraction),
                      "more than 0, up to 1 (a share of the fleet's nodes)");
  }
  if (!(window > absl::ZeroDuration() && window <= kMaxCampaignWindow)) {
    return RangeError("window", absl::FormatDuration(window),
                      "more than 0s, up to 168h");
  }
  if (!(busy_retry > absl::ZeroDuration() && busy_retry <= window)) {
    return RangeError("busy_retry", absl::FormatDuration(busy_retry),
                      absl::StrCat("more than 0s, up to the window (",
                                   absl::FormatDuration(window), ")"));
  }
  return absl::OkStatus();
}

absl::StatusOr<CampaignRun> CampaignRun::Create(
    const std::vector<std::vector<std::string>>& groups,
    const CampaignSettings& settings, absl::Time start) {
  if (absl::Status status = settings.Validate(); !status.ok()) return status;
  CampaignRun run(settings, start);
  for (const std::vector<std::string>& group : groups) {
    if (group.empty()) {
      return absl::InvalidArgumentError("campaign: a group has no nodes");
    }
    for (const std::string& node : group) {
      if (!run.first_pass_nodes_.insert(node).second) {
        return absl::InvalidArgumentError(absl::StrCat(
            "campaign: node \"", node, "\" is in two groups of one pass"));
      }
    }
    run.group_size_ = std::max(run.group_size_, group.size());
    run.AddPending(group, false, absl::InfinitePast());
  }
  run.fleet_ = run.first_pass_nodes_.size();
  return run;
}

void CampaignRun::AddPending(std::vector<std::string> nodes, bool second_pass,
                             absl::Time not_before) {
  std::sort(nodes.begin(), nodes.end());
  pending_[next_id_++] = Pending{std::move(nodes), second_pass, not_before};
}

bool CampaignRun::WindowOver(absl::Time now) const {
  return now >= start_ + settings_.window;
}

bool CampaignRun::Idle(const std::string& node) const {
  if (running_nodes_.count(node) > 0 || loose_.count(node) > 0) return false;
  for (const auto& [id, pending] : pending_) {
    if (std::binary_search(pending.nodes.begin(), pending.nodes.end(), node)) {
      return false;
    }
  }
  return true;
}

void CampaignRun::Regroup(absl::Time now) {
  std::vector<std::string> due;
  for (const auto& [node, not_before] : loose_) {
    if (not_before <= now) due.push_back(node);
  }
  if (due.empty()) return;
  size_t at = 0;
  while (at < due.size()) {
    const size_t left = due.size() - at;
    std::vector<std::string> group;
    if (group_size_ >= 2 && left == 1) {
      // A lone node needs a partner: one this campaign measured, not busy
      // with anything now; none: it waits for the next finish.
      std::string partner;
      for (const std::string& node : measured_) {
        if (node != due[at] && Idle(node)) {
          partner = node;
          break;
        }
      }
      if (partner.empty()) break;
      group = {due[at], partner};
      at += 1;
    } else {
      const size_t take = std::min(group_size_, left);
      group.assign(due.begin() + at, due.begin() + at + take);
      at += take;
    }
    for (const std::string& node : group) loose_.erase(node);
    AddPending(std::move(group), false, now);
  }
}

bool CampaignRun::Fits(const std::vector<std::string>& nodes) const {
  for (const std::string& node : nodes) {
    if (running_nodes_.count(node) > 0) return false;
  }
  if (running_.empty()) return true;
  if (running_.size() >= static_cast<size_t>(settings_.max_concurrent_groups)) {
    return false;
  }
  const size_t node_bound = std::max<size_t>(
      1, static_cast<size_t>(
             std::floor(settings_.max_fleet_fraction * fleet_ + 1e-9)));
  return running_nodes_.size() + nodes.size() <= node_bound;
}

std::vector<CampaignGroup> CampaignRun::Due(absl::Time now) {
  std::vector<CampaignGroup> out;
  if (WindowOver(now)) return out;
  Regroup(now);
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (it->second.not_before > now || !Fits(it->second.nodes)) {
      ++it;
      continue;
    }
    CampaignGroup group{it->first, std::move(it->second.nodes),
                        it->second.second_pass};
    running_nodes_.insert(group.nodes.begin(), group.nodes.end());
    running_[group.id] = group;
    out.push_back(std::move(group));
    it = pending_.erase(it);
  }
  return out;
}

void CampaignRun::Measured(int id) {
  auto it = running_.find(id);
  if (it == running_.end()) return;
  for (const std::string& node : it->second.nodes) {
    running_nodes_.erase(node);
    measured_.insert(node);
  }
  running_.erase(it);
}

void CampaignRun::Busy(int id, const std::vector<std::string>& busy,
                       absl::Time now) {
  auto it = running_.find(id);
  if (it == running_.end()) return;
  CampaignGroup group = std::move(it->second);
  running_.erase(it);
  for (const std::string& node : group.nodes) running_nodes_.erase(node);
  const absl::Time retry = now + settings_.busy_retry;
  if (group.second_pass) {
    AddPending(std::move(group.nodes), true, retry);
    return;
  }
  const std::set<std::string> busy_set(busy.begin(), busy.end());
  for (const std::string& node : group.nodes) {
    // A partner lent to a lone node was measured already: it is only freed.
    if (measured_.count(node) > 0) continue;
    const bool is_busy = busy_set.empty() || busy_set.count(node) > 0;
    loose_[node] = is_busy ? retry : now;
  }
}

void CampaignRun::AddSecondPasses(
    const std::vector<std::vector<std::string>>& groups) {
  for (const std::vector<std::string>& group : groups) {
    if (group.empty()) continue;
    bool overlaps = false;
    for (const auto& [id, pending] : pending_) {
      if (!pending.second_pass) continue;
      for (const std::string& node : group) {
        overlaps = overlaps || std::binary_search(pending.nodes.begin(),
                                                  pending.nodes.end(), node);
      }
    }
    if (!overlaps) AddPending(group, true, absl::InfinitePast());
  }
}

bool CampaignRun::FirstPassDone(absl::Time now) const {
  for (const auto& [id, group] : running_) {
    if (!group.second_pass) return false;
  }
  if (WindowOver(now)) return true;
  if (!loose_.empty()) return false;
  for (const auto& [id, pending] : pending_) {
    if (!pending.second_pass) return false;
  }
  return true;
}

bool CampaignRun::Finished(absl::Time now) const {
  if (!running_.empty()) return false;
  return WindowOver(now) || (pending_.empty() && loose_.empty());
}

absl::Time CampaignRun::NextWake(absl::Time now) const {
  absl::Time wake = absl::InfiniteFuture();
  for (const auto& [id, pending] : pending_) {
    if (pending.not_before > now) wake = std::min(wake, pending.not_before);
  }
  for (const auto& [node, not_before] : loose_) {
    if (not_before > now) wake = std::min(wake, not_before);
  }
  // Something still waits: the window's end at the latest, when Finished
  // turns true and what waits ends unmeasured.
  if (!pending_.empty() || !loose_.empty()) {
    wake = std::min(wake, start_ + settings_.window);
  }
  return wake;
}

std::vector<std::string> CampaignRun::Unmeasured() const {
  std::vector<std::string> out;
  for (const std::string& node : first_pass_nodes_) {
    if (measured_.count(node) == 0) out.push_back(node);
  }
  return out;
}

CampaignProgress CampaignRun::Progress(absl::Time now) const {
  CampaignProgress p;
  p.fleet = fleet_;
  for (const std::string& node : first_pass_nodes_) {
    p.measured += measured_.count(node);
  }
  p.running_groups = running_.size();
  p.pending_nodes = loose_.size();
  for (const auto& [id, pending] : pending_) {
    p.pending_nodes += pending.nodes.size();
  }
  p.window_over = WindowOver(now);
  return p;
}

}  // namespace fabricpulse::core
