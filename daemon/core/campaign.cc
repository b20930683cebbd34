#include "daemon/core/campaign.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"

namespace fabricpulse::core {

absl::StatusOr<Campaign> Campaign::Create(
    const std::vector<std::vector<std::string>>& groups,
    const std::vector<CampaignNode>& fleet, const CampaignOptions& options,
    absl::Time start, NodeVerdictBook* book) {
  if (!(std::isfinite(options.expected_busbw) && options.expected_busbw >= 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected_busbw: ", options.expected_busbw,
                     " is out of range; allowed: 0 (judge against peers) or "
                     "a positive busbw in bytes/s"));
  }
  absl::StatusOr<CampaignRun> run =
      CampaignRun::Create(groups, options.settings, start);
  if (!run.ok()) return run.status();
  return Campaign(*std::move(run), fleet, options, book);
}

std::vector<CampaignGroup> Campaign::Due(absl::Time now) {
  JudgeFirstPassWhenDone(now);
  std::vector<CampaignGroup> due = run_.Due(now);
  for (const CampaignGroup& group : due) running_[group.id] = group;
  return due;
}

void Campaign::Busy(int id, const std::vector<std::string>& busy,
                    absl::Time now) {
  running_.erase(id);
  run_.Busy(id, busy, now);
}

GroupResult Campaign::ResultOf(const CampaignGroup& group,
                               const GroupMeasurement& m,
                               const PeerReference* peers) const {
  GroupResult result;
  result.nodes = group.nodes;
  result.ok = m.ok;
  result.data_wrong = m.data_wrong;
  result.busbw = m.busbw;
  result.sweep_id = m.sweep_id;
  result.at = m.at;
  result.error = m.error;
  if (const int t = MatchThreshold(options_.thresholds, m.step); t >= 0) {
    result.reference_busbw = options_.thresholds[t].gbps * 1e9;
  } else if (options_.expected_busbw > 0) {
    result.reference_busbw = options_.expected_busbw;
  } else if (peers != nullptr && peers->median > 0) {
    result.reference_busbw = peers->median;
    result.reference_spread = peers->spread;
  }
  return result;
}

absl::Status Campaign::Measured(int id, const GroupMeasurement& measurement,
                                absl::Time now) {
  auto it = running_.find(id);
  if (it == running_.end()) {
    return absl::NotFoundError(
        absl::StrCat("campaign: group ", id, " is not running"));
  }
  CampaignGroup group = std::move(it->second);
  running_.erase(it);
  run_.Measured(id);
  absl::Status recorded = absl::OkStatus();
  if (!group.second_pass && !judged_) {
    held_.push_back({std::move(group), measurement});
  } else {
    auto it = references_.find(group.nodes.size());
    recorded = Record(ResultOf(
        group, measurement, it == references_.end() ? nullptr : &it->second));
    if (group.second_pass) {
      for (const std::string& node : group.nodes) awaiting_.erase(node);
    }
    PlanSecondPasses(now);
  }
  JudgeFirstPassWhenDone(now);
  return recorded;
}

absl::Status Campaign::Record(const GroupResult& result) {
  absl::Status recorded = book_->Record(result);
  if (recorded.ok() && options_.on_record) options_.on_record(result);
  return recorded;
}

void Campaign::JudgeFirstPassWhenDone(absl::Time now) {
  if (judged_ || !run_.FirstPassDone(now)) return;
  judged_ = true;
  // Each group's peers: the other measured groups of its node count.
  auto measured = [](const Held& h) {
    return h.measurement.ok && !h.measurement.data_wrong;
  };
  std::map<size_t, std::vector<double>> all;
  for (const Held& h : held_) {
    if (measured(h)) all[h.group.nodes.size()].push_back(h.measurement.busbw);
  }
  // Beyond kLeaveOneOutMax peers one group moves neither the median nor the
  // spread materially: all of them are the reference (O(G) instead of
  // O(G^2) at fleet scale).
  std::map<size_t, PeerReference> large;
  for (const auto& [size, busbw] : all) {
    if (busbw.size() > kLeaveOneOutMax) large[size] = PeerReferenceOf(busbw);
  }
  std::vector<GroupResult> results;
  for (size_t i = 0; i < held_.size(); ++i) {
    const size_t size = held_[i].group.nodes.size();
    PeerReference peers;
    if (auto it = large.find(size); it != large.end()) {
      peers = it->second;
    } else {
      std::vector<double> others;
      for (size_t j = 0; j < held_.size(); ++j) {
        if (j != i && held_[j].group.nodes.size() == size &&
            measured(held_[j])) {
          others.push_back(held_[j].measurement.busbw);
        }
      }
      peers = PeerReferenceOf(others);
    }
    results.push_back(ResultOf(held_[i].group, held_[i].measurement, &peers));
  }
  for (const auto& [size, busbw] : all) {
    PeerReference ref = PeerReferenceOf(busbw);
    if (ref.median > 0) references_[size] = ref;
  }
  for (const GroupResult& result : results) {
    // The book refuses only malformed results, which Create's groups and
    // finite times rule out; a refusal leaves that node's verdict as it was.
    (void)Record(result);
  }
  held_.clear();
  PlanSecondPasses(now);
}

void Campaign::PlanSecondPasses(absl::Time now) {
  const SecondPassPlan plan =
      book_->PlanSecondPasses(fleet_, options_.group_by, now);
  std::vector<std::vector<std::string>> groups;
  for (const SecondPass& pass : plan.passes) {
    // One at a time per suspect, at most kMaxSecondPasses of them.
    if (awaiting_.count(pass.suspect) > 0) continue;
    int& passes = second_passed_[pass.suspect];
    if (passes >= kMaxSecondPasses) continue;
    ++passes;
    awaiting_.insert(pass.suspect);
    groups.push_back(pass.nodes);
  }
  second_passes_ += static_cast<int>(groups.size());
  run_.AddSecondPasses(groups);
}

bool Campaign::Finished(absl::Time now) {
  JudgeFirstPassWhenDone(now);
  return run_.Finished(now);
}

absl::Time Campaign::NextWake(absl::Time now) const {
  return run_.NextWake(now);
}

CampaignSummary Campaign::Summary(absl::Time now) const {
  CampaignSummary s;
  s.progress = run_.Progress(now);
  s.unmeasured = run_.Unmeasured();
  s.second_passes = second_passes_;
  s.first_pass_judged = judged_;
  s.references = references_;
  return s;
}

}  // namespace fabricpulse::core
