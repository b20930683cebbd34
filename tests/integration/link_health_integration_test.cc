// Links below peers (issue 29, item 4) on the real coordinator, agent,
// worker and CLI binaries: three agents, each with a machine of its own
// (one GPU of the stand-in NVML, scripted by a file, with four NVLinks to
// an NVSwitch; one InfiniBand NIC in a sysfs tree of the test's), re-reading
// their topology every second. On an even fleet nobody is named; when one
// machine loses two NVLinks and its NIC goes down, `agents` names that node
// alone (table, JSON, CSV) and fabricpulse_node_links_degraded{node} reads
// 1 for it and 0 for the others; when the links come back, it clears.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/integration/fake_gpu_state.h"
#include "tests/integration/metrics_scrape.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {
namespace FP_UNITY_ID {

namespace fs = std::filesystem;

constexpr int kAgents = 3;
constexpr char kSwitch[] = "00000000:A0:00.0";  // no local GPU: an NVSwitch

class LinkHealthTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string dir = ::testing::TempDir() + "link_health.XXXXXX";
    ASSERT_NE(mkdtemp(dir.data()), nullptr);
    dir_ = new std::string(dir);
    gpus_ = new FakeGpuState(dir, 1);
    client::LocalClusterOptions options;
    options.agents = kAgents;
    options.ranks = 1;
    options.env = gpus_->ClusterEnv();
    options.env.push_back("FABRICPULSE_TOPOLOGY_REFRESH=1s");
    for (int i = 0; i < kAgents; ++i) {
      SetMachine(i, 4, "up");
      options.agent_env.push_back(
          {absl::StrCat("FAKE_NVML_TOPOLOGY_FILE=", Machine(i), "/topology"),
           absl::StrCat("FABRICPULSE_SYS_CLASS_NET=", Machine(i), "/net")});
    }
    auto cluster = StartCluster(options);
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = cluster->release();
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
    delete gpus_;
    gpus_ = nullptr;
    fs::remove_all(*dir_);
    delete dir_;
  }
  void SetUp() override { ASSERT_NE(cluster_, nullptr); }

  static std::string Machine(int i) { return absl::StrCat(*dir_, "/m", i); }
  // Machine i: GPU 0 with `active` of 4 NVLinks up (to the switch), and
  // ib0 at 400 Gb/s in state `ib0`.
  static void SetMachine(int i, int active, const std::string& ib0) {
    const fs::path nic = fs::path(Machine(i)) / "net" / "ib0";
    fs::create_directories(nic / "device");
    std::ofstream(nic / "type") << "32\n";
    std::ofstream(nic / "operstate") << ib0 << "\n";
    if (ib0 == "up") {
      std::ofstream(nic / "speed") << "400000\n";
    } else {
      fs::remove(nic / "speed");
    }
    std::string links;
    for (int l = 0; l < 4; ++l) {
      absl::StrAppend(&links, l == 0 ? "" : " ", l < active ? kSwitch : "-");
    }
    std::ofstream(fs::path(Machine(i)) / "topology")
        << "NVIDIA H200|00000000:18:00.0|" << links << "\n";
  }

  CliResult Cli(std::vector<std::string> args) {
    args.insert(args.begin(), {"--coordinator", cluster_->coordinator()});
    return RunCli(args);
  }
  double Degraded(int i) {
    auto text = ScrapeMetrics(cluster_->coordinator_metrics());
    return text.ok()
               ? SeriesValue(*text, absl::StrCat("fabricpulse_node_links_"
                                                 "degraded{node=\"",
                                                 cluster_->NodeName(i), "\"}"))
               : -2;
  }

  static std::string* dir_;
  static FakeGpuState* gpus_;
  static client::LocalCluster* cluster_;
};
std::string* LinkHealthTest::dir_ = nullptr;
FakeGpuState* LinkHealthTest::gpus_ = nullptr;
client::LocalCluster* LinkHealthTest::cluster_ = nullptr;

TEST_F(LinkHealthTest, AnEvenFleetNamesNobodyAndOneDegradedNodeIsNamedAlone) {
  // Even: every machine reports its 4 links, nobody is named.
  std::string json;
  ASSERT_TRUE(Eventually(
      [&] {
        json = Cli({"agents", "--output", "json"}).out;
        return absl::StrContains(json, "\"nvlink_active_links\":4");
      },
      absl::Seconds(30)))
      << json;
  EXPECT_FALSE(absl::StrContains(json, "\"link_findings\":[\"")) << json;
  for (int i = 0; i < kAgents; ++i) EXPECT_EQ(Degraded(i), 0) << i;

  // Machine 1 loses two NVLinks and its NIC.
  SetMachine(1, 2, "down");
  const std::string nvlink =
      "DEGRADED, below its peers: gpu 0 (NVIDIA H200): 2 NVLinks active, "
      "the model's median 4 over 3 GPUs of 3 nodes";
  const std::string nics =
      "DEGRADED, below its peers: nics: 0 Gb/s up (ib0 down), the median "
      "of 3 nodes with NVIDIA H200 400 Gb/s";
  CliResult table;
  ASSERT_TRUE(Eventually(
      [&] {
        table = Cli({"agents"});
        return absl::StrContains(table.out, nvlink) &&
               absl::StrContains(table.out, nics);
      },
      absl::Seconds(30)))
      << table.out;
  // Under node 1's heading, and only there.
  const size_t at = table.out.find(cluster_->NodeName(1));
  const size_t next = table.out.find(cluster_->NodeName(2));
  ASSERT_NE(at, std::string::npos) << table.out;
  EXPECT_GT(table.out.find(nvlink), at) << table.out;
  EXPECT_LT(table.out.find(nvlink), next) << table.out;
  EXPECT_EQ(table.out.find(nvlink), table.out.rfind(nvlink)) << table.out;
  const std::string csv = Cli({"agents", "--output", "csv"}).out;
  EXPECT_TRUE(absl::StrContains(csv, ",links_degraded\n")) << csv;
  EXPECT_EQ(Degraded(0), 0);
  EXPECT_EQ(Degraded(1), 1);
  EXPECT_EQ(Degraded(2), 0);

  // The links come back: the finding and the series clear.
  SetMachine(1, 4, "up");
  ASSERT_TRUE(Eventually(
      [&] {
        return !absl::StrContains(Cli({"agents", "--output", "json"}).out,
                                  "\"link_findings\":[\"");
      },
      absl::Seconds(30)));
  EXPECT_EQ(Degraded(1), 0);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::testing
