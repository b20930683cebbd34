#include "client/commands/schedules_command.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "client/commands/list_command.h"
#include "client/output/csv_printer.h"
#include "client/output/text_table.h"

namespace fabricpulse::client {
namespace {

std::string FormatUnix(double seconds, const std::string& zone_name) {
  if (seconds <= 0) return "-";
  absl::TimeZone zone = absl::UTCTimeZone();
  if (!zone_name.empty() && !absl::LoadTimeZone(zone_name, &zone)) {
    zone = absl::UTCTimeZone();
  }
  return absl::FormatTime("%Y-%m-%d %H:%M %Z",
                          absl::FromUnixSeconds(static_cast<int64_t>(seconds)),
                          zone);
}

std::string State(const v1::ScheduleInfo& s) {
  if (!s.pending()) return "-";
  if (s.waiting_on() == "gpu_busy") return "waiting: GPUs busy";
  if (s.waiting_on() == "members_busy") return "waiting: members busy";
  if (!s.waiting_on().empty()) return absl::StrCat("waiting: ", s.waiting_on());
  return "due";
}

std::string Table(const v1::ListSchedulesResponse& resp) {
  std::vector<std::vector<std::string>> rows = {
      {"SCHEDULE", "PLAN", "CRON", "NEXT", "BUSY-GPUS", "STATE", "LAST-SWEEP",
       "LAST-STATUS", "LAST-STARTED"}};
  for (const v1::ScheduleInfo& s : resp.schedules()) {
    const bool ran = s.has_last_run();
    rows.push_back(
        {s.name(), s.plan(), s.cron(),
         FormatUnix(s.next_unix_seconds(), s.timezone()),
         s.allow_busy_gpus() ? "run" : "wait", State(s),
         ran ? s.last_run().sweep_id() : "-", ran ? s.last_run().status() : "-",
         ran ? FormatUnix(s.last_run().started_unix_seconds(), "UTC") : "-"});
  }
  return absl::StrCat(
      AlignedTable(rows),
      absl::StrFormat("# %d schedule(s)\n", resp.schedules_size()));
}

std::string Csv(const v1::ListSchedulesResponse& resp) {
  std::string out =
      "schedule,plan,cron,timezone,allow_busy_gpus,next_unix_s,pending,"
      "waiting_on,last_sweep_id,last_status,last_started_unix_s,"
      "last_finished_unix_s\n";
  for (const v1::ScheduleInfo& s : resp.schedules()) {
    const bool ran = s.has_last_run();
    const v1::ScheduleRun& r = s.last_run();
    const std::vector<std::string> fields = {
        CsvField(s.name()),
        CsvField(s.plan()),
        CsvField(s.cron()),
        CsvField(s.timezone()),
        s.allow_busy_gpus() ? "true" : "false",
        absl::StrFormat("%.3f", s.next_unix_seconds()),
        s.pending() ? "true" : "false",
        CsvField(s.waiting_on()),
        ran ? CsvField(r.sweep_id()) : "",
        ran ? CsvField(r.status()) : "",
        ran ? absl::StrFormat("%.3f", r.started_unix_seconds()) : "",
        ran ? absl::StrFormat("%.3f", r.finished_unix_seconds()) : ""};
    absl::StrAppend(&out, absl::StrJoin(fields, ","), "\n");
  }
  return out;
}

std::string FormatNotingLeftOut(const v1::ListSchedulesResponse& schedules,
                                OutputFormat format) {
  NoteLeftOut("schedules", schedules.left_out(), "schedule(s)");
  return FormatSchedules(schedules, format);
}

}  // namespace

std::string FormatSchedules(const v1::ListSchedulesResponse& schedules,
                            OutputFormat format) {
  return FormatListing(schedules, format, &Csv, &Table);
}

int RunSchedulesCommand(const CoordinatorTarget& coordinator,
                        const std::string& output) {
  return RunListCommand(coordinator, "schedules", output,
                        &v1::CoordinatorService::Stub::ListSchedules,
                        &FormatNotingLeftOut);
}

}  // namespace fabricpulse::client
