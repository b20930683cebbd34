#include "client/commands/isolate_command.h"

#include <algorithm>
#include <iostream>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "client/commands/exit_codes.h"
#include "client/commands/sweep_collect.h"
#include "client/output/json_printer.h"
#include "client/output/output_options.h"
#include "client/output/progress_line.h"
#include "client/output/units.h"
#include "daemon/common/grpc_status.h"
#include "daemon/common/isolation_measure.h"
#include "daemon/common/spec_convert.h"
#include "daemon/core/byte_size.h"
#include "daemon/core/duration_text.h"
#include "daemon/core/isolation.h"
#include "daemon/core/sweep_spec.h"

namespace fabricpulse::client {
namespace {

absl::StatusOr<core::SweepSpec> SpecOf(const IsolateFlags& flags,
                                       const std::string& op) {
  return OneSizeSpec(op, flags.bytes, flags.timeout, flags.iters, flags.warmup);
}

v1::SweepRequest RequestFor(const core::SweepSpec& spec,
                            const std::vector<std::string>& nodes) {
  v1::SweepRequest request;
  *request.mutable_spec() = common::SpecToProto(spec);
  for (const std::string& n : nodes) request.add_nodes(n);
  return request;
}

// Every alive agent's node.
absl::StatusOr<std::vector<std::string>> AliveNodes(
    v1::CoordinatorService::Stub& stub) {
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
  v1::ListAgentsResponse agents;
  absl::Status status =
      common::FromGrpcStatus(stub.ListAgents(&ctx, {}, &agents));
  if (!status.ok()) return status;
  std::vector<std::string> nodes;
  for (const v1::AgentInfo& a : agents.agents()) {
    if (a.state() == "alive") nodes.push_back(a.node_name());
  }
  return nodes;
}

void PrintTable(const core::IsolationReport& report, const IsolateFlags& flags,
                std::ostream& out) {
  out << "# isolate: " << flags.op << " " << flags.bytes
      << " on node sets, then a pairwise check of the suspects\n";
  out << absl::StrFormat("# %-5s %-15s %12s  %s\n", "round", "role",
                         "busbw(GB/s)", "nodes");
  int i = 0;
  for (const core::IsolationRound& r : report.rounds) {
    out << absl::StrFormat(
        "  %-5d %-15s %12s  %s%s\n", ++i, r.role,
        r.result.ok
            ? absl::StrFormat("%.3g", ToBwUnit(BwUnit::kGBps, r.result.busbw))
            : "failed",
        absl::StrJoin(r.nodes, ","),
        r.result.sweep_id.empty()
            ? ""
            : absl::StrCat("  (sweep ", r.result.sweep_id, ")"));
  }
  out << "# " << report.verdict << ": " << report.summary << "\n";
}

void PrintJson(const core::IsolationReport& report, std::ostream& out) {
  out << "{\"verdict\": " << JsonString(report.verdict) << ", \"culprits\": [";
  for (size_t i = 0; i < report.culprits.size(); ++i) {
    out << (i ? ", " : "") << JsonString(report.culprits[i]);
  }
  out << "], \"summary\": " << JsonString(report.summary) << ", \"rounds\": [";
  for (size_t i = 0; i < report.rounds.size(); ++i) {
    const core::IsolationRound& r = report.rounds[i];
    out << (i ? ", " : "") << "{\"role\": " << JsonString(r.role)
        << ", \"nodes\": [";
    for (size_t j = 0; j < r.nodes.size(); ++j) {
      out << (j ? ", " : "") << JsonString(r.nodes[j]);
    }
    out << "], \"ok\": " << (r.result.ok ? "true" : "false")
        << ", \"busbw_bytes_per_second\": "
        << (r.result.ok ? FormatNumber(r.result.busbw) : "null")
        << ", \"error\": " << JsonString(r.result.error)
        << ", \"sweep_id\": " << JsonString(r.result.sweep_id) << "}";
  }
  out << "]}\n";
}

}  // namespace

absl::Status CheckIsolateFlags(const IsolateFlags& flags) {
  if (flags.op == "pairwise") {
    return absl::InvalidArgumentError(
        "--op: pairwise is what `fabricpulse matrix` runs; allowed: a "
        "collective (all_reduce, all_gather, ...)");
  }
  auto spec = SpecOf(flags, flags.op);
  if (!spec.ok()) return spec.status();
  // The op and sizes as a sweep of 2 ranks would take them.
  if (auto resolved = core::Validate(*spec, 2); !resolved.ok()) {
    return resolved.status();
  }
  if (flags.repeats < kMinIsolateRepeats ||
      flags.repeats > core::kMaxIsolateRepeats) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--repeats: ", flags.repeats, " is out of range; allowed: ",
        kMinIsolateRepeats, " to ", core::kMaxIsolateRepeats,
        " (one measurement is a suspect, never a culprit)"));
  }
  auto format = ParseOutputFormat(flags.output);
  if (!format.ok()) return format.status();
  if (*format == OutputFormat::kCsv) {
    return absl::InvalidArgumentError(
        "--output: csv is not offered by isolate; allowed: table, json");
  }
  return ParseProgressMode(flags.progress).status();
}

int RunIsolateCommand(const CoordinatorTarget& coordinator,
                      const IsolateFlags& flags) {
  if (absl::Status bad = CheckIsolateFlags(flags); !bad.ok()) {
    PrintError(std::string(bad.message()));
    return kExitBadInput;
  }
  auto stub = ConnectCoordinator(coordinator);
  if (!stub.ok()) return ReportConnectError(stub.status());
  std::vector<std::string> nodes = flags.nodes;
  if (nodes.empty()) {
    auto alive = AliveNodes(**stub);
    if (!alive.ok()) return ReportRefusal("isolate", alive.status());
    nodes = *alive;
  }
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  if (nodes.size() < 2) {
    PrintError(
        absl::StrCat("isolate: nodes: isolation needs at least 2 "
                     "nodes; got ",
                     nodes.size()));
    return kExitBadInput;
  }
  const core::SweepSpec collective = *SpecOf(flags, flags.op);
  const core::SweepSpec pairwise = *SpecOf(flags, "pairwise");
  ProgressLine progress(2, *ParseProgressMode(flags.progress));
  core::IsolationProbe probe;
  probe.collective = [&](const std::vector<std::string>& set)
      -> absl::StatusOr<core::SetMeasurement> {
    auto sweep =
        RunAndCollect(**stub, RequestFor(collective, set), &progress,
                      absl::StrCat(flags.op, " on ", absl::StrJoin(set, ",")));
    if (!sweep.ok()) return sweep.status();
    return common::SetMeasurementOf(sweep->sweep_id, sweep->status,
                                    sweep->results);
  };
  probe.pairwise = [&](const std::vector<std::string>& set)
      -> absl::StatusOr<std::vector<core::NodePairMeasurement>> {
    auto sweep =
        RunAndCollect(**stub, RequestFor(pairwise, set), &progress,
                      absl::StrCat("pairwise on ", absl::StrJoin(set, ",")));
    if (!sweep.ok()) return sweep.status();
    return common::NodePairsOf(set, sweep->status, sweep->results);
  };
  core::IsolateOptions options;
  options.repeats = flags.repeats;
  options.pairwise_runs = flags.repeats;
  absl::StatusOr<core::IsolationReport> report =
      core::Isolate(nodes, probe, options);
  if (!report.ok()) {
    return ReportRefusal("isolate", report.status());
  }
  if (*ParseOutputFormat(flags.output) == OutputFormat::kJson) {
    PrintJson(*report, std::cout);
  } else {
    PrintTable(*report, flags, std::cout);
  }
  std::cout.flush();
  if (report->verdict == "none") return kExitOk;
  PrintError(absl::StrCat("isolate: ", report->summary));
  return kExitFailed;
}

}  // namespace fabricpulse::client
