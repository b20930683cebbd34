// Helpers for integration tests: run the CLI binary, run sweeps over gRPC.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "client/local/local_cluster.h"
#include "fabricpulse/v1/agent.grpc.pb.h"
#include "fabricpulse/v1/coordinator.grpc.pb.h"

namespace fabricpulse::testing {

// The folder with the built binaries (set by CMake).
std::string BinDir();

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};
// Runs build/bin/`binary` (or, when `binary` holds a '/', that program)
// with `args` in this process's environment; bounded by `timeout_seconds`.
CliResult RunBinary(const std::string& binary,
                    const std::vector<std::string>& args,
                    int timeout_seconds = 120);
// Runs the program at `path` (absolute) with `args`, likewise.
CliResult RunProgram(const std::string& path,
                     const std::vector<std::string>& args,
                     int timeout_seconds = 120);
// Runs build/bin/fabricpulse with `args`; bounded by `timeout_seconds`.
CliResult RunCli(const std::vector<std::string>& args,
                 int timeout_seconds = 120);

struct SweepOutcome {
  absl::Status status;
  bool started = false;
  v1::SweepStarted start;
  v1::SweepCommReady comm;
  std::vector<v1::StepResult> results;
  v1::SweepFinished finished;
};
// A stub on the coordinator at `address`, as the identity of the last
// cluster started through StartCluster (operator/local, mutual TLS), or
// plaintext when that cluster is insecure.
std::unique_ptr<v1::CoordinatorService::Stub> Connect(
    const std::string& address);
// A stub on an agent, as the coordinator would call it (the cluster
// coordinator's own identity, the one its agents obey; the agent must
// present agent/<node>).
std::unique_ptr<v1::AgentService::Stub> ConnectAgent(
    client::LocalCluster& cluster, const v1::AgentInfo& agent);
SweepOutcome RunSweep(v1::CoordinatorService::Stub& stub,
                      const v1::SweepSpec& spec,
                      const std::vector<std::string>& nodes = {});
// A small, fast spec: the given ops, 8 B .. max_bytes by factor 8, both
// placements, data check on, 1 warmup + 2 timed iterations.
v1::SweepSpec QuickSpec(const std::vector<std::string>& ops,
                        uint64_t max_bytes = 32 * 1024);
// Starts a local cluster of `agents` x `ranks` Gloo ranks (fails the test
// on error).
std::unique_ptr<client::LocalCluster> StartCluster(int agents, int ranks);
// Starts a cluster with `options` (bin_dir filled in when empty) and makes
// its operator identity the one Connect and the CLI use: it sets
// FABRICPULSE_TLS_CERT/_KEY/_CA (or FABRICPULSE_INSECURE) in this process's
// environment, which RunCli's children inherit. Errors: the cluster's.
absl::StatusOr<std::unique_ptr<client::LocalCluster>> StartCluster(
    client::LocalClusterOptions options);
// The client identity of `cluster`, as StartCluster sets it.
void UseClientIdentityOf(const client::LocalCluster& cluster);
uint64_t KvSets(v1::CoordinatorService::Stub& stub);
std::vector<v1::AgentInfo> ListAgents(v1::CoordinatorService::Stub& stub);
// The history's newest `last` sweeps, newest first (fails the test when the
// call fails).
std::vector<v1::SweepSummary> ListSweeps(v1::CoordinatorService::Stub& stub,
                                         int last = 100);
// Waits until `condition` holds, polling with a capped backoff; false when
// `timeout` passes first.
bool Eventually(const std::function<bool()>& condition, absl::Duration timeout);

}  // namespace fabricpulse::testing
