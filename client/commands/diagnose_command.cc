#include "client/commands/diagnose_command.h"

#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "client/commands/coordinator_connection.h"
#include "client/commands/exit_codes.h"
#include "client/output/diagnosis_printer.h"
#include "client/output/output_options.h"
#include "grpcpp/grpcpp.h"

namespace fabricpulse::client {

absl::Status CheckDiagnoseOutput(const std::string& output) {
  return ParseOutputFormat(output).status();
}

int RunDiagnoseCommand(const CoordinatorTarget& coordinator,
                       const std::string& sweep_id, const std::string& output) {
  if (absl::Status bad = CheckDiagnoseOutput(output); !bad.ok()) {
    PrintError(std::string(bad.message()));
    return kExitBadInput;
  }
  const OutputFormat format = *ParseOutputFormat(output);
  auto stub = ConnectCoordinator(coordinator);
  if (!stub.ok()) return ReportConnectError(stub.status());
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
  v1::DiagnoseRequest req;
  req.set_sweep_id(sweep_id);
  v1::DiagnoseResponse resp;
  grpc::Status status = (*stub)->Diagnose(&ctx, req, &resp);
  if (!status.ok()) {
    return ReportCallError("diagnose", status, /*named=*/!sweep_id.empty());
  }
  if (format == OutputFormat::kJson) {
    std::cout << DiagnosisJson(resp);
  } else if (format == OutputFormat::kCsv) {
    std::cout << DiagnosisCsv(resp);
  } else {
    PrintDiagnosisReport(resp, std::cout);
  }
  std::cout.flush();
  return kExitOk;
}

}  // namespace fabricpulse::client
