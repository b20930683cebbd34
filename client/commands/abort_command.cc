#include "client/commands/abort_command.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "client/commands/coordinator_connection.h"
#include "client/commands/exit_codes.h"

namespace fabricpulse::client {

int RunAbortCommand(const CoordinatorTarget& coordinator,
                    const std::string& sweep_id) {
  auto stub = ConnectCoordinator(coordinator);
  if (!stub.ok()) return ReportConnectError(stub.status());
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  v1::AbortSweepRequest req;
  req.set_sweep_id(sweep_id);
  v1::AbortSweepResponse resp;
  grpc::Status status = (*stub)->AbortSweep(&ctx, req, &resp);
  if (!status.ok()) return ReportCallError("abort", status);
  for (const std::string& id : resp.aborted()) {
    std::printf("abort requested for sweep %s\n", id.c_str());
  }
  return kExitOk;
}

}  // namespace fabricpulse::client
