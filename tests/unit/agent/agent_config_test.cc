#include "daemon/agent/agent_config.h"

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
