#include "tests/integration/daemon_launch.h"

#include <stdlib.h>

#include <fstream>
#include <iterator>

#include "absl/time/time.h"
#include "daemon/common/process.h"
#include "daemon/security/cert_set.h"
#include "gtest/gtest.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {

std::string TempDir() {
  char tmpl[] = "/tmp/fp-daemon-test-XXXXXX";
  const char* dir = mkdtemp(tmpl);
  EXPECT_NE(dir, nullptr);
  return dir == nullptr ? "/tmp" : dir;
}

std::string WriteFile(const std::string& dir, const std::string& name,
                      const std::string& text) {
  const std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}

namespace {

// One throwaway CA per test process, so that daemons started in different
// folders trust each other: coordinator/test, agent/node-a, operator/test.
security::CertSet& Pki() {
  static security::CertSet* pki = [] {
    const std::string dir = TempDir() + "/pki";
    auto set =
        security::CertSet::Create(dir, "fabricpulse", absl::Hours(24 * 30));
    EXPECT_TRUE(set.ok()) << set.status();
    auto* out = new security::CertSet(*std::move(set));
    for (const security::Identity& id :
         {security::Identity{security::Role::kCoordinator, "test"},
          security::Identity{security::Role::kAgent, "node-a"},
          security::Identity{security::Role::kOperator, "test"}}) {
      auto issued = out->Issue(id, {"localhost"}, {"127.0.0.1"});
      EXPECT_TRUE(issued.ok()) << issued.status();
    }
    // The CLI and Connect() of these tests are the operator.
    const security::TlsOptions op =
        out->OptionsFor({security::Role::kOperator, "test"});
    setenv("FABRICPULSE_TLS_CERT", op.cert_file.c_str(), 1);
    setenv("FABRICPULSE_TLS_KEY", op.key_file.c_str(), 1);
    setenv("FABRICPULSE_TLS_CA", op.ca_file.c_str(), 1);
    return out;
  }();
  return *pki;
}

std::vector<std::string> TlsArgs(const security::Identity& id) {
  const security::TlsOptions tls = Pki().OptionsFor(id);
  return {"--tls-cert", tls.cert_file, "--tls-key",
          tls.key_file, "--tls-ca",    tls.ca_file};
}

}  // namespace

Daemon::~Daemon() {
  if (pid > 0) common::TerminateProcess(pid, absl::Seconds(10));
}

std::vector<std::string> CoordinatorArgs(const std::string& dir) {
  std::vector<std::string> argv = {BinDir() + "/fabricpulse-coordinator",
                                   "--listen",
                                   "127.0.0.1:0",
                                   "--metrics-listen",
                                   "127.0.0.1:0",
                                   "--state-dir",
                                   dir + "/state",
                                   "--port-file",
                                   dir + "/coord.ports"};
  for (std::string& arg : TlsArgs({security::Role::kCoordinator, "test"})) {
    argv.push_back(std::move(arg));
  }
  return argv;
}

std::unique_ptr<Daemon> Start(std::vector<std::string> argv,
                              const std::string& ports,
                              const std::string& log) {
  auto daemon = std::make_unique<Daemon>();
  daemon->log = log;
  common::SpawnOptions spawn;
  spawn.argv = std::move(argv);
  spawn.log_file = log;
  auto pid = common::Spawn(spawn);
  EXPECT_TRUE(pid.ok()) << pid.status();
  if (!pid.ok()) return nullptr;
  daemon->pid = *pid;
  auto bound = common::WaitForPortFile(ports, absl::Seconds(30));
  EXPECT_TRUE(bound.ok()) << bound.status() << "\n" << ReadFile(log);
  if (!bound.ok()) return nullptr;
  daemon->ports = *bound;
  return daemon;
}

std::unique_ptr<Daemon> StartCoordinator(const std::string& dir,
                                         std::vector<std::string> extra) {
  std::vector<std::string> argv = CoordinatorArgs(dir);
  argv.insert(argv.end(), extra.begin(), extra.end());
  return Start(argv, dir + "/coord.ports", dir + "/coord.log");
}

std::unique_ptr<Daemon> StartAgent(const std::string& dir,
                                   const std::string& coordinator,
                                   std::vector<std::string> extra) {
  std::vector<std::string> argv = {BinDir() + "/fabricpulse-agent",
                                   "--coordinator",
                                   coordinator,
                                   "--listen",
                                   "127.0.0.1:0",
                                   "--metrics-listen",
                                   "127.0.0.1:0",
                                   "--node-name",
                                   "node-a",
                                   "--backend",
                                   "gloo",
                                   "--ranks",
                                   "1",
                                   "--port-file",
                                   dir + "/agent.ports",
                                   "--run-dir",
                                   dir};
  for (std::string& arg : TlsArgs({security::Role::kAgent, "node-a"})) {
    argv.push_back(std::move(arg));
  }
  argv.insert(argv.end(), extra.begin(), extra.end());
  return Start(argv, dir + "/agent.ports", dir + "/agent.log");
}

}  // namespace fabricpulse::testing
