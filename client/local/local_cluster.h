// A whole FabricPulse system on this machine: one coordinator and M agents
// of N ranks each, on 127.0.0.1 with ephemeral ports and a temporary state
// directory, spawned from the real daemon binaries. Used by `fabricpulse
// local` and by the integration tests.
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "daemon/common/process.h"
#include "daemon/security/cert_set.h"
#include "daemon/security/identity.h"
#include "daemon/security/tls_options.h"

namespace fabricpulse::client {

struct LocalClusterOptions {
  // Folder holding fabricpulse-coordinator, -agent and -worker.
  std::string bin_dir;
  int agents = 1;
  int ranks = 2;  // per agent
  std::string backend = "gloo";
  // The coordinator's --config (empty: none).
  std::string config_file;
  // The coordinator's --state-dir (its history), kept after Stop; empty: a
  // folder inside the cluster's temporary folder, removed with it.
  std::string state_dir;
  // Extra "NAME=value" environment for the daemons (and their workers).
  std::vector<std::string> env;
  // More of it for agent i only (agent_env[i], after `env`); tests give
  // each agent a machine of its own this way.
  std::vector<std::vector<std::string>> agent_env;
  absl::Duration ready_timeout = absl::Seconds(60);
  // Plaintext daemons (--insecure) instead of mutual TLS with a throwaway
  // CA: for tests of the plaintext mode only.
  bool insecure = false;
};

// Whether FABRICPULSE_KEEP_LOCAL_DIR asks to keep the temporary folder (set,
// and neither empty nor "0").
bool KeepLocalDir();

class LocalCluster {
 public:
  // Create, then Launch.
  static absl::StatusOr<std::unique_ptr<LocalCluster>> Start(
      const LocalClusterOptions& options);
  // Checks the options and makes the temporary folder; starts nothing.
  // Errors: INVALID_ARGUMENT bad options; INTERNAL no folder.
  static absl::StatusOr<std::unique_ptr<LocalCluster>> Create(
      const LocalClusterOptions& options);
  ~LocalCluster();  // Stop()

  // Makes the certificates, starts the daemons and waits until every agent
  // is registered with all its workers ready. Call once. Errors: NOT_FOUND
  // a binary is missing; DEADLINE_EXCEEDED not ready in time (the message
  // names the log folder); CANCELLED Stop was called.
  absl::Status Launch();

  // Terminates agents (and so their workers) then the coordinator, and
  // removes the temporary folder unless KeepLocalDir(). Idempotent and
  // thread-safe: it may end a Launch running on another thread (which then
  // fails), and a second call returns once the first is done.
  void Stop();

  const std::string& coordinator() const { return coordinator_; }
  const std::string& coordinator_metrics() const { return metrics_; }
  const std::vector<std::string>& agent_metrics() const {
    return agent_metrics_;
  }
  std::vector<pid_t> agent_pids() const;
  pid_t coordinator_pid() const;
  const std::string& dir() const { return dir_; }
  std::string NodeName(int agent) const;

  // The throwaway CA's operator identity (operator/local): what `local`'s
  // own commands and the tests connect with. Plaintext when insecure.
  const security::TlsOptions& client_tls() const { return client_tls_; }
  // Issues another identity from the cluster's CA (e.g. a viewer, or an
  // agent certificate for a node that does not exist), in dir()/tls.
  // Errors: FAILED_PRECONDITION an insecure cluster; the CA's errors.
  absl::StatusOr<security::TlsOptions> Issue(const security::Identity& id);
  // The coordinator's own certificate (coordinator/local), the only
  // coordinator identity the cluster's agents obey once registered; tests
  // call agents as it. Plaintext options when insecure.
  security::TlsOptions CoordinatorTls() const;

  // Kills the coordinator with SIGKILL (no clean shutdown) and starts a new
  // one on the same address and state folder, as a crash and a restart by a
  // supervisor would. Errors: the new one did not start.
  absl::Status CrashAndRestartCoordinator();

  // The command line (argv[0] first) of an agent of `node` against this
  // cluster's coordinator, as the cluster starts its own, writing its
  // ports to `port_file` and its worker sockets under `run_dir`; tests
  // append --ranks and start extra agents with it.
  // With TLS, the agent's certificate (agent/<node>) is issued first when
  // the cluster has none for that node.
  std::vector<std::string> AgentArgv(const std::string& node,
                                     const std::string& port_file,
                                     const std::string& run_dir);

  // Waits until `agents` agents are alive with every worker ready.
  absl::Status WaitReady(int agents, absl::Duration timeout) const;

 private:
  LocalCluster() = default;
  absl::Status StartAgent(int index);
  absl::Status StartCoordinator(const std::string& listen);
  // Makes the CA and the daemons' certificates in dir()/tls.
  absl::Status MakeCertificates();
  // The daemon flags for `id`'s certificate (or --insecure).
  std::vector<std::string> TlsArgs(const security::Identity& id) const;

  // Spawns `spawn` unless stopped, recording its pid in `pid` or
  // `agent_pids_`. Errors: as common::Spawn; CANCELLED stopped.
  absl::Status SpawnDaemon(const common::SpawnOptions& spawn, bool agent);

  LocalClusterOptions options_;
  std::string dir_;
  std::string coordinator_;
  std::string metrics_;
  std::vector<std::string> agent_metrics_;
  std::optional<security::CertSet> certs_;
  security::TlsOptions client_tls_;
  // Held for a whole Stop(), so that a second one waits for the first.
  absl::Mutex stop_mu_;
  mutable absl::Mutex mu_;
  pid_t coordinator_pid_ ABSL_GUARDED_BY(mu_) = -1;
  std::vector<pid_t> agent_pids_ ABSL_GUARDED_BY(mu_);
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace fabricpulse::client
