#include "client/commands/matrix_command.h"

#include <iostream>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "client/commands/exit_codes.h"
#include "client/commands/sweep_collect.h"
#include "client/output/matrix_confirm.h"
#include "client/output/matrix_printer.h"
#include "client/output/output_options.h"
#include "client/output/progress_line.h"
#include "daemon/common/spec_convert.h"
#include "daemon/core/byte_size.h"
#include "daemon/core/duration_text.h"
#include "daemon/core/sweep_outcome.h"
#include "daemon/core/sweep_spec.h"
#include "grpcpp/grpcpp.h"

namespace fabricpulse::client {
namespace {

absl::StatusOr<core::SweepSpec> MatrixSpec(const MatrixFlags& flags) {
  return OneSizeSpec("pairwise", flags.bytes, flags.timeout, flags.iters,
                     flags.warmup);
}

// The stored sweep's matrix; its exit code.
int ShowStored(v1::CoordinatorService::Stub& stub, const MatrixFlags& flags,
               const OutputOptions& output) {
  v1::GetSweepResponse sweep;
  if (int rc = FetchStoredSweep(stub, "matrix", flags.sweep_id, &sweep);
      rc != kExitOk) {
    return rc;
  }
  const std::vector<v1::StepResult> results(sweep.results().begin(),
                                            sweep.results().end());
  const PairMatrix matrix = BuildPairMatrix(sweep.sweep().sweep_id(),
                                            sweep.sweep().nranks(), results);
  if (matrix.pairs == 0) {
    PrintError(absl::StrCat("matrix: sweep ", flags.sweep_id,
                            " measured no rank pairs (not a matrix sweep)"));
    return kExitBadInput;
  }
  PrintPairMatrix(matrix, output, std::cout);
  return flags.fail_on_flagged && matrix.flagged > 0 ? kExitGateFailed
                                                     : kExitOk;
}

}  // namespace

absl::Status CheckMatrixFlags(const MatrixFlags& flags, int nranks) {
  auto spec = MatrixSpec(flags);
  if (!spec.ok()) return spec.status();
  if (auto f = ParseOutputFormat(flags.output); !f.ok()) return f.status();
  if (auto u = ParseBwUnit(flags.bw_unit); !u.ok()) return u.status();
  if (auto m = ParseProgressMode(flags.progress); !m.ok()) return m.status();
  if (nranks > 0 && flags.nodes.empty() && flags.sweep_id.empty()) {
    auto resolved = core::Validate(*spec, nranks);
    if (!resolved.ok()) return resolved.status();
  }
  return absl::OkStatus();
}

int RunMatrixCommand(const CoordinatorTarget& coordinator,
                     const MatrixFlags& flags) {
  if (absl::Status bad = CheckMatrixFlags(flags); !bad.ok()) {
    PrintError(std::string(bad.message()));
    return kExitBadInput;
  }
  OutputOptions output;
  output.format = *ParseOutputFormat(flags.output);
  output.unit = *ParseBwUnit(flags.bw_unit);
  auto stub = ConnectCoordinator(coordinator);
  if (!stub.ok()) return ReportConnectError(stub.status());
  if (!flags.sweep_id.empty()) return ShowStored(**stub, flags, output);

  v1::SweepRequest request;
  *request.mutable_spec() = common::SpecToProto(*MatrixSpec(flags));
  for (const std::string& node : flags.nodes) request.add_nodes(node);
  ProgressLine progress(2, *ParseProgressMode(flags.progress));
  absl::StatusOr<CollectedSweep> sweep =
      RunAndCollect(**stub, request, &progress, "matrix rounds");
  if (!sweep.ok()) return ReportRefusal("matrix", sweep.status());
  const std::string& sweep_id = sweep->sweep_id;
  const absl::Status& status = sweep->status;
  const v1::SweepFinished& finished = sweep->finished;
  PairMatrix matrix = BuildPairMatrix(sweep_id, sweep->nranks, sweep->results);
  if (status.ok() && matrix.wrong == 0 && matrix.flagged > 0 && flags.confirm) {
    // One bad number is a suspect: the same matrix again, and only the
    // pairs flagged twice stay flagged.
    absl::StatusOr<CollectedSweep> again =
        RunAndCollect(**stub, request, &progress, "matrix confirmation");
    if (!again.ok()) return ReportRefusal("matrix", again.status());
    if (!again->status.ok()) {
      PrintError(absl::StrCat("matrix confirmation sweep ", again->sweep_id,
                              " ", again->finished.status(), ": ",
                              again->status.message()));
      return kExitFailed;
    }
    ConfirmFlagged(matrix, BuildPairMatrix(again->sweep_id, again->nranks,
                                           again->results));
  }
  if (matrix.pairs > 0) PrintPairMatrix(matrix, output, std::cout);
  std::cout.flush();
  if (!status.ok()) {
    PrintError(absl::StrCat("matrix sweep ", sweep_id, " ", finished.status(),
                            ": ", status.message()));
    return core::ParseSweepOutcome(finished.status()) ==
                   core::SweepOutcome::kPreempted
               ? kExitBusy
               : kExitFailed;
  }
  if (matrix.wrong > 0) {
    PrintError(absl::StrCat("matrix sweep ", sweep_id, ": data check failed, ",
                            matrix.wrong, " wrong element(s)"));
    return kExitFailed;
  }
  if (matrix.flagged > 0) {
    PrintError(absl::StrCat(
        "matrix sweep ", sweep_id, ": ", matrix.flagged, " of ", matrix.pairs,
        " pair(s) flagged slow (SLOW rows)",
        matrix.confirmed_by.empty()
            ? ""
            : absl::StrCat(", each again in sweep ", matrix.confirmed_by)));
    if (flags.fail_on_flagged) return kExitGateFailed;
  }
  return kExitOk;
}

}  // namespace fabricpulse::client
