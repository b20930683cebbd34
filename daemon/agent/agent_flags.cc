#include "daemon/agent/agent_flags.h"

#include "daemon/common/shared_flags.h"

namespace fabricpulse::agent {

void AddAgentFlags(CLI::App& app, AgentConfig& config) {
  app.add_option("--coordinator", config.coordinator,
                 "Coordinator gRPC address HOST:PORT")
      ->envname("FABRICPULSE_COORDINATOR");
  common::AddListenFlags(app, config.listen, config.metrics_listen);
  app.add_option("--node-name", config.node_name,
                 "This node's name (default: hostname)")
      ->envname("FABRICPULSE_NODE_NAME")
      ->capture_default_str();
  app.add_option("--labels", config.labels,
                 "Labels campaign plans select on and group by, "
                 "key=value[,key=value...] (at most 16; keys and values of up "
                 "to 63 of A-Z a-z 0-9 . _ -), e.g. rack=r12,pool=train")
      ->envname("FABRICPULSE_LABELS");
  app.add_option("--labels-dir", config.labels_dir,
                 "Folder with one file per node name holding that node's "
                 "labels in --labels syntax (a ConfigMap mounted as a folder); "
                 "this node's file overrides --labels key by key; read at "
                 "start")
      ->envname("FABRICPULSE_LABELS_DIR");
  app.add_option("--nfd-features-dir", config.nfd_features_dir,
                 "Publish this node's verdict as node labels: keep a "
                 "node-feature-discovery feature file (fabricpulse.io/"
                 "nccl-health, -tested, -plan; expiring with the verdict) in "
                 "this folder, e.g. /etc/kubernetes/node-feature-discovery/"
                 "features.d (default: off)")
      ->envname("FABRICPULSE_NFD_FEATURES_DIR");
  app.add_option("--verdict-file", config.verdict_file,
                 "Keep this node's verdict in this file (JSON) for "
                 "`fabricpulse node-check`, node-problem-detector's plugin "
                 "(default: off)")
      ->envname("FABRICPULSE_VERDICT_FILE");
  app.add_option("--backend", config.backend, "auto, nccl or gloo")
      ->envname("FABRICPULSE_BACKEND")
      ->capture_default_str();
  app.add_option("--ranks", config.ranks,
                 "Ranks to run, 1 to 512 (default: one per GPU, or 1)")
      ->envname("FABRICPULSE_RANKS");
  app.add_option("--gpus", config.gpus,
                 "GPU indices to run, e.g. 0,1 (nccl); NVML (nvidia-smi) "
                 "order, which the busy-GPU check also uses")
      ->envname("FABRICPULSE_GPUS");
  app.add_option("--gloo-probe-gpus", config.gloo_probe_gpus,
                 "Test seam, --backend gloo only: account Gloo rank i to GPU "
                 "i of this list (NVML index) in the busy-GPU check, e.g. "
                 "0,1 with a stand-in libnvidia-ml; the ranks still run on "
                 "CPUs")
      ->envname("FABRICPULSE_GLOO_PROBE_GPUS");
  app.add_option("--sys-class-net", config.sys_class_net,
                 "Folder listing the network interfaces the agent reports "
                 "(loopback and virtual ones left out)")
      ->envname("FABRICPULSE_SYS_CLASS_NET")
      ->capture_default_str();
  app.add_option("--topology-refresh", config.topology_refresh,
                 "How often to re-read the GPUs' NVLinks and the NICs (1s to "
                 "1h); a change is reported once two reads in a row agree")
      ->envname("FABRICPULSE_TOPOLOGY_REFRESH")
      ->capture_default_str();
  app.add_option("--port-file", config.port_file,
                 "Write grpc=HOST:PORT and metrics=HOST:PORT (and "
                 "health=HOST:PORT) here once listening")
      ->envname("FABRICPULSE_PORT_FILE");
  common::AddWorkerResourceFlags(app, config.worker_resources);
  common::AddTlsFlags(app, config.tls);
  app.add_option("--run-dir", config.run_dir,
                 "Folder for the private worker-socket folder "
                 "DIR/fabricpulse-agent-UID/NODE/ (default: $XDG_RUNTIME_DIR, "
                 "else /tmp)")
      ->envname("FABRICPULSE_RUN_DIR");
  common::AddEndpointFlags(app, config.web_config_file, config.health_listen);
}

}  // namespace fabricpulse::agent
