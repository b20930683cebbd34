// --release-idle-after on real daemons (Gloo): quiet workers drop their
// communicators, the coordinator names a new one for the members, and the
// next sweep rebuilds it (reused false, init time recorded) and succeeds;
// sweeps that follow one another keep reusing it. The figures of GPU
// memory before and after a release are tests/perf/idle_cost.sh's.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

constexpr char kReleasedLine[] = "released the communicators and the device";

TEST(IdleReleaseIntegrationTest, QuietWorkersReleaseAndTheNextSweepRebuilds) {
  client::LocalClusterOptions options;
  options.agents = 2;
  options.ranks = 1;
  options.env = {"FABRICPULSE_RELEASE_IDLE_AFTER=3s"};
  auto cluster = StartCluster(options);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  auto stub = Connect((*cluster)->coordinator());
  for (const v1::AgentInfo& agent : ListAgents(*stub)) {
    EXPECT_EQ(agent.release_idle_after_seconds(), 3) << agent.node_name();
  }
  const v1::SweepSpec spec = QuickSpec({"all_reduce"}, 64);

  SweepOutcome first = RunSweep(*stub, spec);
  ASSERT_TRUE(first.status.ok()) << first.status;
  EXPECT_FALSE(first.comm.reused());
  SweepOutcome second = RunSweep(*stub, spec);
  ASSERT_TRUE(second.status.ok()) << second.status;
  EXPECT_TRUE(second.comm.reused());

  const std::string dir = (*cluster)->dir();
  auto released = [&] {
    for (int a = 0; a < 2; ++a) {
      if (ReadAll(absl::StrCat(dir, "/agent-", a, ".log"))
              .find(kReleasedLine) == std::string::npos) {
        return false;
      }
    }
    return true;
  };
  EXPECT_FALSE(released());
  ASSERT_TRUE(Eventually(released, absl::Seconds(30)))
      << "no worker logged \"" << kReleasedLine << "\"";

  SweepOutcome third = RunSweep(*stub, spec);
  ASSERT_TRUE(third.status.ok()) << third.status;
  EXPECT_FALSE(third.comm.reused());
  EXPECT_GT(third.comm.init_seconds(), 0);
  EXPECT_EQ(third.finished.status(), first.finished.status());
}

TEST(IdleReleaseIntegrationTest, BadValuesAreRefusedNamingTheFlag) {
  for (const char* value : {"-1s", "500ms", "200h", "soon"}) {
    CliResult agent =
        RunBinary("fabricpulse-agent",
                  {"--coordinator", "127.0.0.1:1", "--insecure", "--backend",
                   "gloo", "--release-idle-after", value},
                  10);
    EXPECT_EQ(agent.exit_code, 2) << value << ": " << agent.err;
    EXPECT_NE(agent.err.find("--release-idle-after"), std::string::npos)
        << agent.err;
  }
  CliResult budget = RunBinary("fabricpulse-agent",
                               {"--coordinator", "127.0.0.1:1", "--insecure",
                                "--backend", "gloo", "--buffer-budget", "1G"},
                               10);
  EXPECT_EQ(budget.exit_code, 2) << budget.err;
  EXPECT_NE(budget.err.find("--buffer-budget: 1G is out of range"),
            std::string::npos)
      << budget.err;
}

}  // namespace
}  // namespace fabricpulse::testing
