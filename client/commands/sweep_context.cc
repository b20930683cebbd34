#include "client/commands/sweep_context.h"

#include <map>
#include <utility>

#include "absl/time/clock.h"
#include "grpcpp/grpcpp.h"

namespace fabricpulse::client {
namespace {

void SetDeadline(grpc::ClientContext& ctx) {
  ctx.set_deadline(
      absl::ToChronoTime(absl::Now() + absl::Seconds(kContextCallSeconds)));
}

}  // namespace

SweepContext FetchSweepContext(v1::CoordinatorService::Stub& stub,
                               const std::string& sweep_id,
                               const v1::SweepStarted& started,
                               bool with_pids) {
  SweepContext context;
  {
    grpc::ClientContext ctx;
    SetDeadline(ctx);
    v1::GetSweepRequest req;
    req.set_sweep_id(sweep_id);
    v1::GetSweepResponse resp;
    if (stub.GetSweep(&ctx, req, &resp).ok()) context.summary = resp.sweep();
  }
  if (!with_pids) return context;
  const auto& ranks = started.ranks_size() > 0 || !context.summary
                          ? started.ranks()
                          : context.summary->ranks();
  if (ranks.empty()) return context;
  grpc::ClientContext ctx;
  SetDeadline(ctx);
  v1::ListAgentsResponse agents;
  if (!stub.ListAgents(&ctx, v1::ListAgentsRequest(), &agents).ok()) {
    return context;
  }
  std::map<std::pair<std::string, int>, int> pid_of;  // (node, local index)
  for (const v1::AgentInfo& a : agents.agents()) {
    for (const v1::WorkerInfo& w : a.workers()) {
      if (w.pid() > 0) pid_of[{a.node_name(), w.local_index()}] = w.pid();
    }
  }
  for (const v1::RankPlacement& r : ranks) {
    auto it = pid_of.find({r.node(), r.local_index()});
    if (it != pid_of.end()) context.pids[r.rank()] = it->second;
  }
  return context;
}

}  // namespace fabricpulse::client
