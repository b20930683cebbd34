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
                               const GroupMeasurement& m) const {
  GroupResult result;
  result.nodes = group.nodes;
  result.ok = m.ok;
  result.data_wrong = m.data_wrong;
  result.busbw = m.busbw;
  result.sweep_id = m.sweep_id;
  result.at = m.at;
  result.error = m.error;
  if (options_.expected_busbw > 0) {
    result.reference_busbw = options_.expected_busbw;
  } else if (auto it = references_.find(group.nodes.size());
             it != references_.end()) {
    result.reference_busbw = it->second.median;
    result.reference_spread = it->second.spread;
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
    recorded = book_->Record(ResultOf(group, measurement));
    if (!group.second_pass) PlanSecondPasses(now);
  }
  JudgeFirstPassWhenDone(now);
  return recorded;
}

void Campaign::JudgeFirstPassWhenDone(absl::Time now) {
  if (judged_ || !run_.FirstPassDone(now)) return;
  judged_ = true;
  std::map<size_t, std::vector<double>> by_size;
  for (const Held& held : held_) {
    if (held.measurement.ok && !held.measurement.data_wrong) {
      by_size[held.group.nodes.size()].push_back(held.measurement.busbw);
    }
  }
  for (const auto& [size, busbw] : by_size) {
    PeerReference ref = PeerReferenceOf(busbw);
    if (ref.median > 0) references_[size] = ref;
  }
  for (const Held& held : held_) {
    // The book refuses only malformed results, which Create's groups and
    // finite times rule out; a refusal leaves that node's verdict as it was.
    (void)book_->Record(ResultOf(held.group, held.measurement));
  }
  held_.clear();
  PlanSecondPasses(now);
}

void Campaign::PlanSecondPasses(absl::Time now) {
  const SecondPassPlan plan =
      book_->PlanSecondPasses(fleet_, options_.group_by, now);
  std::vector<std::vector<std::string>> groups;
  for (const SecondPass& pass : plan.passes) {
    if (!second_passed_.insert(pass.suspect).second) continue;
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
