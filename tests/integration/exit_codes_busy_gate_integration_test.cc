// The exit code table's 4 (busy) and 5 (a gate failed), per command, and
// a member's trouble told apart from an unreachable coordinator, on the
// real binary (issue 33, item 2; the other codes are in
// exit_codes_integration_test.cc, `sweep --min-busbw` and
// `--fail-on-regression` in gate_integration_test.cc, a preempted sweep in
// coexist_integration_test.cc, `matrix --fail-on-flagged` on a shaped link
// in bad_link_check.sh).
#include <signal.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "client/commands/exit_codes.h"
#include "gtest/gtest.h"
#include "tests/integration/background_sweep.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

TEST(ExitCodesBusyTest, EveryCommandThatStartsASweepIsFourOnBusyMembers) {
  auto cluster = StartCluster(1, 2);
  ASSERT_NE(cluster, nullptr);
  auto stub = Connect(cluster->coordinator());
  // Several seconds of Gloo steps: still running while the CLI asks.
  v1::SweepSpec spec = QuickSpec({"all_reduce"}, 4096);
  spec.set_iters(4000);
  spec.set_check(false);
  spec.set_timeout_seconds(60);
  BackgroundSweep running(*stub, spec, 0);
  ASSERT_TRUE(running.WaitStarted());
  for (const std::vector<std::string>& command :
       std::vector<std::vector<std::string>>{
           {"sweep", "--ops", "all_reduce", "-e", "1K", "-n", "2"},
           {"matrix", "--bytes", "1K", "--iters", "2"}}) {
    std::vector<std::string> args = {"--coordinator", cluster->coordinator()};
    args.insert(args.end(), command.begin(), command.end());
    CliResult r = RunCli(args);
    EXPECT_EQ(r.exit_code, client::kExitBusy) << command[0] << ": " << r.err;
    EXPECT_TRUE(
        absl::StrContains(r.err, "busy with sweep " + running.sweep_id()))
        << command[0] << ": " << r.err;
  }
  CliResult abort = RunCli({"--coordinator", cluster->coordinator(), "abort"});
  EXPECT_EQ(abort.exit_code, client::kExitOk) << abort.err;
  running.Join();
}

TEST(ExitCodesMemberTest, NoLiveAgentIsTheSweepsFailureNotAnUnreachable) {
  // The coordinator answers, typed (MEMBER_UNAVAILABLE): exit 1. By its
  // text ("... registered with the coordinator") it used to read as an
  // unreachable coordinator (3).
  auto cluster = StartCluster(1, 1);
  ASSERT_NE(cluster, nullptr);
  auto stub = Connect(cluster->coordinator());
  ASSERT_EQ(kill(cluster->agent_pids()[0], SIGKILL), 0);
  ASSERT_TRUE(Eventually(
      [&] {
        const std::vector<v1::AgentInfo> agents = ListAgents(*stub);
        return !agents.empty() && agents[0].state() == "lost";
      },
      absl::Seconds(30)));
  CliResult r = RunCli({"--coordinator", cluster->coordinator(), "sweep",
                        "--ops", "all_reduce", "-e", "1K"});
  EXPECT_EQ(r.exit_code, client::kExitFailed) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "no live agent")) << r.err;
}

// The sweep id a table's first line names ("# fabricpulse sweep ID: ...").
std::string SweepIdOf(const std::string& table) {
  const std::string lead = "# fabricpulse sweep ";
  const size_t at = table.find(lead);
  EXPECT_NE(at, std::string::npos) << table;
  if (at == std::string::npos) return "";
  const size_t start = at + lead.size();
  return table.substr(start, table.find(':', start) - start);
}

// A local sweep (kept in `state`) with rank 1 entering every op `late`
// (the workers inherit the environment through local's agent); its id.
std::string LateSweep(const std::string& state, const std::string& late) {
  setenv("FABRICPULSE_FAULT_LATE_RANK", ("1:" + late).c_str(), 1);
  CliResult r = RunCli({"local", "--state-dir", state, "sweep", "--ops",
                        "all_reduce", "-b", "1K", "-e", "1K", "-n", "10"});
  unsetenv("FABRICPULSE_FAULT_LATE_RANK");
  EXPECT_EQ(r.exit_code, client::kExitOk) << r.err;
  return SweepIdOf(r.out);
}

TEST(ExitCodesGateTest, CompareFailOnSlowerIsFiveOnASlowerSweep) {
  char tmpl[] = "/tmp/fabricpulse-exit-gate-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string state = std::string(tmpl) + "/state";
  // Both sweeps wait on a late rank, 10 ms then 200 ms an op: every
  // iteration takes about that long, so each row's own p50..p99 spread,
  // which compare requires a change to exceed, stays below the 20x (on a
  // loaded machine a 10 ms row's spread reached 97 %; B/A 0.05 needs more
  // than 95 %).
  const std::string a = LateSweep(state, "10ms");
  const std::string b = LateSweep(state, "200ms");
  ASSERT_FALSE(a.empty() || b.empty());
  CliResult gate = RunCli(
      {"local", "--state-dir", state, "compare", a, b, "--fail-on-slower"});
  EXPECT_EQ(gate.exit_code, client::kExitGateFailed) << gate.out << gate.err;
  EXPECT_TRUE(absl::StrContains(gate.out, " slower, 0 faster")) << gate.out;
  EXPECT_FALSE(absl::StrContains(gate.out, ": 0 slower")) << gate.out;
  // The healthy opposite: the same sweep against itself passes.
  CliResult same = RunCli(
      {"local", "--state-dir", state, "compare", b, b, "--fail-on-slower"});
  EXPECT_EQ(same.exit_code, client::kExitOk) << same.out << same.err;
  std::filesystem::remove_all(tmpl);
}

}  // namespace
}  // namespace fabricpulse::testing
