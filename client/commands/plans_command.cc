#include "client/commands/plans_command.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/commands/list_command.h"
#include "client/output/csv_printer.h"
#include "client/output/spec_text.h"
#include "client/output/text_table.h"
#include "daemon/common/spec_convert.h"

namespace fabricpulse::client {
namespace {

std::string NodesText(const v1::PlanInfo& plan) {
  return plan.nodes().empty() ? "all" : absl::StrJoin(plan.nodes(), ",");
}

std::string Table(const v1::ListPlansResponse& resp) {
  std::vector<std::vector<std::string>> rows = {
      {"PLAN", "OPS", "SIZES", "DTYPE", "REDOP", "ITERS", "WARMUP", "CHECK",
       "PLACEMENT", "TIMEOUT", "NODES", "ISOLATE_ON", "CAMPAIGN"}};
  for (const v1::PlanInfo& p : resp.plans()) {
    const core::SweepSpec s = common::SpecFromProto(p.spec());
    rows.push_back(
        {p.name(), absl::StrJoin(s.ops, ","), SizesText(s), s.dtype, s.redop,
         IterationsText(s), absl::StrCat(s.warmup_iters),
         s.check ? "yes" : "no", s.placement + (s.graph ? ", graph" : ""),
         absl::FormatDuration(s.timeout), NodesText(p),
         p.isolate_on().empty() ? "off" : absl::StrJoin(p.isolate_on(), ","),
         p.campaign().empty() ? "-" : p.campaign()});
  }
  const v1::RegressionSettings& r = resp.regression();
  return absl::StrCat(
      AlignedTable(rows),
      absl::StrFormat(
          "# %d plan(s); a step regresses when its busbw is below %g %% of its "
          "baseline, the median of the plan's last %d succeeded sweeps (none "
          "from fewer than %d)\n",
          resp.plans_size(), r.threshold() * 100, r.baseline_window(),
          r.baseline_min_sweeps()));
}

std::string Csv(const v1::ListPlansResponse& resp) {
  std::string out =
      "plan,ops,min_bytes,max_bytes,max_bytes_auto,factor,step_bytes,dtype,"
      "redop,root,iters,tolerance,min_iters,max_iters,step_time_cap_s,"
      "warmup,check,placement,graph,timeout_s,fresh_comm,nodes,isolate_on,"
      "campaign\n";
  for (const v1::PlanInfo& p : resp.plans()) {
    const core::SweepSpec s = common::SpecFromProto(p.spec());
    const core::AdaptiveIters& a = s.adaptive;
    const std::vector<std::string> adaptive =
        a.enabled ? std::vector<std::string>{absl::StrCat(a.tolerance),
                                             absl::StrCat(a.min_iters),
                                             absl::StrCat(a.max_iters),
                                             absl::StrCat(absl::ToDoubleSeconds(
                                                 a.step_time_cap))}
                  : std::vector<std::string>(4, "");
    const std::vector<std::string> fields = {
        CsvField(p.name()),
        CsvField(absl::StrJoin(s.ops, ";")),
        absl::StrCat(s.min_bytes),
        absl::StrCat(s.max_bytes),
        absl::StrCat(s.max_bytes_auto.fraction),
        absl::StrCat(s.factor),
        absl::StrCat(s.step_bytes),
        CsvField(s.dtype),
        CsvField(s.redop),
        absl::StrCat(s.root),
        a.enabled ? "auto" : absl::StrCat(s.iters),
        adaptive[0],
        adaptive[1],
        adaptive[2],
        adaptive[3],
        absl::StrCat(s.warmup_iters),
        s.check ? "true" : "false",
        CsvField(s.placement),
        s.graph ? "true" : "false",
        absl::StrCat(absl::ToDoubleSeconds(s.timeout)),
        s.fresh_comm ? "true" : "false",
        CsvField(absl::StrJoin(p.nodes(), ";")),
        CsvField(absl::StrJoin(p.isolate_on(), ";")),
        CsvField(p.campaign())};
    absl::StrAppend(&out, absl::StrJoin(fields, ","), "\n");
  }
  return out;
}

std::string FormatNotingLeftOut(const v1::ListPlansResponse& plans,
                                OutputFormat format) {
  NoteLeftOut("plans", plans.left_out(), "plan(s)");
  return FormatPlans(plans, format);
}

}  // namespace

std::string FormatPlans(const v1::ListPlansResponse& plans,
                        OutputFormat format) {
  return FormatListing(plans, format, &Csv, &Table);
}

int RunPlansCommand(const CoordinatorTarget& coordinator,
                    const std::string& output) {
  return RunListCommand(coordinator, "plans", output,
                        &v1::CoordinatorService::Stub::ListPlans,
                        &FormatNotingLeftOut);
}

}  // namespace fabricpulse::client
