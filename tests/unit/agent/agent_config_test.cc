#include "daemon/agent/agent_config.h"

#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "gtest/gtest.h"

namespace fabricpulse::agent {
namespace {

AgentConfig Valid() {
  AgentConfig config;
  config.coordinator = "127.0.0.1:7000";
  config.listen = "127.0.0.1:0";
  config.metrics_listen = "127.0.0.1:0";
  config.node_name = "node-a";
  config.tls.insecure = true;
  return config;
}

TEST(AgentConfigTest, RanksLeftOutOrInRangeAreAccepted) {
  AgentConfig config = Valid();
  EXPECT_TRUE(config.Validate().ok());
  for (int ranks : {1, 2, AgentConfig::kMaxRanks}) {
    config.ranks = ranks;
    EXPECT_TRUE(config.Validate().ok()) << ranks;
  }
}

TEST(AgentConfigTest, RanksOutOfRangeAreRefusedWithTheRange) {
  for (int ranks : {0, -1, AgentConfig::kMaxRanks + 1}) {
    AgentConfig config = Valid();
    config.ranks = ranks;
    absl::Status status = config.Validate();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << ranks;
    EXPECT_EQ(status.message(),
              "--ranks: " + std::to_string(ranks) +
                  " is out of range; allowed: 1 to 512 (leave it out for one "
                  "rank per GPU, or 1 without GPUs)");
  }
}

TEST(AgentConfigTest, LabelsAreCheckedNamingTheFlag) {
  AgentConfig config = Valid();
  config.labels = "rack=r12,pool=train";
  EXPECT_TRUE(config.Validate().ok());
  config.labels = "rack";
  EXPECT_EQ(config.Validate().message(),
            "--labels: entry 'rack' has no '='; write "
            "key=value[,key=value...]");
  config.labels = "rack=r 12";
  EXPECT_EQ(config.Validate().code(), absl::StatusCode::kInvalidArgument);
}

// --labels-dir (issue 30): a ConfigMap of node name -> labels mounted as a
// folder; this node's file overrides --labels key by key.
TEST(AgentConfigTest, ThisNodesFileInTheLabelsDirOverridesLabels) {
  char tmpl[] = "/tmp/fp-labels-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  std::ofstream(dir + "/node-a") << "rack=r7,zone=z1\n";
  std::ofstream(dir + "/node-b") << "rack=r9\n";
  AgentConfig config = Valid();
  config.labels = "pool=train,rack=r0";
  config.labels_dir = dir;
  absl::StatusOr<core::AgentLabels> labels = config.Labels();
  ASSERT_TRUE(labels.ok()) << labels.status();
  EXPECT_EQ(*labels, (core::AgentLabels{
                         {"pool", "train"}, {"rack", "r7"}, {"zone", "z1"}}));
  // A node without a file: --labels alone.
  config.node_name = "node-c";
  EXPECT_EQ(*config.Labels(),
            (core::AgentLabels{{"pool", "train"}, {"rack", "r0"}}));
  // A bad file is refused naming it.
  std::ofstream(dir + "/node-c") << "rack";
  EXPECT_EQ(config.Validate().message(),
            "--labels-dir file '" + dir +
                "/node-c': entry 'rack' has no '='; write "
                "key=value[,key=value...]");
  // A folder that is not there is refused.
  config.labels_dir = dir + "/missing";
  EXPECT_EQ(config.Validate().message(),
            "--labels-dir: '" + dir + "/missing' is not a readable folder");
  for (const char* f : {"/node-a", "/node-b", "/node-c"}) {
    std::remove((dir + f).c_str());
  }
  ::rmdir(dir.c_str());
}

TEST(AgentConfigTest, GlooProbeGpusAreATestSeamForGlooOnly) {
  AgentConfig config = Valid();
  config.backend = "gloo";
  config.gloo_probe_gpus = "0,1";
  EXPECT_TRUE(config.Validate().ok());
  config.ranks = 2;
  EXPECT_TRUE(config.Validate().ok());
  config.ranks = 3;
  EXPECT_EQ(config.Validate().message(),
            "--gloo-probe-gpus: 2 GPU(s) listed for 3 --ranks; list one GPU "
            "per rank");
  config.ranks.reset();
  config.gloo_probe_gpus = "0,x";
  EXPECT_EQ(config.Validate().message(),
            "--gloo-probe-gpus: 'x' is not a GPU index; allowed: a comma-"
            "separated list of indices 0 to 1023, e.g. 0,1,2,3");
  config.gloo_probe_gpus = "0";
  config.backend = "auto";
  EXPECT_EQ(config.Validate().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace fabricpulse::agent
