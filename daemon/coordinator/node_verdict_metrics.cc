#include "daemon/coordinator/node_verdict_metrics.h"

#include <array>

namespace fabricpulse::coordinator {
namespace {

constexpr std::array<core::NodeVerdict, 5> kVerdicts = {
    core::NodeVerdict::kPass, core::NodeVerdict::kDegraded,
    core::NodeVerdict::kFail, core::NodeVerdict::kSuspect,
    core::NodeVerdict::kUntested};

prometheus::Family<prometheus::Gauge>& Gauge(prometheus::Registry& registry,
                                             const char* name,
                                             const char* help) {
  return prometheus::BuildGauge().Name(name).Help(help).Register(registry);
}

prometheus::Labels VerdictLabels(const std::string& plan,
                                 const std::string& node,
                                 core::NodeVerdict verdict) {
  return {{"plan", plan},
          {"node", node},
          {"verdict", std::string(core::VerdictName(verdict))}};
}

}  // namespace

NodeVerdictMetrics::NodeVerdictMetrics(prometheus::Registry& registry)
    : verdict_(Gauge(registry, "fabricpulse_node_verdict",
                     "1 for the node's verdict in the campaign plan (pass, "
                     "degraded, fail, suspect, untested), 0 for the others")),
      last_tested_(
          Gauge(registry, "fabricpulse_node_last_tested_timestamp_seconds",
                "When the node's last group result of the campaign plan "
                "came (unix seconds); absent: never tested")),
      coverage_(Gauge(registry, "fabricpulse_campaign_coverage_ratio",
                      "Measured share of the first-pass nodes of the plan's "
                      "newest campaign")),
      untested_(Gauge(registry, "fabricpulse_campaign_untested_nodes",
                      "First-pass nodes of the plan's newest campaign whose "
                      "verdict is untested")),
      campaigns_(prometheus::BuildCounter()
                     .Name("fabricpulse_campaigns_total")
                     .Help("Campaigns ended, by status (finished, "
                           "interrupted)")
                     .Register(registry)) {}

void NodeVerdictMetrics::AddPlan(const std::string& plan) {
  for (const char* status : {"finished", "interrupted"}) {
    campaigns_.Add({{"plan", plan}, {"status", status}});
  }
}

void NodeVerdictMetrics::Publish(
    const std::string& plan, const std::vector<core::NodeStatus>& statuses) {
  absl::MutexLock lock(&mu_);
  std::set<std::string>& exported = exported_[plan];
  std::set<std::string> now;
  for (const core::NodeStatus& s : statuses) {
    now.insert(s.node);
    for (core::NodeVerdict v : kVerdicts) {
      verdict_.Add(VerdictLabels(plan, s.node, v)).Set(v == s.verdict ? 1 : 0);
    }
    const prometheus::Labels node = {{"plan", plan}, {"node", s.node}};
    if (s.last_tested == absl::InfinitePast()) {
      if (exported.count(s.node) > 0)
        last_tested_.Remove(&last_tested_.Add(node));
    } else {
      last_tested_.Add(node).Set(
          absl::ToDoubleSeconds(s.last_tested - absl::UnixEpoch()));
    }
  }
  for (const std::string& gone : exported) {
    if (now.count(gone) > 0) continue;
    for (core::NodeVerdict v : kVerdicts) {
      verdict_.Remove(&verdict_.Add(VerdictLabels(plan, gone, v)));
    }
    last_tested_.Remove(&last_tested_.Add({{"plan", plan}, {"node", gone}}));
  }
  exported = std::move(now);
}

void NodeVerdictMetrics::Campaign(const std::string& plan, int fleet,
                                  int measured, int untested, bool ended,
                                  const std::string& status) {
  coverage_.Add({{"plan", plan}})
      .Set(fleet > 0 ? static_cast<double>(measured) / fleet : 0);
  untested_.Add({{"plan", plan}}).Set(untested);
  if (ended) {
    campaigns_
        .Add({{"plan", plan},
              {"status", status == "finished" ? "finished" : "interrupted"}})
        .Increment();
  }
}

}  // namespace fabricpulse::coordinator
