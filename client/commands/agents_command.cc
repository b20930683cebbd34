#include "client/commands/agents_command.h"

#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "client/commands/list_command.h"
#include "client/output/text_table.h"

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

// "ib0 infiniband up 400 Gb/s" (no speed when it reports none).
std::string NicText(const v1::NicInfo& nic) {
  std::string text =
      absl::StrCat(nic.name(), " ", nic.kind(), " ", nic.state());
  if (nic.has_speed_bits_per_second()) {
    absl::StrAppend(&text, " ",
                    absl::StrFormat("%g", nic.speed_bits_per_second() / 1e9),
                    " Gb/s");
  }
  return text;
}

// Each GPU worker's line ("  gpu 0: NVIDIA H200, bus 00000000:18:00.0,
// nvlink 1,2 (18 links active)"), a line per link below the node's peers
// and the NICs' line, for workers and agents that report them.
std::string DetailLines(const v1::AgentInfo& a) {
  std::string out;
  for (const v1::WorkerInfo& w : a.workers()) {
    if (w.gpu() < 0 || (w.gpu_model().empty() && w.pci_bus_id().empty() &&
                        w.nvlink_peers().empty())) {
      continue;
    }
    absl::StrAppend(&out, "  gpu ", w.gpu(), ": ",
                    w.gpu_model().empty() ? "model unknown" : w.gpu_model());
    if (!w.pci_bus_id().empty())
      absl::StrAppend(&out, ", bus ", w.pci_bus_id());
    absl::StrAppend(
        &out, ", nvlink ",
        w.nvlink_peers().empty() ? "-" : absl::StrJoin(w.nvlink_peers(), ","));
    if (w.has_nvlink_active_links()) {
      absl::StrAppend(&out, " (", w.nvlink_active_links(), " links active)");
    }
    absl::StrAppend(&out, "\n");
  }
  for (const std::string& finding : a.link_findings()) {
    absl::StrAppend(&out, "  DEGRADED, below its peers: ", finding, "\n");
  }
  if (a.nics_size() > 0) {
    absl::StrAppend(&out, "  nics: ",
                    absl::StrJoin(a.nics(), ", ",
                                  [](std::string* o, const v1::NicInfo& nic) {
                                    o->append(NicText(nic));
                                  }),
                    "\n");
  }
  if (a.labels_size() > 0) {
    const std::map<std::string, std::string> labels(a.labels().begin(),
                                                    a.labels().end());
    absl::StrAppend(&out, "  labels: ",
                    absl::StrJoin(labels, ",", absl::PairFormatter("=")), "\n");
  }
  return out;
}

std::string Table(const v1::ListAgentsResponse& resp) {
  // Columns as wide as their widest cell (a 40-character node name shifts
  // nothing); each agent's detail lines follow its row.
  std::vector<std::vector<std::string>> rows = {
      {"NODE", "STATE", "ADDRESS", "BACKEND", "RANKS", "READY", "RESTARTS",
       "HEARTBEAT", "BUSY-GPUS"}};
  for (const v1::AgentInfo& a : resp.agents()) {
    const AgentCounts c = Count(a);
    rows.push_back({a.node_name(), a.state(), a.address(), a.backend(),
                    absl::StrCat(a.workers_size()), absl::StrCat(c.ready),
                    absl::StrCat(c.restarts),
                    absl::StrFormat("%.1fs", a.seconds_since_heartbeat()),
                    c.busy.empty() ? "-" : absl::StrJoin(c.busy, ",")});
  }
  const std::vector<std::string> lines =
      absl::StrSplit(AlignedTable(rows), '\n', absl::SkipEmpty());
  std::string out = lines[0] + "\n";
  for (int i = 0; i < resp.agents_size(); ++i) {
    absl::StrAppend(&out, lines[i + 1], "\n", DetailLines(resp.agents(i)));
  }
  absl::StrAppendFormat(&out, "# %d agent(s), membership epoch %d\n",
                        resp.agents_size(), resp.membership_epoch());
  return out;
}

// The CSV's last three fields: the GPU models (distinct, ';'-separated),
// each GPU's NVLink peers (GPU:PEER+PEER;...) and the NICs
// (NAME=STATE;...).
std::string CsvTopology(const v1::AgentInfo& a) {
  std::set<std::string> models;
  std::vector<std::string> peers;
  for (const v1::WorkerInfo& w : a.workers()) {
    if (!w.gpu_model().empty()) models.insert(w.gpu_model());
    if (w.nvlink_peers_size() > 0) {
      peers.push_back(
          absl::StrCat(w.gpu(), ":", absl::StrJoin(w.nvlink_peers(), "+")));
    }
  }
  std::vector<std::string> nics;
  for (const v1::NicInfo& nic : a.nics()) {
    nics.push_back(absl::StrCat(nic.name(), "=", nic.state()));
  }
  return absl::StrCat(absl::StrJoin(models, ";"), ",",
                      absl::StrJoin(peers, ";"), ",", absl::StrJoin(nics, ";"));
}

std::string Csv(const v1::ListAgentsResponse& resp) {
  std::string out =
      "node,state,address,backend,backend_version,ranks,ready,restarts,"
      "seconds_since_heartbeat,busy_gpus,gpu_models,nvlink_peers,nics,"
      "links_degraded\n";
  for (const v1::AgentInfo& a : resp.agents()) {
    const AgentCounts c = Count(a);
    absl::StrAppend(&out, a.node_name(), ",", a.state(), ",", a.address(), ",",
                    a.backend(), ",", a.backend_version(), ",",
                    a.workers_size(), ",", c.ready, ",", c.restarts, ",",
                    absl::StrFormat("%.3f", a.seconds_since_heartbeat()), ",",
                    absl::StrJoin(c.busy, ";"), ",", CsvTopology(a), ",",
                    a.link_findings_size() > 0 ? 1 : 0, "\n");
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
