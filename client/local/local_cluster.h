// A whole FabricPulse system on this machine: one coordinator and M agents
// of N ranks each, on 127.0.0.1 with ephemeral ports and a temporary state
// directory, spawned from the real daemon binaries. Used by `fabricpulse
// local` and by the integration tests.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace fabricpulse::client {

struct LocalClusterOptions {
  // Folder holding fabricpulse-coordinator, -agent and -worker.
  std::string bin_dir;
  int agents = 1;
  int ranks = 2;  // per agent
  std::string backend = "gloo";
  // The coordinator's --config (empty: none).
  std::string config_file;
  // Extra "NAME=value" environment for the daemons (and their workers).
  std::vector<std::string> env;
  absl::Duration ready_timeout = absl::Seconds(60);
};

class LocalCluster {
 public:
  // Starts the daemons and waits until every agent is registered with all
  // its workers ready. Errors: INVALID_ARGUMENT bad options; NOT_FOUND a
  // binary is missing; DEADLINE_EXCEEDED not ready in time (the message
  // names the log folder).
  static absl::StatusOr<std::unique_ptr<LocalCluster>> Start(
      const LocalClusterOptions& options);
  ~LocalCluster();  // Stop()

  // Terminates agents (and so their workers) then the coordinator, and
  // removes the temporary folder. Idempotent.
  void Stop();

  const std::string& coordinator() const { return coordinator_; }
  const std::string& coordinator_metrics() const { return metrics_; }
  const std::vector<std::string>& agent_metrics() const {
    return agent_metrics_;
  }
  const std::vector<pid_t>& agent_pids() const { return agent_pids_; }
  pid_t coordinator_pid() const { return coordinator_pid_; }
  const std::string& dir() const { return dir_; }
  std::string NodeName(int agent) const;

  // Kills the coordinator with SIGKILL (no clean shutdown) and starts a new
  // one on the same address and state folder, as a crash and a restart by a
  // supervisor would. Errors: the new one did not start.
  absl::Status CrashAndRestartCoordinator();

  // The command line (argv[0] first) of an agent of `node` against this
  // cluster's coordinator, as the cluster starts its own, writing its
  // ports to `port_file` and its worker sockets under `run_dir`; tests
  // append --ranks and start extra agents with it.
  std::vector<std::string> AgentArgv(const std::string& node,
                                     const std::string& port_file,
                                     const std::string& run_dir) const;

  // Waits until `agents` agents are alive with every worker ready.
  absl::Status WaitReady(int agents, absl::Duration timeout) const;

 private:
  LocalCluster() = default;
  absl::Status StartAgent(int index);
  absl::Status StartCoordinator(const std::string& listen);

  LocalClusterOptions options_;
  std::string dir_;
  std::string coordinator_;
  std::string metrics_;
  pid_t coordinator_pid_ = -1;
  std::vector<pid_t> agent_pids_;
  std::vector<std::string> agent_metrics_;
  bool stopped_ = false;
};

}  // namespace fabricpulse::client
