#include "client/commands/agents_command.h"

#include <cstdio>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "client/commands/coordinator_connection.h"
#include "client/commands/exit_codes.h"
#include "daemon/common/grpc_status.h"

namespace fabricpulse::client {

int RunAgentsCommand(const CoordinatorTarget& coordinator) {
  auto stub = ConnectCoordinator(coordinator);
  if (!stub.ok()) return ReportConnectError(stub.status());
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  v1::ListAgentsRequest req;
  v1::ListAgentsResponse resp;
  grpc::Status status = (*stub)->ListAgents(&ctx, req, &resp);
  if (!status.ok()) return ReportCallError("agents", status);
  std::printf("%-20s %-6s %-22s %-8s %5s %5s %8s %9s  %s\n", "NODE", "STATE",
              "ADDRESS", "BACKEND", "RANKS", "READY", "RESTARTS", "HEARTBEAT",
              "BUSY-GPUS");
  for (const v1::AgentInfo& a : resp.agents()) {
    int ready = 0, restarts = 0;
    // GPUs other compute processes use (the agent's NVML check).
    std::set<int> busy;
    for (const v1::WorkerInfo& w : a.workers()) {
      ready += w.ready() ? 1 : 0;
      restarts += w.restarts();
      if (w.gpu_busy()) busy.insert(w.gpu());
    }
    std::printf("%-20s %-6s %-22s %-8s %5d %5d %8d %8.1fs  %s\n",
                a.node_name().c_str(), a.state().c_str(), a.address().c_str(),
                a.backend().c_str(), a.workers_size(), ready, restarts,
                a.seconds_since_heartbeat(),
                busy.empty() ? "-" : absl::StrJoin(busy, ",").c_str());
  }
  std::printf("# %d agent(s), membership epoch %llu\n", resp.agents_size(),
              static_cast<unsigned long long>(resp.membership_epoch()));
  return kExitOk;
}

}  // namespace fabricpulse::client
