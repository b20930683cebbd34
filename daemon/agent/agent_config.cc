#include "daemon/agent/agent_config.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "daemon/common/address.h"
#include "daemon/core/name_rules.h"

namespace fabricpulse::agent {

std::vector<int> AgentConfig::GpuList() const {
  std::vector<int> out;
  for (absl::string_view part : absl::StrSplit(gpus, ',', absl::SkipEmpty())) {
    int v = -1;
    if (absl::SimpleAtoi(part, &v)) out.push_back(v);
  }
  return out;
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
  for (absl::string_view part : absl::StrSplit(gpus, ',', absl::SkipEmpty())) {
    int v = -1;
    if (!absl::SimpleAtoi(part, &v) || v < 0 || v > 1023) {
      return absl::InvalidArgumentError(
          absl::StrCat("--gpus: '", part,
                       "' is not a GPU index; allowed: a comma-"
                       "separated list of indices 0 to 1023, e.g. 0,1,2,3"));
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
  return tls.Validate();
}

}  // namespace fabricpulse::agent
