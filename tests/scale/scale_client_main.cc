// scale_client: runs sweeps straight through the coordinator's RunSweep and
// timestamps every event, to measure the coordinator's control overhead
// against simulated agents (fleet_sim). A test tool.
//
//   scale_client --coordinator 127.0.0.1:PORT [--wait-agents N]
//                [--sweeps K] [--steps S] [--op all_reduce]
//                [--min-bytes B] [--factor F] [--label TEXT]
//                [--probe-rounds R]
//                [--tls-cert F --tls-key F --tls-ca F [--trust-domain D]]
//
// With TLS files it speaks mutual TLS (an operator's certificate) to the
// coordinator and, for the probe, to the agents; otherwise plaintext.
//
// Prints one JSON line (see sweep_timeline.h) when it runs sweeps. With
// --probe-rounds it first asks every live agent's Describe directly, R
// rounds (describe_probe.h), and prints {"label", "agents",
// "describe_cold_ms", "describe_warm_ms": {n, p50, p99, max}}. Exit codes:
// 0 all sweeps (and probes) succeeded, 1 one failed or the agents did not
// show up in time, 2 bad flags.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "daemon/security/credentials.h"
#include "fabricpulse/v1/coordinator.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "tests/scale/describe_probe.h"
#include "tests/scale/sweep_timeline.h"

namespace fabricpulse::scale {
namespace {

struct ClientFlags {
  std::string coordinator;
  int wait_agents = 0;
  double wait_timeout_s = 120;
  int sweeps = 20;
  int steps = 21;
  std::string op = "all_reduce";
  uint64_t min_bytes = 1024;
  double factor = 2;
  std::vector<std::string> nodes;
  double sweep_timeout_s = 300;
  std::string label;
  int probe_rounds = 0;
  security::TlsOptions tls;
};

// Addresses of the live agents; empty when the coordinator does not answer.
std::vector<std::string> AliveAgents(v1::CoordinatorService::Stub& stub) {
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  v1::ListAgentsRequest req;
  v1::ListAgentsResponse resp;
  std::vector<std::string> alive;
  if (!stub.ListAgents(&ctx, req, &resp).ok()) return alive;
  for (const v1::AgentInfo& a : resp.agents()) {
    if (a.state() == "alive") alive.push_back(a.address());
  }
  return alive;
}

// Polls with a capped backoff until `want` agents are alive.
bool WaitForAgents(v1::CoordinatorService::Stub& stub, int want,
                   absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  absl::Duration backoff = absl::Milliseconds(10);
  int alive = 0;
  while ((alive = static_cast<int>(AliveAgents(stub).size())) < want) {
    if (absl::Now() >= deadline) {
      std::fprintf(stderr, "scale_client: %d of %d agents alive after %s\n",
                   alive, want, absl::FormatDuration(timeout).c_str());
      return false;
    }
    absl::SleepFor(backoff);
    backoff = std::min(backoff * 2, absl::Milliseconds(200));
  }
  return true;
}

v1::SweepRequest MakeRequest(const ClientFlags& flags) {
  v1::SweepRequest request;
  v1::SweepSpec* spec = request.mutable_spec();
  spec->add_ops(flags.op);
  spec->set_min_bytes(flags.min_bytes);
  spec->set_max_bytes(static_cast<uint64_t>(
      std::llround(static_cast<double>(flags.min_bytes) *
                   std::pow(flags.factor, std::max(0, flags.steps - 1)))));
  spec->set_factor(flags.factor);
  spec->set_placement("out_of_place");
  spec->set_warmup_iters(1);
  spec->set_iters(1);
  spec->set_check(false);
  for (const std::string& node : flags.nodes) request.add_nodes(node);
  return request;
}

SweepTimeline RunOne(v1::CoordinatorService::Stub& stub,
                     const v1::SweepRequest& request, absl::Duration timeout) {
  SweepTimeline t;
  t.started = absl::InfinitePast();
  grpc::ClientContext ctx;
  t.called = absl::Now();
  ctx.set_deadline(absl::ToChronoTime(t.called + timeout));
  auto reader = stub.RunSweep(&ctx, request);
  v1::SweepEvent event;
  std::string finished_status;
  while (reader->Read(&event)) {
    const absl::Time now = absl::Now();
    if (event.has_started()) {
      t.started = now;
      t.nodes = event.started().nodes_size();
      t.nranks = event.started().nranks();
    } else if (event.has_result()) {
      t.results.push_back(now);
    } else if (event.has_finished()) {
      finished_status = event.finished().status();
    }
  }
  grpc::Status status = reader->Finish();
  t.ended = absl::Now();
  t.ok = status.ok() && finished_status == "succeeded";
  if (!t.ok) {
    std::fprintf(stderr, "scale_client: sweep failed: %s %s\n",
                 finished_status.c_str(), status.error_message().c_str());
  }
  return t;
}

bool Probe(v1::CoordinatorService::Stub& stub, const ClientFlags& flags,
           const security::Credentials& credentials) {
  const std::vector<std::string> addresses = AliveAgents(stub);
  auto rounds =
      ProbeDescribe(addresses, flags.probe_rounds,
                    credentials.Channel({security::Role::kAgent, ""}));
  if (!rounds.ok()) {
    std::fprintf(stderr, "scale_client: probe: %s\n",
                 std::string(rounds.status().message()).c_str());
    return false;
  }
  const MillisStats warm = MillisStatsOf(
      std::vector<absl::Duration>(rounds->begin() + 1, rounds->end()));
  std::cout << absl::StrFormat(
                   "{\"label\": \"%s\", \"agents\": %d, "
                   "\"describe_cold_ms\": %.3f, \"describe_warm_ms\": "
                   "{\"n\": %d, \"p50\": %.3f, \"p99\": %.3f, \"max\": "
                   "%.3f}}",
                   flags.label, addresses.size(),
                   absl::ToDoubleMilliseconds(rounds->front()), warm.n,
                   warm.p50, warm.p99, warm.max)
            << std::endl;
  return true;
}

int Run(const ClientFlags& flags) {
  auto credentials = security::Credentials::Create(flags.tls);
  if (!credentials.ok()) {
    std::fprintf(stderr, "scale_client: %s\n",
                 std::string(credentials.status().message()).c_str());
    return 2;
  }
  auto stub = v1::CoordinatorService::NewStub(grpc::CreateChannel(
      flags.coordinator,
      (*credentials)->Channel({security::Role::kCoordinator, ""})));
  if (flags.wait_agents > 0 &&
      !WaitForAgents(*stub, flags.wait_agents,
                     absl::Seconds(flags.wait_timeout_s))) {
    return 1;
  }
  if (flags.probe_rounds > 0 && !Probe(*stub, flags, **credentials)) {
    return 1;
  }
  if (flags.sweeps == 0) return 0;
  const v1::SweepRequest request = MakeRequest(flags);
  std::vector<SweepTimeline> timelines;
  for (int i = 0; i < flags.sweeps; ++i) {
    timelines.push_back(
        RunOne(*stub, request, absl::Seconds(flags.sweep_timeout_s)));
  }
  const OverheadReport report = Summarize(timelines);
  std::cout << ReportJson(report, flags.label) << std::endl;
  return report.failed == 0 ? 0 : 1;
}

}  // namespace
}  // namespace fabricpulse::scale

int main(int argc, char** argv) {
  fabricpulse::scale::ClientFlags flags;
  CLI::App app{
      "scale_client: per-step control overhead of the coordinator (a test "
      "tool)"};
  app.add_option("--coordinator", flags.coordinator, "Coordinator HOST:PORT")
      ->required();
  app.add_option("--wait-agents", flags.wait_agents,
                 "First wait until this many agents are alive")
      ->capture_default_str();
  app.add_option("--wait-timeout", flags.wait_timeout_s,
                 "Seconds --wait-agents waits at most")
      ->capture_default_str();
  app.add_option("--sweeps", flags.sweeps, "Sweeps to run (0: only wait)")
      ->capture_default_str();
  app.add_option("--steps", flags.steps, "Sizes per sweep (out of place)")
      ->capture_default_str();
  app.add_option("--op", flags.op, "Collective")->capture_default_str();
  app.add_option("--min-bytes", flags.min_bytes, "Smallest size, bytes")
      ->capture_default_str();
  app.add_option("--factor", flags.factor, "Size factor between steps")
      ->capture_default_str();
  app.add_option("--nodes", flags.nodes, "Nodes (default: every live agent)")
      ->delimiter(',');
  app.add_option("--sweep-timeout", flags.sweep_timeout_s,
                 "Seconds one sweep may take")
      ->capture_default_str();
  app.add_option("--label", flags.label, "Copied into the JSON line")
      ->check([](const std::string& label) {
        return label.find_first_of("\"\\") == std::string::npos
                   ? std::string()
                   : std::string("no quotes or backslashes");
      });
  app.add_option("--probe-rounds", flags.probe_rounds,
                 "Describe every live agent directly, this many rounds "
                 "(the first one connects)")
      ->capture_default_str();
  app.add_option("--tls-cert", flags.tls.cert_file,
                 "Operator certificate (PEM); with --tls-key and --tls-ca: "
                 "mutual TLS");
  app.add_option("--tls-key", flags.tls.key_file, "Its key (PEM)");
  app.add_option("--tls-ca", flags.tls.ca_file, "The CA (PEM)");
  app.add_option("--trust-domain", flags.tls.trust_domain,
                 "SPIFFE trust domain")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  flags.tls.insecure = flags.tls.cert_file.empty() &&
                       flags.tls.key_file.empty() && flags.tls.ca_file.empty();
  if (flags.sweeps < 0 || flags.steps < 1 || flags.factor < 2 ||
      flags.probe_rounds == 1 || flags.probe_rounds < 0) {
    std::fprintf(stderr,
                 "scale_client: --sweeps >= 0, --steps >= 1, --factor >= 2, "
                 "--probe-rounds 0 or >= 2\n");
    return 2;
  }
  return fabricpulse::scale::Run(flags);
}
