#include "client/commands/results_command.h"

#include <cstdio>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "client/commands/coordinator_connection.h"
#include "client/commands/exit_codes.h"
#include "client/commands/nodes_command.h"
#include "client/output/csv_printer.h"
#include "client/output/isolation_output.h"
#include "client/output/json_printer.h"
#include "client/output/result_printer.h"
#include "client/output/sweep_json.h"
#include "client/output/text_table.h"
#include "grpcpp/grpcpp.h"

namespace fabricpulse::client {
namespace {

std::string FormatUnix(double seconds) {
  if (seconds <= 0) return "-";
  return absl::FormatTime("%Y-%m-%d %H:%M:%S",
                          absl::FromUnixSeconds(static_cast<int64_t>(seconds)),
                          absl::UTCTimeZone());
}

std::string Duration(const v1::SweepSummary& s) {
  if (s.finished_unix_seconds() <= 0) return "-";
  return absl::StrFormat("%.1fs",
                         s.finished_unix_seconds() - s.started_unix_seconds());
}

// One sweep, printed as `sweep` printed it.
int PrintOne(const v1::GetSweepResponse& resp, const OutputOptions& output) {
  const v1::SweepSummary& s = resp.sweep();
  auto printer = ResultPrinter::Create(output, std::cout);
  v1::SweepStarted started;
  started.set_sweep_id(s.sweep_id());
  started.set_nranks(s.nranks());
  for (const auto& n : s.nodes()) started.add_nodes(n);
  started.set_backend(s.backend());
  *started.mutable_spec() = s.spec();
  started.set_plan(s.plan());
  started.mutable_ranks()->CopyFrom(s.ranks());
  SweepContext context;
  context.summary = s;
  printer->Describe(context);
  printer->Begin(s.spec(), started);
  v1::SweepCommReady comm;
  comm.set_reused(s.comm_reused());
  comm.set_init_seconds(s.comm_init_seconds());
  printer->CommReady(comm);
  for (const auto& r : resp.results()) printer->Add(r);
  v1::SweepFinished finished;
  finished.set_sweep_id(s.sweep_id());
  finished.set_status(s.status());
  finished.set_error(s.error());
  finished.set_straggler(s.straggler());
  if (s.finished_unix_seconds() > 0) {
    finished.set_duration_seconds(s.finished_unix_seconds() -
                                  s.started_unix_seconds());
  }
  printer->Finish(finished);
  if (output.format == OutputFormat::kTable && s.has_isolation()) {
    std::cout << IsolationLines(s.isolation());
  }
  // The table lists regressed steps itself (TablePrinter::Finish).
  return kExitOk;
}

int PrintList(const v1::ListSweepsResponse& resp, const OutputOptions& output) {
  const OutputFormat format = output.format;
  if (format == OutputFormat::kJson) {
    // The document of `sweep --output json`, without steps (a listing).
    std::vector<SweepDocument> docs;
    for (const v1::SweepSummary& s : resp.sweeps()) {
      SweepDocument doc;
      doc.sweep = s;
      docs.push_back(std::move(doc));
    }
    std::cout << SweepsJson(docs, output);
    return kExitOk;
  }
  if (format == OutputFormat::kCsv) {
    std::printf(
        "sweep_id,plan,trigger,status,nranks,started_unix_s,finished_unix_s,"
        "steps,regressions,error\n");
    for (const auto& s : resp.sweeps()) {
      std::printf("%s,%s,%s,%s,%d,%.3f,%.3f,%d,%d,%s\n",
                  CsvField(s.sweep_id()).c_str(), CsvField(s.plan()).c_str(),
                  CsvField(s.trigger()).c_str(), CsvField(s.status()).c_str(),
                  s.nranks(), s.started_unix_seconds(),
                  s.finished_unix_seconds(), s.steps(), s.regressions(),
                  CsvField(s.error()).c_str());
    }
    return kExitOk;
  }
  // Columns as wide as their widest cell (a long plan or trigger such as
  // schedule:every-minute shifts nothing).
  std::vector<std::vector<std::string>> rows = {
      {"SWEEP", "PLAN", "TRIGGER", "STATUS", "RANKS", "STARTED (UTC)",
       "DURATION", "STEPS", "REGR", "ERROR"}};
  for (const auto& s : resp.sweeps()) {
    rows.push_back({s.sweep_id(), s.plan(), s.trigger(), s.status(),
                    absl::StrCat(s.nranks()),
                    FormatUnix(s.started_unix_seconds()), Duration(s),
                    absl::StrCat(s.steps()), absl::StrCat(s.regressions()),
                    s.error()});
  }
  std::fputs(AlignedTable(rows).c_str(), stdout);
  // A campaign's group sweeps above are summed up per campaign (covered,
  // untested, failed): the listing alone shows pieces of it.
  for (const v1::CampaignInfo& c : resp.campaigns()) {
    std::printf("# %s\n", CampaignLine(c).c_str());
  }
  return kExitOk;
}

}  // namespace

absl::Status CheckResultsFlags(const ResultsFlags& flags) {
  return OutputOptionsFromFlags(flags.output, flags.bw_unit, flags.raw,
                                flags.time_across_ranks)
      .status();
}

int RunResultsCommand(const CoordinatorTarget& coordinator,
                      const ResultsFlags& flags) {
  if (absl::Status bad = CheckResultsFlags(flags); !bad.ok()) {
    PrintError(std::string(bad.message()));
    return kExitBadInput;
  }
  const OutputOptions output = *OutputOptionsFromFlags(
      flags.output, flags.bw_unit, flags.raw, flags.time_across_ranks);
  auto stub = ConnectCoordinator(coordinator);
  if (!stub.ok()) return ReportConnectError(stub.status());
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
  if (!flags.sweep_id.empty()) {
    v1::GetSweepRequest req;
    req.set_sweep_id(flags.sweep_id);
    v1::GetSweepResponse resp;
    grpc::Status status = (*stub)->GetSweep(&ctx, req, &resp);
    if (!status.ok()) return ReportCallError("results", status, /*named=*/true);
    return PrintOne(resp, output);
  }
  v1::ListSweepsRequest req;
  req.set_last(flags.last);
  v1::ListSweepsResponse resp;
  grpc::Status status = (*stub)->ListSweeps(&ctx, req, &resp);
  if (!status.ok()) return ReportCallError("results", status);
  if (resp.left_out() > 0) {
    PrintError(absl::StrCat("results: ", resp.left_out(),
                            " older sweep(s) not listed: the answer reached "
                            "its size bound (16 MiB); ask for fewer (--last)"));
  }
  return PrintList(resp, output);
}

}  // namespace fabricpulse::client
