#include "client/commands/sweep_command.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "client/commands/coordinator_connection.h"
#include "client/commands/exit_codes.h"
#include "client/commands/sweep_context.h"
#include "client/commands/sweep_gates.h"
#include "client/output/progress_line.h"
#include "client/output/result_printer.h"
#include "daemon/common/grpc_status.h"
#include "daemon/common/spec_convert.h"
#include "daemon/core/auto_max_bytes.h"
#include "daemon/core/byte_size.h"
#include "daemon/core/duration_text.h"
#include "daemon/core/moe_preset.h"
#include "daemon/core/status_reason.h"
#include "daemon/core/sweep_outcome.h"
#include "grpcpp/grpcpp.h"

namespace fabricpulse::client {
namespace {

absl::StatusOr<absl::Duration> ParseTimeout(const std::string& text) {
  if (std::optional<absl::Duration> d = core::ParseSecondsOrDuration(text)) {
    return *d;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "--timeout: '", text, "' is not a duration; use e.g. 30s, 500ms, 2m"));
}

// The first and the longest pause between two tries of --wait.
constexpr absl::Duration kFirstRetry = absl::Milliseconds(200);
constexpr absl::Duration kMaxRetry = absl::Seconds(5);

}  // namespace

absl::StatusOr<absl::Duration> ParseSweepWait(const std::string& text) {
  const std::optional<absl::Duration> parsed =
      core::ParseSecondsOrDuration(text);
  if (!parsed) {
    return absl::InvalidArgumentError(
        absl::StrCat("--wait: '", text,
                     "' is not a duration; use e.g. 10m, 90s or 0 (allowed: 0 "
                     "to 24h)"));
  }
  const absl::Duration d = *parsed;
  if (d < absl::ZeroDuration() || d > kMaxSweepWait) {
    return absl::InvalidArgumentError(
        absl::StrCat("--wait: ", text, " is out of range; allowed: 0 to 24h"));
  }
  return d;
}

bool MembersBusy(const absl::Status& status) {
  return core::ReasonOf(status) == core::StatusReason::kMembersBusy;
}

absl::StatusOr<core::SweepSpec> SpecFromFlags(const SweepFlags& flags) {
  core::SweepSpec spec;
  spec.ops = flags.ops;
  auto min_bytes = core::ParseByteSize(flags.min_bytes, "--min-bytes");
  if (!min_bytes.ok()) return min_bytes.status();
  auto max_bytes = core::ParseMaxBytes(flags.max_bytes, "--max-bytes");
  if (!max_bytes.ok()) return max_bytes.status();
  auto step = core::ParseByteSize(flags.step, "--step");
  if (!step.ok()) return step.status();
  auto timeout = ParseTimeout(flags.timeout);
  if (!timeout.ok()) return timeout.status();
  spec.min_bytes = *min_bytes;
  core::SetMaxBytes(*max_bytes, spec);
  spec.step_bytes = *step;
  spec.factor = flags.factor;
  spec.dtype = flags.dtype;
  spec.redop = flags.redop;
  spec.root = flags.root;
  spec.moe = flags.moe;
  if (!flags.moe_preset.empty()) {
    absl::Status preset =
        core::ApplyMoePreset(flags.moe_preset, flags.moe_explicit, spec.moe);
    if (!preset.ok()) return preset;
  }
  if (absl::Status iters = ApplyItersFlags(flags.iters, spec); !iters.ok()) {
    return iters;
  }
  spec.warmup_iters = flags.warmup;
  spec.check = flags.check;
  spec.placement = flags.placement;
  spec.graph = flags.graph;
  spec.timeout = *timeout;
  spec.fresh_comm = flags.fresh_comm;
  return spec;
}

absl::Status CheckSweepFlags(const SweepFlags& flags, int nranks) {
  auto spec = SpecFromFlags(flags);
  if (!spec.ok()) return spec.status();
  auto output = OutputOptionsFromFlags(flags.output, flags.bw_unit, flags.raw,
                                       flags.time_across_ranks);
  if (!output.ok()) return output.status();
  auto gates = ParseMinBusbw(flags.min_busbw, output->unit);
  if (!gates.ok()) return gates.status();
  if (auto wait = ParseSweepWait(flags.wait); !wait.ok()) return wait.status();
  if (auto mode = ParseProgressMode(flags.progress); !mode.ok()) {
    return mode.status();
  }
  // A plan's ops are known once it starts: an op it lacks then fails its
  // gate as unmeasured.
  if (!flags.plan.empty()) return absl::OkStatus();
  if (absl::Status ops = CheckGateOps(*gates, flags.ops); !ops.ok()) {
    return ops;
  }
  if (nranks > 0 && flags.nodes.empty()) {
    auto resolved = core::Validate(*spec, nranks);
    if (!resolved.ok()) return resolved.status();
  }
  return absl::OkStatus();
}

namespace {

// A sweep refused before it started: one line, and its exit code.
int ReportRefused(const absl::Status& status) {
  // UNAVAILABLE from the coordinator about a member is the sweep's failure
  // (1); any other is the coordinator itself (3).
  const bool unreachable =
      status.code() == absl::StatusCode::kUnavailable &&
      core::ReasonOf(status) != core::StatusReason::kMemberUnavailable;
  PrintError(absl::StrCat(status.code() == absl::StatusCode::kInvalidArgument
                              ? "invalid sweep: "
                              : "",
                          status.message()));
  return unreachable ? kExitUnreachable : ExitCodeFor(status);
}

// Reads a sweep's stream to its end, `event` being its first event, prints
// the results and applies the gates; returns the exit code.
int ReadSweep(v1::CoordinatorService::Stub& stub,
              grpc::ClientReaderInterface<v1::SweepEvent>& reader,
              v1::SweepEvent event, const v1::SweepRequest& request,
              const OutputOptions& output, const std::vector<MinBusbw>& gates,
              const SweepFlags& flags) {
  std::unique_ptr<ResultPrinter> printer =
      ResultPrinter::Create(output, std::cout);
  ProgressLine progress(2, *ParseProgressMode(flags.progress));
  v1::SweepFinished finished;
  bool started = false;
  int total_steps = 0, done = 0;
  int64_t wrong = 0;
  std::vector<v1::StepResult> results;  // at most the sweep's step count
  // CSV carries no metadata: it asks for none.
  const bool describe = output.format != OutputFormat::kCsv;
  SweepContext context;
  std::string sweep_id;
  do {
    if (event.has_started()) {
      started = true;
      sweep_id = event.started().sweep_id();
      if (describe) {
        // The history has the sweep before its first event goes out.
        context = FetchSweepContext(stub, event.started().sweep_id(),
                                    event.started(), /*with_pids=*/true);
        printer->Describe(context);
      }
      // The spec that really runs (a plan's, when --plan was given).
      const v1::SweepSpec& running =
          event.started().has_spec() ? event.started().spec() : request.spec();
      total_steps = event.started().steps();
      printer->Begin(running, event.started());
    } else if (event.has_comm_ready()) {
      printer->CommReady(event.comm_ready());
    } else if (event.has_result()) {
      progress.Clear();
      printer->Add(event.result());
      std::cout.flush();
      wrong += event.result().wrong();
      results.push_back(event.result());
      progress.Update(
          ++done, total_steps,
          absl::StrCat(event.result().step().op(), " ",
                       core::FormatByteSize(event.result().step().bytes())));
    } else if (event.has_finished()) {
      finished = event.finished();
    }
  } while (reader.Read(&event));
  progress.Clear();
  absl::Status status = common::FromGrpcStatus(reader.Finish());
  if (started) {
    if (finished.sweep_id().empty()) {
      finished.set_status("failed");
      finished.set_error(std::string(status.message()));
    }
    // The finished record, for its end time (pids stay those of the start);
    // not asked of a coordinator that is gone.
    if (output.format == OutputFormat::kJson &&
        status.code() != absl::StatusCode::kUnavailable) {
      SweepContext end = FetchSweepContext(stub, sweep_id, v1::SweepStarted(),
                                           /*with_pids=*/false);
      if (end.summary) context.summary = end.summary;
      printer->Describe(context);
    }
    printer->Finish(finished);
    std::cout.flush();
  }
  if (!status.ok()) {
    if (!started) return ReportRefused(status);
    PrintError(absl::StrCat("sweep ", finished.sweep_id(), " ",
                            finished.status(), ": ", status.message()));
    // A yield to a foreign GPU process is no fabric failure: busy.
    return core::ParseSweepOutcome(finished.status()) ==
                   core::SweepOutcome::kPreempted
               ? kExitBusy
               : kExitFailed;
  }
  if (wrong > 0) {
    PrintError(absl::StrCat("sweep ", finished.sweep_id(),
                            ": data check "
                            "failed, ",
                            wrong, " wrong element(s)"));
    return kExitFailed;
  }
  std::vector<std::string> failed_gates =
      FailedMinBusbw(gates, results, output.unit);
  if (flags.fail_on_regression) {
    std::string regressed = FailedRegressionGate(results, output.unit);
    if (!regressed.empty()) failed_gates.push_back(std::move(regressed));
  }
  for (const std::string& line : failed_gates) {
    PrintError(
        absl::StrCat("sweep ", finished.sweep_id(), ": gate failed: ", line));
  }
  return failed_gates.empty() ? kExitOk : kExitGateFailed;
}

}  // namespace

int RunSweepCommand(const CoordinatorTarget& coordinator,
                    const SweepFlags& flags) {
  if (absl::Status bad = CheckSweepFlags(flags); !bad.ok()) {
    PrintError(std::string(bad.message()));
    return kExitBadInput;
  }
  // Checked: every parse below succeeds.
  auto spec = SpecFromFlags(flags);
  const OutputOptions output = *OutputOptionsFromFlags(
      flags.output, flags.bw_unit, flags.raw, flags.time_across_ranks);
  absl::StatusOr<std::vector<MinBusbw>> gates =
      ParseMinBusbw(flags.min_busbw, output.unit);
  auto stub = ConnectCoordinator(coordinator);
  if (!stub.ok()) return ReportConnectError(stub.status());

  v1::SweepRequest request;
  *request.mutable_spec() = common::SpecToProto(*spec);
  for (const std::string& node : flags.nodes) request.add_nodes(node);
  request.set_plan(flags.plan);
  request.set_allow_busy(flags.allow_busy);
  const absl::Duration wait = *ParseSweepWait(flags.wait);
  const absl::Time wait_until = absl::Now() + wait;
  absl::Duration pause = kFirstRetry;
  bool said_waiting = false;
  while (true) {
    // No overall deadline: a sweep may run for hours. The coordinator
    // bounds every op and every silence, and Ctrl-C cancels the call (and
    // so the sweep).
    grpc::ClientContext ctx;
    auto reader = (*stub)->RunSweep(&ctx, request);
    v1::SweepEvent event;
    if (reader->Read(&event)) {
      return ReadSweep(**stub, *reader, event, request, output, *gates, flags);
    }
    absl::Status refused = common::FromGrpcStatus(reader->Finish());
    const absl::Time now = absl::Now();
    if (!MembersBusy(refused) || now >= wait_until) {
      if (said_waiting) {
        refused = absl::Status(
            refused.code(),
            absl::StrCat(refused.message(), " (still after ",
                         absl::FormatDuration(wait), " of --wait)"));
      }
      return ReportRefused(refused);
    }
    if (!said_waiting) {
      PrintError(absl::StrCat(refused.message(), " (waiting up to ",
                              absl::FormatDuration(wait), ": --wait)"));
      said_waiting = true;
    }
    // The last try is at the end of --wait, not a pause before it.
    absl::SleepFor(std::min(pause, wait_until - now));
    pause = std::min(pause * 2, kMaxRetry);
  }
}

}  // namespace fabricpulse::client
