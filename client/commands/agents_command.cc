#include "client/commands/agents_command.h"

#include <cstdio>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/commands/list_command.h"

namespace fabricpulse::client {
namespace {

struct AgentCounts {
  int ready = 0;
  int restarts = 0;
  std::set<int> busy;  // GPUs other compute processes use (NVML check)
};

AgentCounts Count(const v1::AgentInfo& a) {
  AgentCounts c;
  for (const v1::WorkerInfo& w : a.workers()) {
    c.ready += w.ready() ? 1 : 0;
    c.restarts += w.restarts();
    if (w.gpu_busy()) c.busy.insert(w.gpu());
  }
  return c;
}

std::string Table(const v1::ListAgentsResponse& resp) {
  std::string out = absl::StrFormat(
      "%-20s %-6s %-22s %-8s %5s %5s %8s %9s  %s\n", "NODE", "STATE", "ADDRESS",
      "BACKEND", "RANKS", "READY", "RESTARTS", "HEARTBEAT", "BUSY-GPUS");
  for (const v1::AgentInfo& a : resp.agents()) {
    const AgentCounts c = Count(a);
    absl::StrAppendFormat(
        &out, "%-20s %-6s %-22s %-8s %5d %5d %8d %8.1fs  %s\n", a.node_name(),
        a.state(), a.address(), a.backend(), a.workers_size(), c.ready,
        c.restarts, a.seconds_since_heartbeat(),
        c.busy.empty() ? "-" : absl::StrJoin(c.busy, ","));
  }
  absl::StrAppendFormat(&out, "# %d agent(s), membership epoch %d\n",
                        resp.agents_size(), resp.membership_epoch());
  return out;
}

std::string Csv(const v1::ListAgentsResponse& resp) {
  std::string out =
      "node,state,address,backend,backend_version,ranks,ready,restarts,"
      "seconds_since_heartbeat,busy_gpus\n";
  for (const v1::AgentInfo& a : resp.agents()) {
    const AgentCounts c = Count(a);
    absl::StrAppend(&out, a.node_name(), ",", a.state(), ",", a.address(), ",",
                    a.backend(), ",", a.backend_version(), ",",
                    a.workers_size(), ",", c.ready, ",", c.restarts, ",",
                    absl::StrFormat("%.3f", a.seconds_since_heartbeat()), ",",
                    absl::StrJoin(c.busy, ";"), "\n");
  }
  return out;
}

}  // namespace

std::string FormatAgents(const v1::ListAgentsResponse& agents,
                         OutputFormat format) {
  return FormatListing(agents, format, &Csv, &Table);
}

int RunAgentsCommand(const CoordinatorTarget& coordinator,
                     const std::string& output) {
  return RunListCommand(coordinator, "agents", output,
                        &v1::CoordinatorService::Stub::ListAgents,
                        &FormatAgents);
}

}  // namespace fabricpulse::client
