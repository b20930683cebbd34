#include "client/commands/config_command.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/commands/coordinator_connection.h"
#include "client/commands/exit_codes.h"
#include "client/output/spec_text.h"
#include "daemon/core/byte_size.h"
#include "daemon/core/coordinator_config.h"

namespace fabricpulse::client {
namespace {

// How many upcoming firings of each schedule are listed.
constexpr int kFiringsShown = 2;

void PrintPlan(const core::PlanConfig& plan, std::ostream& out) {
  const core::SweepSpec& s = plan.spec;
  out << "plan " << plan.name << ": " << absl::StrJoin(s.ops, ", ") << "; "
      << SizesText(s) << "; " << s.dtype << " " << s.redop << "; "
      << IterationsText(s) << ", " << s.warmup_iters << " warm-ups; "
      << (s.check ? "data check" : "no data check") << "; " << s.placement
      << (s.graph ? "; CUDA graph" : "") << "; timeout "
      << absl::FormatDuration(s.timeout) << "; nodes "
      << (plan.nodes.empty() ? std::string("all live agents")
                             : absl::StrJoin(plan.nodes, ", "))
      << "; isolate on " << core::IsolateOnText(plan.isolate_on) << "; "
      << (plan.campaign ? "campaign " + plan.campaign->Text()
                        : std::string("one sweep"))
      << "\n";
}

void PrintSchedule(const core::ScheduleConfig& schedule, absl::Time now,
                   std::ostream& out) {
  out << "schedule " << schedule.name << ": plan " << schedule.plan
      << ", cron \"" << schedule.cron.expression() << "\" ("
      << schedule.cron.time_zone_name() << ")"
      << (schedule.allow_busy_gpus ? ", runs on busy GPUs" : "") << "; next:";
  absl::TimeZone zone;
  if (!absl::LoadTimeZone(schedule.cron.time_zone_name(), &zone)) {
    zone = absl::UTCTimeZone();
  }
  absl::Time at = now;
  for (int i = 0; i < kFiringsShown; ++i) {
    at = schedule.cron.Next(at);
    if (at == absl::InfiniteFuture()) break;
    out << (i == 0 ? " " : ", ")
        << absl::FormatTime("%Y-%m-%d %H:%M %Z", at, zone);
  }
  out << "\n";
}

}  // namespace

int RunConfigCheck(const ConfigCheckFlags& flags, absl::Time now,
                   std::ostream& out) {
  absl::StatusOr<core::CoordinatorConfig> config =
      core::LoadCoordinatorConfigFile(flags.file);
  if (!config.ok()) {
    PrintError(std::string(config.status().message()));
    return kExitBadInput;
  }
  out << "config " << flags.file << ": valid, " << config->plans.size()
      << " plan(s), " << config->schedules.size() << " schedule(s)\n";
  out << absl::StrFormat(
      "timezone %s; baselines: the last %d succeeded sweeps, at least %d; "
      "regression below %g %% of the baseline; history: %s or %s; at most %d "
      "agents, lost ones forgotten after %s\n",
      config->timezone, config->baseline_window, config->baseline_min_sweeps,
      config->regression_threshold * 100,
      absl::FormatDuration(config->history_max_age),
      core::FormatByteSize(config->history_max_bytes), config->max_agents,
      absl::FormatDuration(config->forget_lost_agents_after));
  for (const auto& [name, plan] : config->plans) PrintPlan(plan, out);
  for (const core::ScheduleConfig& s : config->schedules) {
    PrintSchedule(s, now, out);
  }
  return kExitOk;
}

}  // namespace fabricpulse::client
