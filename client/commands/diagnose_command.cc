#include "client/commands/diagnose_command.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "client/commands/coordinator_connection.h"
#include "client/commands/exit_codes.h"
#include "grpcpp/grpcpp.h"

namespace fabricpulse::client {

int RunDiagnoseCommand(const std::string& coordinator,
                       const std::string& sweep_id) {
  auto stub = ConnectCoordinator(coordinator);
  if (!stub.ok()) return ReportConnectError(stub.status());
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
  v1::DiagnoseRequest req;
  req.set_sweep_id(sweep_id);
  v1::DiagnoseResponse resp;
  grpc::Status status = (*stub)->Diagnose(&ctx, req, &resp);
  if (!status.ok()) {
    PrintError(absl::StrCat("diagnose: ", status.error_message()));
    return kExitFailed;
  }
  std::printf("sweep %s\n%s\n", resp.sweep_id().c_str(),
              resp.summary().c_str());
  if (resp.verdicts_size() > 0) std::printf("\nverdicts:\n");
  for (const auto& v : resp.verdicts()) std::printf("  %s\n", v.c_str());
  if (resp.evidence_size() > 0) std::printf("\nevidence:\n");
  for (const auto& e : resp.evidence()) std::printf("  %s\n", e.c_str());
  if (resp.verdicts_size() == 0 && resp.evidence_size() == 0 &&
      !resp.json().empty()) {
    std::printf("\n%s\n", resp.json().c_str());
  }
  return kExitOk;
}

}  // namespace fabricpulse::client
