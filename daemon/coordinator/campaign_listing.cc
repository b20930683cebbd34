#include "daemon/coordinator/campaign_listing.h"

#include <cmath>

#include "daemon/coordinator/history_convert.h"
#include "daemon/core/limits.h"

namespace fabricpulse::coordinator {
namespace {

const char* FindingName(core::Finding f) {
  switch (f) {
    case core::Finding::kGood:
      return "good";
    case core::Finding::kLow:
      return "low";
    case core::Finding::kBad:
      return "bad";
  }
  return "bad";
}

v1::NodeVerdictInfo NodeInfoOf(const PlanNodeStatus& p) {
  v1::NodeVerdictInfo info;
  info.set_plan(p.plan);
  info.set_node(p.status.node);
  info.set_verdict(std::string(core::VerdictName(p.status.verdict)));
  info.set_since_unix_seconds(UnixSeconds(p.status.since));
  info.set_last_tested_unix_seconds(UnixSeconds(p.status.last_tested));
  for (const core::NodeEvidence& e : p.status.evidence) {
    v1::NodeEvidenceInfo* out = info.add_evidence();
    out->set_sweep_id(e.sweep_id);
    out->set_at_unix_seconds(UnixSeconds(e.at));
    for (const std::string& node : e.group) out->add_group(node);
    out->set_finding(FindingName(e.finding));
    if (std::isfinite(e.busbw)) out->set_busbw_bytes_per_second(e.busbw);
    out->set_reference_busbw_bytes_per_second(e.reference_busbw);
    out->set_threshold_busbw_bytes_per_second(e.threshold_busbw);
    out->set_blamed(e.blamed);
    out->set_detail(e.detail);
  }
  return info;
}

}  // namespace

v1::CampaignInfo CampaignInfoOf(const CampaignRecord& r) {
  v1::CampaignInfo info;
  info.set_campaign_id(r.id);
  info.set_plan(r.plan);
  info.set_trigger(r.trigger);
  info.set_grouping(r.grouping);
  info.set_started_unix_seconds(UnixSeconds(r.started));
  info.set_finished_unix_seconds(UnixSeconds(r.finished));
  info.set_status(r.status);
  info.set_fleet(r.fleet);
  info.set_measured(r.measured);
  info.set_untested(r.untested);
  info.set_pass(r.pass);
  info.set_degraded(r.degraded);
  info.set_fail(r.fail);
  info.set_suspect(r.suspect);
  info.set_second_passes(r.second_passes);
  if (r.plan_noise) info.set_plan_noise(*r.plan_noise);
  return info;
}

v1::ListNodesResponse ListNodesAnswer(
    const std::vector<PlanNodeStatus>& nodes,
    const std::vector<CampaignRecord>& campaigns) {
  v1::ListNodesResponse answer;
  for (const CampaignRecord& r : campaigns) {
    *answer.add_campaigns() = CampaignInfoOf(r);
  }
  size_t bytes = answer.ByteSizeLong();
  for (const PlanNodeStatus& p : nodes) {
    v1::NodeVerdictInfo info = NodeInfoOf(p);
    // The field's tag and length prefix: at most 6 bytes.
    const size_t size = info.ByteSizeLong() + 6;
    if (answer.left_out() > 0 || bytes + size > core::kMaxListResponseBytes) {
      answer.set_left_out(answer.left_out() + 1);
      continue;
    }
    bytes += size;
    *answer.add_nodes() = std::move(info);
  }
  return answer;
}

}  // namespace fabricpulse::coordinator
