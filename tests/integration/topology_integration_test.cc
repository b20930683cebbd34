// Topology (issue 15, item 3) against the real coordinator, agent, worker
// and CLI binaries: the agent reports its GPUs' model, PCI bus id and NVLink
// peers from NVML (the stand-in libnvidia-ml, scripted by a file; the Gloo
// ranks are accounted to GPUs 0 and 1 with --gloo-probe-gpus) and its NICs
// from a sysfs tree of the test's (--sys-class-net); `fabricpulse agents`
// shows them, a NIC going down shows in the agent's metrics at the next
// scrape and, once two of the agent's reads agree, in `agents`. Baselines
// follow the backend version and the topology: history seeded with faster
// sweeps of the same key makes the next sweep regress; seeded with another
// version or GPU model, it does not, and the sweep's history record names the
// change.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/coordinator/store/history_store.h"
#include "gtest/gtest.h"
#include "tests/integration/fake_gpu_state.h"
#include "tests/integration/history_seed.h"
#include "tests/integration/metrics_scrape.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {
namespace FP_UNITY_ID {

namespace fs = std::filesystem;

constexpr char kBus0[] = "00000000:18:00.0";
constexpr char kBus1[] = "00000000:2A:00.0";

class TopologyTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string dir = ::testing::TempDir() + "topology.XXXXXX";
    ASSERT_NE(mkdtemp(dir.data()), nullptr);
    dir_ = new std::string(dir);
    gpus_ = new FakeGpuState(dir, 2);
    // Two GPUs joined by two NVLinks (one more link inactive).
    std::ofstream(dir + "/topology")
        << "NVIDIA H200|" << kBus0 << "|" << kBus1 << " - " << kBus1 << "\n"
        << "NVIDIA H200|" << kBus1 << "|" << kBus0 << "\n";
    AddNic("ib0", 32, "up", "400000", true);
    AddNic("eth0", 1, "up", "25000", true);
    AddNic("veth1a2b", 1, "up", "10000", false);  // virtual: left out
    AddNic("lo", 772, "unknown", "", true);
    client::LocalClusterOptions options;
    options.agents = 1;
    options.ranks = 2;
    options.env = gpus_->ClusterEnv();
    options.env.push_back(
        absl::StrCat("FAKE_NVML_TOPOLOGY_FILE=", dir, "/topology"));
    options.env.push_back(
        absl::StrCat("FABRICPULSE_SYS_CLASS_NET=", dir, "/net"));
    options.env.push_back("FABRICPULSE_TOPOLOGY_REFRESH=1s");
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

  static void AddNic(const std::string& name, int type,
                     const std::string& operstate, const std::string& speed,
                     bool device) {
    const fs::path nic = fs::path(*dir_) / "net" / name;
    fs::create_directories(nic);
    std::ofstream(nic / "type") << type << "\n";
    SetNic(name, operstate, speed);
    if (device) fs::create_directory(nic / "device");
  }
  // The link's state and speed ("" removes the speed file, as the kernel
  // refuses to read it while a link is down).
  static void SetNic(const std::string& name, const std::string& operstate,
                     const std::string& speed) {
    const fs::path nic = fs::path(*dir_) / "net" / name;
    std::ofstream(nic / "operstate") << operstate << "\n";
    if (speed.empty()) {
      fs::remove(nic / "speed");
    } else {
      std::ofstream(nic / "speed") << speed << "\n";
    }
  }

  CliResult Cli(std::vector<std::string> args) {
    args.insert(args.begin(), {"--coordinator", cluster_->coordinator()});
    return RunCli(args);
  }
  // all_reduce at 1, 2 and 4 KiB, out of place.
  CliResult Sweep(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {
        "sweep",       "--ops", "all_reduce", "--min-bytes", "1K",
        "--max-bytes", "4K",    "--iters",    "3",           "--out-of-place"};
    args.insert(args.end(), extra.begin(), extra.end());
    return Cli(args);
  }
  std::string AgentsJson() { return Cli({"agents", "--output", "json"}).out; }

  // Copies succeeded sweep `id` into the history 5 times, just before now
  // (after the sweeps so far, before the next), 1000x faster (a baseline the
  // fabric cannot meet), with its backend version and topology replaced where
  // given.
  static void SeedFastBaseline(const std::string& id, const std::string& tag,
                               const std::string& version = "",
                               const std::string& topology = "") {
    SeedOptions options;
    options.time_factor = 1e-3;
    // Newer than every sweep so far, older than the next one.
    options.first_start = absl::Now() - absl::Milliseconds(50);
    options.spacing = absl::Milliseconds(10);
    options.edit = [&](coordinator::SweepRecord& copy) {
      copy.baseline_change.clear();
      if (!version.empty()) copy.backend_version = version;
      if (!topology.empty()) copy.topology = topology;
    };
    SeedHistoryCopies(cluster_->dir() + "/state/history.db", id, tag, options);
  }
  // The newest sweep in the history.
  v1::SweepSummary Newest() {
    auto stub = Connect(cluster_->coordinator());
    std::vector<v1::SweepSummary> sweeps = ListSweeps(*stub, 1);
    return sweeps.empty() ? v1::SweepSummary() : sweeps[0];
  }
  // The baseline change note the history keeps for sweep `id`.
  static std::string StoredChange(const std::string& id) {
    auto history =
        coordinator::HistoryStore::Open(cluster_->dir() + "/state/history.db");
    if (!history.ok()) return history.status().ToString();
    auto sweep = (*history)->GetSweep(id);
    return sweep.ok() ? sweep->sweep.baseline_change
                      : sweep.status().ToString();
  }
  double AgentSeries(const std::string& series) {
    auto text = ScrapeMetrics(cluster_->agent_metrics().at(0));
    return text.ok() ? SeriesValue(*text, series) : -2;
  }

  static std::string* dir_;
  static FakeGpuState* gpus_;
  static client::LocalCluster* cluster_;
};
std::string* TopologyTest::dir_ = nullptr;
FakeGpuState* TopologyTest::gpus_ = nullptr;
client::LocalCluster* TopologyTest::cluster_ = nullptr;

TEST_F(TopologyTest, AgentsShowGpuModelBusNvlinkPeersAndNics) {
  const std::string json = AgentsJson();
  EXPECT_TRUE(absl::StrContains(json, "\"gpu_model\":\"NVIDIA H200\"")) << json;
  EXPECT_TRUE(
      absl::StrContains(json, absl::StrCat("\"pci_bus_id\":\"", kBus0, "\"")))
      << json;
  EXPECT_TRUE(
      absl::StrContains(json, absl::StrCat("\"pci_bus_id\":\"", kBus1, "\"")))
      << json;
  EXPECT_TRUE(absl::StrContains(json, "\"nvlink_peers\":[1]")) << json;
  EXPECT_TRUE(absl::StrContains(json, "\"nvlink_peers\":[0]")) << json;
  EXPECT_TRUE(absl::StrContains(
      json,
      "\"nics\":[{\"name\":\"eth0\",\"kind\":\"ethernet\",\"state\":\"up\","
      "\"speed_bits_per_second\":\"25000000000\"},{\"name\":\"ib0\",\"kind\":"
      "\"infiniband\",\"state\":\"up\",\"speed_bits_per_second\":"
      "\"400000000000\"}]"))
      << json;
  EXPECT_FALSE(absl::StrContains(json, "veth1a2b")) << json;
  const CliResult table = Cli({"agents"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_TRUE(absl::StrContains(
      table.out, absl::StrCat("  gpu 0: NVIDIA H200, bus ", kBus0,
                              ", nvlink 1 (2 links active)\n")))
      << table.out;
  EXPECT_TRUE(absl::StrContains(table.out,
                                "  nics: eth0 ethernet up 25 Gb/s, ib0 "
                                "infiniband up 400 Gb/s\n"))
      << table.out;
  const std::string node = cluster_->NodeName(0);
  EXPECT_EQ(AgentSeries(absl::StrCat("fabricpulse_agent_nic_up{nic=\"ib0\","
                                     "node=\"",
                                     node, "\"}")),
            1);
  EXPECT_EQ(
      AgentSeries(absl::StrCat("fabricpulse_agent_nic_speed_bytes{nic=\"ib0\","
                               "node=\"",
                               node, "\"}")),
      5e10);  // 400 Gb/s in bytes per second
}

TEST_F(TopologyTest, ANicGoingDownShowsInMetricsAndAgents) {
  const std::string node = cluster_->NodeName(0);
  SetNic("ib0", "down", "");
  // The agent reads its NICs at each scrape: the very next one shows it,
  // with no heartbeat or description in between.
  EXPECT_EQ(AgentSeries(absl::StrCat("fabricpulse_agent_nic_up{nic=\"ib0\","
                                     "node=\"",
                                     node, "\"}")),
            0);
  EXPECT_EQ(
      AgentSeries(absl::StrCat("fabricpulse_agent_nic_speed_bytes{nic=\"ib0\","
                               "node=\"",
                               node, "\"}")),
      -1);  // absent: not measured
  // The coordinator's listing takes it once two of the agent's reads agree
  // (it re-reads every --topology-refresh, 1s here, and at each Describe).
  const std::string down =
      "{\"name\":\"ib0\",\"kind\":\"infiniband\",\"state\":\"down\"}";
  std::string json;
  EXPECT_TRUE(Eventually(
      [&] {
        json = AgentsJson();
        return absl::StrContains(json, down);
      },
      absl::Seconds(30)))
      << json;
  SetNic("ib0", "up", "400000");
  EXPECT_TRUE(Eventually([&] { return !absl::StrContains(AgentsJson(), down); },
                         absl::Seconds(30)));
}

TEST_F(TopologyTest, BaselinesFollowBackendVersionAndTopology) {
  CliResult first = Sweep({"--output", "json"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const v1::SweepSummary real = Newest();
  ASSERT_EQ(real.status(), "succeeded");
  // The key names the GPU model and the NVLink class of the members.
  EXPECT_TRUE(absl::EndsWith(real.topology(), ";gpu=NVIDIA H200;nvlink=full"))
      << real.topology();
  EXPECT_EQ(StoredChange(real.sweep_id()), "");

  // (a) Same version and topology: the baseline applies, a slowdown
  // regresses.
  SeedFastBaseline(real.sweep_id(), "same");
  CliResult regressed = Sweep({"--fail-on-regression"});
  EXPECT_EQ(regressed.exit_code, 5) << regressed.err;
  EXPECT_FALSE(absl::StrContains(regressed.out, "baseline change"))
      << regressed.out;

  // (b) The newest good sweeps ran another backend version: no regression,
  // and the sweep says so once (its history record keeps the note).
  SeedFastBaseline(real.sweep_id(), "old-version", "gloo 0.0-old");
  CliResult upgraded = Sweep({"--fail-on-regression", "--output", "json"});
  EXPECT_EQ(upgraded.exit_code, 0) << upgraded.err;
  EXPECT_FALSE(absl::StrContains(upgraded.out, "\"regression\": true"))
      << upgraded.out;
  EXPECT_TRUE(absl::StrContains(upgraded.out, "\"baseline_sweeps\": 0"))
      << upgraded.out;
  const v1::SweepSummary after_upgrade = Newest();
  EXPECT_EQ(after_upgrade.regressions(), 0);
  EXPECT_EQ(StoredChange(after_upgrade.sweep_id()),
            absl::StrCat("gloo 0.0-old -> ", real.backend_version(),
                         ": new baseline from this sweep"));
  // Said once: the next sweep finds the new version's sweep as the newest.
  ASSERT_EQ(Sweep().exit_code, 0);
  EXPECT_EQ(StoredChange(Newest().sweep_id()), "");

  // (c) The newest good sweeps ran on other GPUs: likewise.
  SeedFastBaseline(
      real.sweep_id(), "old-gpus", "",
      absl::StrCat(real.topology().substr(0, real.topology().find(';')),
                   ";gpu=NVIDIA H100;nvlink=full"));
  CliResult moved = Sweep({"--fail-on-regression", "--output", "json"});
  EXPECT_EQ(moved.exit_code, 0) << moved.err;
  EXPECT_FALSE(absl::StrContains(moved.out, "\"regression\": true"))
      << moved.out;
  EXPECT_EQ(StoredChange(Newest().sweep_id()),
            "topology gpu=NVIDIA H100;nvlink=full -> gpu=NVIDIA "
            "H200;nvlink=full: new baseline from this sweep");

  auto text = ScrapeMetrics(cluster_->coordinator_metrics());
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(SeriesValue(*text,
                        "fabricpulse_baseline_changes_total{cause="
                        "\"backend_version\",plan=\"adhoc\"}"),
            1);
  EXPECT_EQ(SeriesValue(*text,
                        "fabricpulse_baseline_changes_total{cause="
                        "\"topology\",plan=\"adhoc\"}"),
            1);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::testing
