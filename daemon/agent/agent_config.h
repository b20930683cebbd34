// fabricpulse-agent's configuration, as parsed from flags/environment.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "daemon/common/worker_resources.h"
#include "daemon/core/agent_labels.h"
#include "daemon/security/tls_options.h"

namespace fabricpulse::agent {

struct AgentConfig {
  static constexpr int kMaxRanks = 512;

  std::string coordinator;
  std::string listen = "0.0.0.0:0";
  std::string metrics_listen = "0.0.0.0:0";
  std::string node_name;
  // --labels k=v,... (core/agent_labels.h).
  std::string labels;
  // --labels-dir: a folder with a file per node name holding that node's
  // labels in --labels syntax (a ConfigMap mounted as a folder); they
  // override --labels key by key. "" = none.
  std::string labels_dir;
  // --nfd-features-dir: where to keep the node-feature-discovery feature
  // file of this node's verdict; "" = off (agent/verdict_publisher.h).
  std::string nfd_features_dir;
  // --verdict-file: where to keep this node's verdict for `fabricpulse
  // node-check`; "" = off.
  std::string verdict_file;
  std::string backend = "auto";
  // Ranks to run (1 to kMaxRanks); not given: one per GPU (nccl) or 1.
  std::optional<int> ranks;
  std::string gpus;  // "0,1,..." (nccl)
  // Test seam (--gloo-probe-gpus "0,1,..."): Gloo rank i is accounted to
  // GPU i of this list (an NVML index) by the busy-GPU check, as an NCCL
  // rank on that GPU would be, so that the check, the refusal and the
  // yield run on machines without CUDA (with a stand-in NVML,
  // tests/fakes/fake_libnvidia_ml.cc). The ranks still run on CPUs; only
  // with --backend gloo; one entry per rank.
  std::string gloo_probe_gpus;
  std::string port_file;
  // Where the machine's network interfaces are listed (--sys-class-net;
  // nic_reader.h). Tests point it at a tree of their own.
  std::string sys_class_net = "/sys/class/net";
  // How often the agent re-reads its GPUs' NVLinks and its NICs
  // (--topology-refresh; machine_topology.h): a duration of 1s to 1h.
  std::string topology_refresh = "60s";
  // --tls-*, --insecure, --trust-domain; the workers use the same files.
  security::TlsOptions tls;
  // Base of the private worker-socket folder (RunDir); empty:
  // $XDG_RUNTIME_DIR, else /tmp.
  std::string run_dir;
  std::string web_config_file;  // /metrics TLS and basic auth; "" = none
  std::string health_listen;    // plaintext grpc.health.v1 only; "" = none
  // What each worker keeps between sweeps (--buffer-budget,
  // --release-idle-after).
  common::WorkerResourceFlags worker_resources;

  // Errors: INVALID_ARGUMENT naming the flag, its value and what is allowed.
  absl::Status Validate() const;
  // --labels, overridden key by key by this node's file in --labels-dir
  // (when it has one). Errors: INVALID_ARGUMENT naming the flag or file, the
  // bad entry and the rule (core/agent_labels.h), or a file that cannot be
  // read.
  absl::StatusOr<core::AgentLabels> Labels() const;
  // topology_refresh parsed (Validate() checked it).
  absl::Duration TopologyRefresh() const;
  // The GPU list parsed from `gpus` (empty when none given).
  std::vector<int> GpuList() const;
  // The same of `gloo_probe_gpus`.
  std::vector<int> GlooProbeGpuList() const;
};

}  // namespace fabricpulse::agent
