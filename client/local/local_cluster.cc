#include "client/local/local_cluster.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/common/port_file.h"
#include "daemon/common/process.h"
#include "daemon/security/credentials.h"
#include "fabricpulse/v1/coordinator.grpc.pb.h"
#include "grpcpp/grpcpp.h"

namespace fabricpulse::client {
namespace {

constexpr absl::Duration kStopGrace = absl::Seconds(5);

}  // namespace

std::string LocalCluster::NodeName(int agent) const {
  return absl::StrCat("local-", agent);
}

bool KeepLocalDir() {
  const char* keep = std::getenv("FABRICPULSE_KEEP_LOCAL_DIR");
  return keep != nullptr && *keep != '\0' && std::string(keep) != "0";
}

absl::StatusOr<std::unique_ptr<LocalCluster>> LocalCluster::Start(
    const LocalClusterOptions& options) {
  auto cluster = Create(options);
  if (!cluster.ok()) return cluster.status();
  absl::Status launched = (*cluster)->Launch();
  if (!launched.ok()) return launched;
  return cluster;
}

absl::StatusOr<std::unique_ptr<LocalCluster>> LocalCluster::Create(
    const LocalClusterOptions& options) {
  if (options.agents < 1 || options.agents > 64) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--agents: ", options.agents, " is out of range; allowed: 1 to 64"));
  }
  if (options.ranks < 1 || options.ranks > 64) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--ranks: ", options.ranks, " is out of range; allowed: 1 to 64"));
  }
  std::unique_ptr<LocalCluster> cluster(new LocalCluster());
  cluster->options_ = options;
  char dir_template[] = "/tmp/fabricpulse-local-XXXXXX";
  if (mkdtemp(dir_template) == nullptr) {
    return absl::InternalError("cannot create a temporary folder in /tmp");
  }
  cluster->dir_ = dir_template;
  return cluster;
}

absl::Status LocalCluster::Launch() {
  absl::Status certs = MakeCertificates();
  if (!certs.ok()) return certs;
  absl::Status coordinator = StartCoordinator("127.0.0.1:0");
  if (!coordinator.ok()) return coordinator;
  for (int i = 0; i < options_.agents; ++i) {
    absl::Status started = StartAgent(i);
    if (!started.ok()) return started;
  }
  for (int i = 0; i < options_.agents; ++i) {
    auto agent_ports = common::WaitForPortFile(
        absl::StrCat(dir_, "/agent-", i, ".ports"), absl::Seconds(20));
    if (!agent_ports.ok()) {
      return absl::DeadlineExceededError(absl::StrCat(
          "agent ", i, " did not start; see ", dir_, "/agent-", i, ".log"));
    }
    agent_metrics_.push_back(agent_ports->metrics);
  }
  return WaitReady(options_.agents, options_.ready_timeout);
}

std::vector<pid_t> LocalCluster::agent_pids() const {
  absl::MutexLock lock(&mu_);
  return agent_pids_;
}

pid_t LocalCluster::coordinator_pid() const {
  absl::MutexLock lock(&mu_);
  return coordinator_pid_;
}

absl::Status LocalCluster::SpawnDaemon(const common::SpawnOptions& spawn,
                                       bool agent) {
  // Under the lock: a concurrent Stop() either sees this pid or comes
  // first and nothing is spawned.
  absl::MutexLock lock(&mu_);
  if (stopped_) return absl::CancelledError("the local cluster was stopped");
  auto pid = common::Spawn(spawn);
  if (!pid.ok()) return pid.status();
  if (agent) {
    agent_pids_.push_back(*pid);
  } else {
    coordinator_pid_ = *pid;
  }
  return absl::OkStatus();
}

absl::Status LocalCluster::MakeCertificates() {
  if (options_.insecure) {
    client_tls_.insecure = true;
    return absl::OkStatus();
  }
  // Thrown away with the folder; 30 days keeps it clear of the 7-day
  // expiry warning.
  auto set = security::CertSet::Create(dir_ + "/tls", "fabricpulse",
                                       absl::Hours(24 * 30));
  if (!set.ok()) return set.status();
  certs_ = *std::move(set);
  std::vector<security::Identity> ids = {
      {security::Role::kCoordinator, "local"},
      {security::Role::kOperator, "local"}};
  for (int i = 0; i < options_.agents; ++i) {
    ids.push_back({security::Role::kAgent, NodeName(i)});
  }
  for (const security::Identity& id : ids) {
    auto issued = Issue(id);
    if (!issued.ok()) return issued.status();
    if (id.role == security::Role::kOperator) client_tls_ = *issued;
  }
  return absl::OkStatus();
}

absl::StatusOr<security::TlsOptions> LocalCluster::Issue(
    const security::Identity& id) {
  if (!certs_) {
    return absl::FailedPreconditionError(
        "this local cluster runs --insecure: it has no CA");
  }
  return certs_->Issue(id, {"localhost"}, {"127.0.0.1", "::1"});
}

security::TlsOptions LocalCluster::CoordinatorTls() const {
  if (!certs_) return client_tls_;
  return certs_->OptionsFor({security::Role::kCoordinator, "local"});
}

std::vector<std::string> LocalCluster::TlsArgs(
    const security::Identity& id) const {
  if (!certs_) return {"--insecure"};
  const security::TlsOptions tls = certs_->OptionsFor(id);
  return {"--tls-cert", tls.cert_file, "--tls-key",
          tls.key_file, "--tls-ca",    tls.ca_file};
}

absl::Status LocalCluster::StartCoordinator(const std::string& listen) {
  const std::string ports_file = dir_ + "/coordinator.ports";
  std::remove(ports_file.c_str());
  common::SpawnOptions coord;
  coord.argv = {
      options_.bin_dir + "/fabricpulse-coordinator",
      "--listen",
      listen,
      "--metrics-listen",
      "127.0.0.1:0",
      "--state-dir",
      options_.state_dir.empty() ? dir_ + "/state" : options_.state_dir,
      "--port-file",
      ports_file};
  if (!options_.config_file.empty()) {
    coord.argv.insert(coord.argv.end(), {"--config", options_.config_file});
  }
  for (std::string& arg : TlsArgs({security::Role::kCoordinator, "local"})) {
    coord.argv.push_back(std::move(arg));
  }
  coord.env = options_.env;
  coord.log_file = dir_ + "/coordinator.log";
  absl::Status spawned = SpawnDaemon(coord, /*agent=*/false);
  if (!spawned.ok()) return spawned;
  auto ports = common::WaitForPortFile(ports_file, absl::Seconds(20));
  if (!ports.ok()) {
    return absl::DeadlineExceededError(absl::StrCat(
        "coordinator did not start; see ", dir_, "/coordinator.log"));
  }
  coordinator_ = ports->grpc;
  metrics_ = ports->metrics;
  return absl::OkStatus();
}

absl::Status LocalCluster::CrashAndRestartCoordinator() {
  const pid_t pid = coordinator_pid();
  kill(pid, SIGKILL);
  common::WaitForExit(pid, absl::Seconds(10));
  return StartCoordinator(coordinator_);
}

std::vector<std::string> LocalCluster::AgentArgv(const std::string& node,
                                                 const std::string& port_file,
                                                 const std::string& run_dir) {
  std::vector<std::string> argv = {options_.bin_dir + "/fabricpulse-agent",
                                   "--coordinator",
                                   coordinator_,
                                   "--listen",
                                   "127.0.0.1:0",
                                   "--metrics-listen",
                                   "127.0.0.1:0",
                                   "--node-name",
                                   node,
                                   "--backend",
                                   options_.backend,
                                   "--port-file",
                                   port_file,
                                   "--run-dir",
                                   run_dir};
  // Each agent's certificate names its node; an extra node gets one here.
  const security::Identity id{security::Role::kAgent, node};
  if (certs_ && access(certs_->OptionsFor(id).cert_file.c_str(), F_OK) != 0) {
    (void)Issue(id);  // a failure shows as the agent's own TLS error
  }
  for (std::string& arg : TlsArgs(id)) argv.push_back(std::move(arg));
  return argv;
}

absl::Status LocalCluster::StartAgent(int index) {
  common::SpawnOptions agent;
  // The run folder is private to this cluster: two clusters on one host
  // may both run node local-0.
  agent.argv = AgentArgv(NodeName(index),
                         absl::StrCat(dir_, "/agent-", index, ".ports"), dir_);
  if (options_.backend == "nccl") {
    std::string gpus;
    for (int r = 0; r < options_.ranks; ++r) {
      absl::StrAppend(&gpus, r == 0 ? "" : ",", index * options_.ranks + r);
    }
    agent.argv.insert(agent.argv.end(), {"--gpus", gpus});
  } else {
    agent.argv.insert(agent.argv.end(),
                      {"--ranks", absl::StrCat(options_.ranks)});
  }
  agent.env = options_.env;
  if (index >= 0 && static_cast<size_t>(index) < options_.agent_env.size()) {
    const std::vector<std::string>& own = options_.agent_env[index];
    agent.env.insert(agent.env.end(), own.begin(), own.end());
  }
  agent.log_file = absl::StrCat(dir_, "/agent-", index, ".log");
  return SpawnDaemon(agent, /*agent=*/true);
}

absl::Status LocalCluster::WaitReady(int agents, absl::Duration timeout) const {
  auto creds = security::Credentials::Create(client_tls_);
  if (!creds.ok()) return creds.status();
  auto stub = v1::CoordinatorService::NewStub(grpc::CreateChannel(
      coordinator_, (*creds)->Channel({security::Role::kCoordinator, ""})));
  const absl::Time deadline = absl::Now() + timeout;
  absl::Duration backoff = absl::Milliseconds(5);
  std::string last = "no answer from the coordinator";
  while (absl::Now() < deadline) {
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(2)));
    v1::ListAgentsRequest req;
    v1::ListAgentsResponse resp;
    if (stub->ListAgents(&ctx, req, &resp).ok()) {
      int ready = 0;
      for (const v1::AgentInfo& a : resp.agents()) {
        bool all = a.state() == "alive" && a.workers_size() > 0;
        for (const v1::WorkerInfo& w : a.workers()) all = all && w.ready();
        ready += all ? 1 : 0;
      }
      if (ready >= agents) return absl::OkStatus();
      last = absl::StrCat(ready, " of ", agents, " agents ready");
    }
    // Readiness is reported by heartbeats; poll with a capped backoff.
    std::this_thread::sleep_for(absl::ToChronoMicroseconds(backoff));
    backoff = std::min(backoff * 2, absl::Milliseconds(100));
  }
  return absl::DeadlineExceededError(absl::StrCat(
      "local cluster not ready after ", absl::FormatDuration(timeout), " (",
      last, "); logs in ", dir_));
}

void LocalCluster::Stop() {
  absl::MutexLock stop_lock(&stop_mu_);
  std::vector<pid_t> agents;
  pid_t coordinator = -1;
  {
    absl::MutexLock lock(&mu_);
    if (stopped_) return;
    stopped_ = true;
    agents = agent_pids_;
    coordinator = coordinator_pid_;
  }
  for (pid_t pid : agents) common::TerminateProcess(pid, kStopGrace);
  if (coordinator > 0) common::TerminateProcess(coordinator, kStopGrace);
  if (!KeepLocalDir() && !dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

LocalCluster::~LocalCluster() { Stop(); }

}  // namespace fabricpulse::client
