#include "daemon/agent/agent_config.h"

#include <unistd.h>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "daemon/agent/machine_topology.h"
#include "daemon/common/address.h"
#include "daemon/core/agent_labels.h"
#include "daemon/core/bounded_file.h"
#include "daemon/core/name_rules.h"

namespace fabricpulse::agent {

namespace {

std::vector<int> ParseIndices(const std::string& list) {
  std::vector<int> out;
  for (absl::string_view part : absl::StrSplit(list, ',', absl::SkipEmpty())) {
    int v = -1;
    if (absl::SimpleAtoi(part, &v)) out.push_back(v);
  }
  return out;
}

// Errors: INVALID_ARGUMENT naming `flag` and the entry.
absl::Status ValidateIndices(const char* flag, const std::string& list) {
  for (absl::string_view part : absl::StrSplit(list, ',', absl::SkipEmpty())) {
    int v = -1;
    if (!absl::SimpleAtoi(part, &v) || v < 0 || v > 1023) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag, ": '", part,
                       "' is not a GPU index; allowed: a comma-"
                       "separated list of indices 0 to 1023, e.g. 0,1,2,3"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<int> AgentConfig::GpuList() const { return ParseIndices(gpus); }

absl::StatusOr<core::AgentLabels> AgentConfig::Labels() const {
  absl::StatusOr<core::AgentLabels> given =
      core::ParseLabels("--labels", labels);
  if (!given.ok() || labels_dir.empty()) return given;
  // The node's own file; none: this node has no per-node labels.
  if (::access(labels_dir.c_str(), R_OK | X_OK) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--labels-dir: '", labels_dir, "' is not a readable folder"));
  }
  const std::string path = absl::StrCat(labels_dir, "/", node_name);
  absl::StatusOr<std::string> text = core::ReadBoundedFile(
      path, core::kMaxConfigFileBytes, "--labels-dir file");
  if (text.status().code() == absl::StatusCode::kNotFound) return given;
  if (!text.ok()) return text.status();
  absl::StatusOr<core::AgentLabels> own =
      core::ParseLabels(absl::StrCat("--labels-dir file '", path, "'"),
                        absl::StripAsciiWhitespace(*text));
  if (!own.ok()) return own.status();
  for (const auto& [key, value] : *own) (*given)[key] = value;
  if (absl::Status bounded =
          core::ValidateLabels("--labels with --labels-dir's file", *given);
      !bounded.ok()) {
    return bounded;
  }
  return given;
}

std::vector<int> AgentConfig::GlooProbeGpuList() const {
  return ParseIndices(gloo_probe_gpus);
}

absl::Duration AgentConfig::TopologyRefresh() const {
  absl::Duration refresh = kDefaultTopologyRefresh;
  (void)absl::ParseDuration(topology_refresh, &refresh);
  return refresh;
}

absl::Status AgentConfig::Validate() const {
  if (coordinator.empty()) {
    return absl::InvalidArgumentError(
        "--coordinator: required (HOST:PORT of fabricpulse-coordinator)");
  }
  for (auto [flag, value] : {std::pair<const char*, const std::string*>{
                                 "--coordinator", &coordinator},
                             {"--listen", &listen},
                             {"--metrics-listen", &metrics_listen}}) {
    auto hp = common::ParseHostPort(*value, flag);
    if (!hp.ok()) return hp.status();
  }
  if (!health_listen.empty()) {
    auto hp = common::ParseHostPort(health_listen, "--health-listen");
    if (!hp.ok()) return hp.status();
  }
  if (absl::Status parsed = Labels().status(); !parsed.ok()) return parsed;
  absl::Duration refresh;
  if (!absl::ParseDuration(topology_refresh, &refresh) ||
      refresh < kMinTopologyRefresh || refresh > kMaxTopologyRefresh) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--topology-refresh: '", topology_refresh.substr(0, 32),
        "' is not allowed; allowed: a duration of 1s to 1h (e.g. 60s)"));
  }
  if (absl::Status name = core::ValidateNodeName("--node-name", node_name);
      !name.ok()) {
    return name;
  }
  if (backend != "auto" && backend != "gloo" && backend != "nccl") {
    return absl::InvalidArgumentError(
        absl::StrCat("--backend: unknown backend '", backend,
                     "'; allowed: auto, nccl, gloo"));
  }
  if (ranks && (*ranks < 1 || *ranks > kMaxRanks)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--ranks: ", *ranks, " is out of range; allowed: 1 to ", kMaxRanks,
        " (leave it out for one rank per GPU, or 1 without GPUs)"));
  }
  for (auto [flag, list] :
       {std::pair<const char*, const std::string*>{"--gpus", &gpus},
        {"--gloo-probe-gpus", &gloo_probe_gpus}}) {
    if (absl::Status valid = ValidateIndices(flag, *list); !valid.ok()) {
      return valid;
    }
  }
  if (backend == "gloo" && !gpus.empty()) {
    return absl::InvalidArgumentError(
        "--gpus: only meaningful with --backend nccl (gloo runs CPU ranks; "
        "use --ranks)");
  }
  if (absl::Status resources = worker_resources.Parse().status();
      !resources.ok()) {
    return resources;
  }
  if (!gloo_probe_gpus.empty()) {
    const int n = static_cast<int>(GlooProbeGpuList().size());
    if (backend != "gloo") {
      return absl::InvalidArgumentError(
          "--gloo-probe-gpus: a test seam for --backend gloo only (NCCL "
          "ranks are probed on their own GPUs)");
    }
    if (ranks && *ranks != n) {
      return absl::InvalidArgumentError(
          absl::StrCat("--gloo-probe-gpus: ", n, " GPU(s) listed for ", *ranks,
                       " --ranks; list one GPU per rank"));
    }
  }
  return tls.Validate();
}

}  // namespace fabricpulse::agent
