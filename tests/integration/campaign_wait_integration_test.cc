// `fabricpulse campaign --wait` on the real binaries: two Gloo agents, a
// campaign plan of single-node groups. The wait follows the campaign to
// its end through ListNodes with campaigns_only, whose answer carries the
// campaign and no node (its cost does not grow with the fleet); without
// it, ListNodes lists every node. campaigns_only names a plan that is not
// a campaign plan as bad input, as the full listing does.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {
namespace FP_UNITY_ID {

class CampaignWaitTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string dir = ::testing::TempDir() + "campaign_wait.XXXXXX";
    ASSERT_NE(mkdtemp(dir.data()), nullptr);
    dir_ = new std::string(dir);
    const std::string config = dir + "/config.yaml";
    std::ofstream(config) << "plans:\n"
                             "  camp:\n"
                             "    ops: [all_reduce]\n"
                             "    min_bytes: 1K\n"
                             "    max_bytes: 1K\n"
                             "    iters: 2\n"
                             "    warmup: 1\n"
                             "    campaign:\n"
                             "      grouping: node\n"
                             "      window: 60s\n"
                             "      busy_retry: 1s\n"
                             "  plain:\n"
                             "    ops: [all_reduce]\n"
                             "    max_bytes: 1K\n";
    client::LocalClusterOptions options;
    options.agents = 2;
    options.ranks = 2;
    options.config_file = config;
    auto cluster = StartCluster(options);
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = cluster->release();
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
    std::filesystem::remove_all(*dir_);
    delete dir_;
    dir_ = nullptr;
  }

  static v1::ListNodesResponse Nodes(const std::string& plan,
                                     bool campaigns_only,
                                     grpc::Status* status) {
    auto stub = Connect(cluster_->coordinator());
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
    v1::ListNodesRequest request;
    request.set_plan(plan);
    request.set_campaigns_only(campaigns_only);
    v1::ListNodesResponse response;
    *status = stub->ListNodes(&ctx, request, &response);
    return response;
  }

  static client::LocalCluster* cluster_;
  static std::string* dir_;
};

client::LocalCluster* CampaignWaitTest::cluster_ = nullptr;
std::string* CampaignWaitTest::dir_ = nullptr;

TEST_F(CampaignWaitTest, WaitFollowsTheCampaignWithoutListingNodes) {
  CliResult run = RunCli({"--coordinator", cluster_->coordinator(), "campaign",
                          "--plan", "camp", "--wait", "--timeout", "120"},
                         150);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_TRUE(absl::StrContains(run.out, "finished: 2 of 2 node(s) measured"))
      << run.out;
  grpc::Status status;
  const v1::ListNodesResponse light = Nodes("camp", true, &status);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(light.nodes_size(), 0);
  ASSERT_EQ(light.campaigns_size(), 1);
  EXPECT_EQ(light.campaigns(0).status(), "finished");
  EXPECT_EQ(light.campaigns(0).measured(), 2);
  const v1::ListNodesResponse full = Nodes("camp", false, &status);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(full.nodes_size(), 2);
  ASSERT_EQ(full.campaigns_size(), 1);
  EXPECT_EQ(full.campaigns(0).campaign_id(), light.campaigns(0).campaign_id());
}

TEST_F(CampaignWaitTest, CampaignsOnlyRefusesAPlanThatIsNotACampaign) {
  for (bool campaigns_only : {true, false}) {
    grpc::Status status;
    Nodes("plain", campaigns_only, &status);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(status.error_message(), "plan: 'plain' is not a campaign plan");
  }
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::testing
