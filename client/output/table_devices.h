// The table's header lines that nccl-tests users know: the backend's
// version ("# nccl 2.28.9") and the "# Using devices" block, one line per
// rank. Thread-safety: pure functions.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "client/output/output_options.h"
#include "client/output/result_printer.h"
#include "fabricpulse/v1/coordinator.pb.h"

namespace fabricpulse::client {

// "# nccl 2.28.9\n" (the history's backend_version), or "# gloo (version
// unknown)\n" when the history did not say.
std::string BackendVersionLine(const v1::SweepStarted& started,
                               const SweepContext& context);

// "#\n# Using devices\n" and one line per rank of `started.ranks` (the
// history's rank map when the stream had none), in nccl-tests' layout:
//   #  Rank  0 Group  0 Pid   1234 on     node-a device  0 [0x18] NVIDIA H200
//   #  Rank  1 Group  0 Pid      - on     node-a device cpu
// Group is always 0 (one communicator); Pid "-" when not known (history);
// the bus is the PCI bus number of the GPU's bus id, "[unknown]" when the
// worker did not report one, and the model is left out when unknown. ""
// when no rank map is known (history stored before it). One line per rank:
// at most nranks (core::kMaxRanks) lines.
std::string UsingDevicesBlock(const v1::SweepStarted& started,
                              const SweepContext& context);

// "0x18" from "00000000:18:00.0" (domain:bus:device.function, NVML's
// form) or "18:00.0"; the text itself when it has neither form.
std::string PciBusNumber(const std::string& pci_bus_id);

// The figures the table reports for a result under --time-across-ranks:
// the chosen rank time, and the bandwidths at that time (algbw = bytes /
// time; busbw = algbw x the op's factor, as the result's own busbw /
// algbw). kMax is the result's own figures. Absent when the chosen time
// was not recorded: avg of a step stored before mean_rank_time_seconds.
struct ReportedFigures {
  double time_seconds = 0;
  double algbw_bytes_per_second = 0;
  double busbw_bytes_per_second = 0;
};
std::optional<ReportedFigures> Reported(const v1::StepResult& result,
                                        TimeAcrossRanks which);

}  // namespace fabricpulse::client
