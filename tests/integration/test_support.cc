#include "tests/integration/test_support.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "absl/time/clock.h"
#include "daemon/common/channel_args.h"
#include "daemon/common/process.h"
#include "daemon/security/credentials.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"

namespace fabricpulse::testing {

namespace {

// A daemon's shutdown waits for its clients' connections to close after its
// GOAWAY, and an idle channel of this test process reads it only at gRPC's
// backup poll, every 5 s by default: each cluster stopped while a test
// still held a stub took 5 s. Set before gRPC starts (first channel).
const bool kPromptGoaway = [] {
  setenv("GRPC_CLIENT_CHANNEL_BACKUP_POLL_INTERVAL_MS", "100", 0);
  return true;
}();

}  // namespace

std::string BinDir() { return FABRICPULSE_BIN_DIR; }

CliResult RunCli(const std::vector<std::string>& args, int timeout_seconds) {
  return RunBinary("fabricpulse", args, timeout_seconds);
}

CliResult RunBinary(const std::string& binary,
                    const std::vector<std::string>& args, int timeout_seconds) {
  // A path names a program of its own; a bare name, one of build/bin.
  return RunProgram(
      binary.find('/') == std::string::npos ? BinDir() + "/" + binary : binary,
      args, timeout_seconds);
}

CliResult RunProgram(const std::string& path,
                     const std::vector<std::string>& args,
                     int timeout_seconds) {
  int out_pipe[2], err_pipe[2];
  CliResult result;
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
    return result;
  }
  std::vector<std::string> argv = {path};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> ptrs;
  for (auto& a : argv) ptrs.push_back(a.data());
  ptrs.push_back(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    execv(ptrs[0], ptrs.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  const absl::Time deadline = absl::Now() + absl::Seconds(timeout_seconds);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  char buf[4096];
  while (open_fds > 0 && absl::Now() < deadline) {
    if (poll(fds, 2, 200) <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof(buf));
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        open_fds--;
      } else {
        (i == 0 ? result.out : result.err).append(buf, n);
      }
    }
  }
  for (auto& f : fds) {
    if (f.fd >= 0) close(f.fd);
  }
  auto info = common::WaitForExit(pid, deadline - absl::Now());
  if (!info) {
    kill(pid, SIGKILL);
    info = common::WaitForExit(pid, absl::Seconds(5));
    ADD_FAILURE() << path << " timed out: " << result.err;
  }
  result.exit_code =
      info ? (info->signal ? 128 + info->signal : info->exit_code) : -1;
  return result;
}

namespace {

// The TLS settings the environment names (as the CLI reads them).
security::TlsOptions EnvironmentTls() {
  security::TlsOptions tls;
  auto get = [](const char* name) {
    const char* v = std::getenv(name);
    return std::string(v ? v : "");
  };
  tls.cert_file = get("FABRICPULSE_TLS_CERT");
  tls.key_file = get("FABRICPULSE_TLS_KEY");
  tls.ca_file = get("FABRICPULSE_TLS_CA");
  tls.insecure = get("FABRICPULSE_INSECURE") == "1";
  return tls;
}

std::shared_ptr<grpc::ChannelCredentials> ChannelFor(
    const security::TlsOptions& tls, const security::PeerExpectation& peer) {
  auto creds = security::Credentials::Create(tls);
  EXPECT_TRUE(creds.ok()) << creds.status();
  if (!creds.ok()) return grpc::InsecureChannelCredentials();
  return (*creds)->Channel(peer);
}

}  // namespace

std::unique_ptr<v1::CoordinatorService::Stub> Connect(
    const std::string& address) {
  return v1::CoordinatorService::NewStub(grpc::CreateCustomChannel(
      address, ChannelFor(EnvironmentTls(), {security::Role::kCoordinator, ""}),
      common::ClientChannelArguments()));
}

std::unique_ptr<v1::AgentService::Stub> ConnectAgent(
    client::LocalCluster& cluster, const v1::AgentInfo& agent) {
  const security::TlsOptions tls = cluster.CoordinatorTls();
  return v1::AgentService::NewStub(grpc::CreateCustomChannel(
      agent.address(),
      ChannelFor(tls, {security::Role::kAgent, agent.node_name()}),
      common::ClientChannelArguments()));
}

void UseClientIdentityOf(const client::LocalCluster& cluster) {
  const security::TlsOptions& tls = cluster.client_tls();
  if (tls.insecure) {
    setenv("FABRICPULSE_INSECURE", "1", 1);
    for (const char* name : {"FABRICPULSE_TLS_CERT", "FABRICPULSE_TLS_KEY",
                             "FABRICPULSE_TLS_CA"}) {
      unsetenv(name);
    }
    return;
  }
  unsetenv("FABRICPULSE_INSECURE");
  setenv("FABRICPULSE_TLS_CERT", tls.cert_file.c_str(), 1);
  setenv("FABRICPULSE_TLS_KEY", tls.key_file.c_str(), 1);
  setenv("FABRICPULSE_TLS_CA", tls.ca_file.c_str(), 1);
}

absl::StatusOr<std::unique_ptr<client::LocalCluster>> StartCluster(
    client::LocalClusterOptions options) {
  if (options.bin_dir.empty()) options.bin_dir = BinDir();
  auto cluster = client::LocalCluster::Start(options);
  if (cluster.ok()) UseClientIdentityOf(**cluster);
  return cluster;
}

SweepOutcome RunSweep(v1::CoordinatorService::Stub& stub,
                      const v1::SweepSpec& spec,
                      const std::vector<std::string>& nodes) {
  SweepOutcome outcome;
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(120)));
  v1::SweepRequest req;
  *req.mutable_spec() = spec;
  for (const auto& n : nodes) req.add_nodes(n);
  auto reader = stub.RunSweep(&ctx, req);
  v1::SweepEvent event;
  while (reader->Read(&event)) {
    if (event.has_started()) {
      outcome.started = true;
      outcome.start = event.started();
    }
    if (event.has_comm_ready()) outcome.comm = event.comm_ready();
    if (event.has_result()) outcome.results.push_back(event.result());
    if (event.has_finished()) outcome.finished = event.finished();
  }
  grpc::Status status = reader->Finish();
  outcome.status =
      absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                   status.error_message());
  return outcome;
}

v1::SweepSpec QuickSpec(const std::vector<std::string>& ops,
                        uint64_t max_bytes) {
  v1::SweepSpec spec;
  for (const auto& op : ops) spec.add_ops(op);
  spec.set_min_bytes(8);
  spec.set_max_bytes(max_bytes);
  spec.set_factor(8);
  spec.set_dtype("float");
  spec.set_redop("sum");
  spec.set_warmup_iters(1);
  spec.set_iters(2);
  spec.set_check(true);
  spec.set_placement("both");
  spec.set_timeout_seconds(20);
  return spec;
}

std::unique_ptr<client::LocalCluster> StartCluster(int agents, int ranks) {
  client::LocalClusterOptions options;
  options.bin_dir = BinDir();
  options.agents = agents;
  options.ranks = ranks;
  options.backend = "gloo";
  auto cluster = StartCluster(options);
  EXPECT_TRUE(cluster.ok()) << cluster.status();
  return cluster.ok() ? std::move(*cluster) : nullptr;
}

uint64_t KvSets(v1::CoordinatorService::Stub& stub) {
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(5)));
  v1::CoordinatorStatsRequest req;
  v1::CoordinatorStatsResponse resp;
  EXPECT_TRUE(stub.Stats(&ctx, req, &resp).ok());
  return resp.kv_sets();
}

std::vector<v1::AgentInfo> ListAgents(v1::CoordinatorService::Stub& stub) {
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(5)));
  v1::ListAgentsRequest req;
  v1::ListAgentsResponse resp;
  EXPECT_TRUE(stub.ListAgents(&ctx, req, &resp).ok());
  return {resp.agents().begin(), resp.agents().end()};
}

std::vector<v1::SweepSummary> ListSweeps(v1::CoordinatorService::Stub& stub,
                                         int last) {
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  v1::ListSweepsRequest req;
  req.set_last(last);
  v1::ListSweepsResponse resp;
  EXPECT_TRUE(stub.ListSweeps(&ctx, req, &resp).ok());
  return {resp.sweeps().begin(), resp.sweeps().end()};
}

bool Eventually(const std::function<bool()>& condition,
                absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  absl::Duration backoff = absl::Milliseconds(5);
  while (!condition()) {
    if (absl::Now() >= deadline) return false;
    absl::SleepFor(std::min(backoff, deadline - absl::Now()));
    backoff = std::min(backoff * 2, absl::Milliseconds(200));
  }
  return true;
}

}  // namespace fabricpulse::testing
