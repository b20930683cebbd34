// fleet_sim: many simulated FabricPulse agents in one process, each
// speaking the real agent protocol to a real coordinator, for scale tests
// of the coordinator. A test tool: it is built under tests/ only and never
// part of a deployment.
//
//   fleet_sim --coordinator 127.0.0.1:PORT --agents 256 --first-index 0
//             [--ranks R] [--link-gbps G] [--link-latency-us U] [--pace]
//             [--slow-node NAME:FACTOR]... [--dead-node NAME]...
//             [--hang-node NAME]... [--port-file F]
//             [--tls-ca-cert F --tls-ca-key F [--trust-domain D]]
//             [--sweep-seconds S] [--gpus] [--busy-every K --busy-while F]
//             [--shared-connection]
//
// With the CA's certificate and key every simulated agent speaks mutual
// TLS under its own certificate (agent/<node>, issued in memory), as
// production agents do; without them, plaintext (coordinator --insecure).
// --busy-every K marks the GPUs of every K-th node (by index: sim-0000,
// sim-00K0, ...) busy while the file --busy-while names exists (checked
// every 200 ms; a change is heartbeated at once, as a real agent's busy
// probe does).
//
// Exit codes: 0 after SIGTERM/SIGINT, 1 when the agents did not all
// register within --register-timeout or could not listen, 2 bad flags.
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "daemon/common/address.h"
#include "daemon/common/shutdown_signal.h"
#include "daemon/core/log.h"
#include "tests/scale/fault_plan.h"
#include "tests/scale/heartbeat_driver.h"
#include "tests/scale/link_model.h"
#include "tests/scale/sim_agent.h"
#include "tests/scale/sim_tls.h"

namespace fabricpulse::scale {
namespace {

struct FleetFlags {
  std::string coordinator;
  int agents = 1;
  int first_index = 0;
  int ranks = 1;
  double link_gbps = 100;
  double link_latency_us = 5;
  bool pace = false;
  std::vector<std::string> slow_nodes;
  std::vector<std::string> dead_nodes;
  std::vector<std::string> hang_nodes;
  std::string port_file;
  int max_in_flight = 64;
  double register_timeout_s = 60;
  std::string tls_ca_cert;
  std::string tls_ca_key;
  std::string trust_domain = "fabricpulse";
  double sweep_seconds = 0;
  bool gpus = false;
  int busy_every = 0;
  std::string busy_while;
  bool shared_connection = false;
};

constexpr absl::Duration kBusyPoll = absl::Milliseconds(200);

// Whether `path` exists now.
bool Exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

// Until `stop`: marks the busy agents' GPUs busy while `path` exists, and
// has their state heartbeated at once when it changes.
void WatchBusyFile(const std::string& path,
                   const std::vector<std::pair<size_t, SimAgent*>>& busy,
                   HeartbeatDriver& driver, absl::Notification& stop) {
  do {
    const bool now_busy = Exists(path);
    std::vector<size_t> changed;
    for (const auto& [index, agent] : busy) {
      if (agent->SetGpusBusy(now_busy)) changed.push_back(index);
    }
    if (!changed.empty()) {
      FP_LOG_INFO(absl::StrCat(changed.size(), " agent(s) now ",
                               now_busy ? "busy" : "free"));
      driver.BeatSoon(changed);
    }
  } while (!stop.WaitForNotificationWithTimeout(kBusyPoll));
}

int Fail(const std::string& message) {
  std::fprintf(stderr, "fleet_sim: %s\n", message.c_str());
  return 2;
}

bool IsLoopback(const std::string& host) {
  return host == "127.0.0.1" || host == "localhost" || host == "::1";
}

// "ready=N", "first=NAME", "last=NAME", "seconds=S" (from the agents'
// start until all were registered), written whole (temporary file, then
// rename) so a reader never sees half of it.
absl::Status WriteReadyFile(const std::string& path, int agents,
                            const std::string& first, const std::string& last,
                            absl::Duration took) {
  const std::string tmp = absl::StrCat(path, ".tmp");
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << "ready=" << agents << "\nfirst=" << first << "\nlast=" << last
        << "\nseconds=" << absl::StrFormat("%.3f", absl::ToDoubleSeconds(took))
        << "\n";
    out.flush();
    if (!out) return absl::InternalError(absl::StrCat("cannot write ", tmp));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    return absl::InternalError(absl::StrCat("cannot rename ", tmp));
  }
  return absl::OkStatus();
}

int Run(const FleetFlags& flags, common::ShutdownSignals& signals) {
  auto coordinator = common::ParseHostPort(flags.coordinator, "--coordinator");
  if (!coordinator.ok())
    return Fail(std::string(coordinator.status().message()));
  if (!IsLoopback(coordinator->host)) {
    return Fail(absl::StrCat("--coordinator: '", flags.coordinator,
                             "' is not a loopback address; the simulator "
                             "only runs on 127.0.0.1"));
  }
  if (flags.agents < 1 || flags.first_index < 0 || flags.ranks < 1) {
    return Fail("--agents and --ranks must be >= 1, --first-index >= 0");
  }
  LinkModel link;
  link.link_gbps = flags.link_gbps;
  link.latency_us = flags.link_latency_us;
  if (absl::Status valid = ValidateLinkModel(link); !valid.ok()) {
    return Fail(std::string(valid.message()));
  }
  auto faults =
      FaultPlan::Parse(flags.slow_nodes, flags.dead_nodes, flags.hang_nodes);
  if (!faults.ok()) return Fail(std::string(faults.status().message()));
  if (flags.tls_ca_cert.empty() != flags.tls_ca_key.empty()) {
    return Fail("--tls-ca-cert and --tls-ca-key go together");
  }
  if (flags.sweep_seconds < 0 || flags.sweep_seconds > 3600) {
    return Fail("--sweep-seconds: allowed 0 (the link model) to 3600");
  }
  if (flags.busy_every < 0 ||
      (flags.busy_every > 0) == flags.busy_while.empty()) {
    return Fail("--busy-every K (K >= 1) and --busy-while FILE go together");
  }
  if (flags.shared_connection && !flags.tls_ca_cert.empty()) {
    return Fail(
        "--shared-connection is plaintext only: a TLS agent presents its own "
        "certificate on a connection of its own");
  }
  std::optional<SimCertAuthority> ca;
  if (!flags.tls_ca_cert.empty()) {
    auto loaded = SimCertAuthority::Load(flags.tls_ca_cert, flags.tls_ca_key,
                                         flags.trust_domain);
    if (!loaded.ok()) return Fail(std::string(loaded.status().message()));
    ca = *std::move(loaded);
  }
  const bool busy_at_start = flags.busy_every > 0 && Exists(flags.busy_while);
  std::vector<std::pair<size_t, SimAgent*>> busy_agents;

  std::vector<std::unique_ptr<SimAgent>> agents;
  std::vector<SimAgent*> pointers;
  for (int i = 0; i < flags.agents; ++i) {
    SimAgentConfig config;
    config.node_name = SimNodeName(flags.first_index + i);
    config.ranks = flags.ranks;
    config.fault = faults->For(config.node_name);
    config.link = link;
    config.pace = flags.pace;
    config.sweep_time = absl::Seconds(flags.sweep_seconds);
    config.gpus = flags.gpus || flags.busy_every > 0;
    if (ca.has_value()) {
      auto tls = ca->Issue(config.node_name);
      if (!tls.ok()) {
        FP_LOG_ERROR(std::string(tls.status().message()));
        return 1;
      }
      config.tls = std::make_shared<const SimAgentTls>(*std::move(tls));
    }
    agents.push_back(std::make_unique<SimAgent>(config));
    if (flags.busy_every > 0 &&
        (flags.first_index + i) % flags.busy_every == 0) {
      busy_agents.emplace_back(i, agents.back().get());
      agents.back()->SetGpusBusy(busy_at_start);
    }
    if (absl::Status started = agents.back()->Start(); !started.ok()) {
      FP_LOG_ERROR(std::string(started.message()));
      return 1;
    }
    pointers.push_back(agents.back().get());
  }
  HeartbeatDriver driver(flags.coordinator, pointers, flags.max_in_flight,
                         flags.shared_connection);
  const absl::Time registering = absl::Now();
  driver.Start();
  absl::Notification stop_watching;
  std::thread busy_watcher;
  if (!busy_agents.empty()) {
    busy_watcher = std::thread([&] {
      WatchBusyFile(flags.busy_while, busy_agents, driver, stop_watching);
    });
  }
  const std::string first = agents.front()->node_name();
  const std::string last = agents.back()->node_name();

  // Writes the ready file once all are registered, or ends the process
  // (exit 1) when they do not register in time.
  bool registered_in_time = true;
  std::atomic<bool> shutting_down{false};
  std::thread notifier([&] {
    if (!driver.WaitAllRegistered(absl::Seconds(flags.register_timeout_s))) {
      if (!shutting_down) {
        registered_in_time = false;
        FP_LOG_ERROR(absl::StrCat(driver.registered(), " of ", flags.agents,
                                  " agents registered within ",
                                  flags.register_timeout_s, " s"));
        kill(getpid(), SIGTERM);
      }
      return;
    }
    FP_LOG_INFO(absl::StrCat(flags.agents, " agents (", first, "..", last,
                             ") registered with ", flags.coordinator));
    if (!flags.port_file.empty()) {
      absl::Status written =
          WriteReadyFile(flags.port_file, flags.agents, first, last,
                         absl::Now() - registering);
      if (!written.ok()) FP_LOG_ERROR(std::string(written.message()));
    }
  });
  const int sig = signals.WaitForShutdown();
  shutting_down = true;
  stop_watching.Notify();
  if (busy_watcher.joinable()) busy_watcher.join();
  FP_LOG_INFO(absl::StrCat("signal ", sig, ": stopping ", flags.agents,
                           " agents (", driver.answered(),
                           " coordinator exchanges answered, ", driver.failed(),
                           " failed)"));
  driver.Stop();
  notifier.join();
  for (auto& agent : agents) agent->Shutdown();
  return registered_in_time ? 0 : 1;
}

}  // namespace
}  // namespace fabricpulse::scale

int main(int argc, char** argv) {
  fabricpulse::common::ShutdownSignals signals("fleet_sim");
  fabricpulse::scale::FleetFlags flags;
  CLI::App app{
      "fleet_sim: simulated FabricPulse agents for coordinator scale tests "
      "(a test tool)"};
  app.add_option("--coordinator", flags.coordinator,
                 "Coordinator HOST:PORT (loopback only)")
      ->required();
  app.add_option("--agents", flags.agents, "Simulated agents in this process")
      ->capture_default_str();
  app.add_option("--first-index", flags.first_index,
                 "Index of the first agent: nodes sim-<K>..sim-<K+N-1>")
      ->capture_default_str();
  app.add_option("--ranks", flags.ranks, "Workers (ranks) per agent")
      ->capture_default_str();
  app.add_option("--link-gbps", flags.link_gbps,
                 "Simulated per-link bandwidth, Gbit/s")
      ->capture_default_str();
  app.add_option("--link-latency-us", flags.link_latency_us,
                 "Simulated per-hop latency, microseconds")
      ->capture_default_str();
  app.add_flag("--pace", flags.pace,
               "Wait the modeled time before each step's results (default: "
               "report at once)");
  app.add_option("--slow-node", flags.slow_nodes,
                 "NAME:FACTOR: that node's ranks report FACTOR x the time");
  app.add_option("--dead-node", flags.dead_nodes,
                 "NAME: that node's sweeps fail UNAVAILABLE at once");
  app.add_option("--hang-node", flags.hang_nodes,
                 "NAME: that node's sweeps hang after comm_ready until "
                 "aborted");
  app.add_option("--port-file", flags.port_file,
                 "Write ready=N, first=, last=, seconds= here once all agents "
                 "are registered");
  app.add_option("--max-in-flight", flags.max_in_flight,
                 "Most concurrent register/heartbeat calls")
      ->capture_default_str();
  app.add_option("--register-timeout", flags.register_timeout_s,
                 "Seconds for all agents to register before giving up")
      ->capture_default_str();
  app.add_option("--tls-ca-cert", flags.tls_ca_cert,
                 "The deployment CA's certificate (PEM): every agent speaks "
                 "mutual TLS with its own certificate issued from it");
  app.add_option("--tls-ca-key", flags.tls_ca_key,
                 "The CA's private key (PEM), with --tls-ca-cert");
  app.add_option("--trust-domain", flags.trust_domain,
                 "SPIFFE trust domain of the agents' identities")
      ->capture_default_str();
  app.add_option("--sweep-seconds", flags.sweep_seconds,
                 "Every sweep takes this long, its steps sharing it (0: the "
                 "link model, with --pace)")
      ->capture_default_str();
  app.add_flag("--gpus", flags.gpus,
               "Workers are GPU ranks (gpu = local index), not CPU ranks");
  app.add_option("--busy-every", flags.busy_every,
                 "K: every K-th node's GPUs are busy while --busy-while "
                 "exists (implies --gpus)");
  app.add_option("--busy-while", flags.busy_while,
                 "FILE: the --busy-every nodes are busy while it exists");
  app.add_flag("--shared-connection", flags.shared_connection,
               "Plaintext only: every agent's register and heartbeat calls "
               "go over one connection to the coordinator (fleets larger "
               "than its open-file limit allows at one connection each)");
  CLI11_PARSE(app, argc, argv);
  fabricpulse::core::SetLogTag(
      absl::StrCat("fleet-sim ", flags.first_index, "+", flags.agents));
  return fabricpulse::scale::Run(flags, signals);
}
