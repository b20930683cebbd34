#include "client/output/table_devices.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace fabricpulse::client {

std::string BackendVersionLine(const v1::SweepStarted& started,
                               const SweepContext& context) {
  if (context.summary && !context.summary->backend_version().empty()) {
    return absl::StrCat("# ", context.summary->backend_version(), "\n");
  }
  return absl::StrCat("# ", started.backend(), " (version unknown)\n");
}

std::string PciBusNumber(const std::string& pci_bus_id) {
  const std::vector<std::string> parts = absl::StrSplit(pci_bus_id, ':');
  // domain:bus:device.function or bus:device.function.
  const std::string& bus =
      parts.size() == 3 ? parts[1] : (parts.size() == 2 ? parts[0] : "");
  if (bus.empty()) return pci_bus_id;
  return absl::StrCat("0x", absl::AsciiStrToLower(bus));
}

std::string UsingDevicesBlock(const v1::SweepStarted& started,
                              const SweepContext& context) {
  const auto* ranks = &started.ranks();
  if (ranks->empty() && context.summary) ranks = &context.summary->ranks();
  if (ranks->empty()) return "";
  std::string out = "#\n# Using devices\n";
  for (const v1::RankPlacement& r : *ranks) {
    auto pid = context.pids.find(r.rank());
    const std::string pid_text =
        pid == context.pids.end() ? "-" : absl::StrCat(pid->second);
    absl::StrAppendFormat(&out, "#  Rank %2d Group  0 Pid %6s on %10s device ",
                          r.rank(), pid_text, r.node());
    if (r.gpu() < 0) {
      out += "cpu\n";
      continue;
    }
    absl::StrAppendFormat(
        &out, "%2d [%s]%s\n", r.gpu(),
        r.pci_bus_id().empty() ? "unknown" : PciBusNumber(r.pci_bus_id()),
        r.gpu_model().empty() ? "" : absl::StrCat(" ", r.gpu_model()));
  }
  return out;
}

std::optional<ReportedFigures> Reported(const v1::StepResult& result,
                                        TimeAcrossRanks which) {
  ReportedFigures f;
  f.time_seconds = result.time_seconds();
  f.algbw_bytes_per_second = result.algbw_bytes_per_second();
  f.busbw_bytes_per_second = result.busbw_bytes_per_second();
  if (which == TimeAcrossRanks::kMax) return f;
  if (which == TimeAcrossRanks::kAvg && !result.has_mean_rank_time_seconds()) {
    return std::nullopt;
  }
  const double time = which == TimeAcrossRanks::kAvg
                          ? result.mean_rank_time_seconds()
                          : result.min_rank_time_seconds();
  const double factor =
      result.algbw_bytes_per_second() > 0
          ? result.busbw_bytes_per_second() / result.algbw_bytes_per_second()
          : 0;
  f.time_seconds = time;
  f.algbw_bytes_per_second =
      time > 0 ? static_cast<double>(result.step().bytes()) / time : 0;
  f.busbw_bytes_per_second = f.algbw_bytes_per_second * factor;
  return f;
}

}  // namespace fabricpulse::client
