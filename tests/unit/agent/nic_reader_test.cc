#include "daemon/agent/nic_reader.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "daemon/agent/agent_metrics.h"
#include "daemon/core/topology_limits.h"
#include "gtest/gtest.h"
#include "prometheus/registry.h"
#include "tests/unit/coordinator/metrics_test_util.h"

namespace fabricpulse::agent {
namespace {

namespace fs = std::filesystem;
using ::fabricpulse::testing::Serialize;
using ::fabricpulse::testing::ValueOf;

class NicReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/nic_reader_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
  }
  void TearDown() override { fs::remove_all(root_); }

  // An interface folder as sysfs has it; `device` false: a virtual one.
  // An empty `speed` leaves the file out (the kernel refuses to read it).
  void Add(const std::string& name, int type, const std::string& operstate,
           const std::string& speed, bool device = true) {
    const fs::path dir = fs::path(root_) / name;
    fs::create_directories(dir);
    std::ofstream(dir / "type") << type << "\n";
    std::ofstream(dir / "operstate") << operstate << "\n";
    if (!speed.empty()) std::ofstream(dir / "speed") << speed << "\n";
    if (device) fs::create_directory(dir / "device");
  }

  std::string root_;
};

TEST_F(NicReaderTest, ReadsKindStateAndSpeedOfDeviceBackedInterfaces) {
  Add("ib0", 32, "up", "400000");
  Add("eth0", 1, "down", "-1");
  Add("enp1s0", 1, "lowerlayerdown", "");
  Add("weird0", 280, "dormant", "abc");
  Add("lo", 772, "unknown", "");
  Add("veth12ab", 1, "up", "10000", /*device=*/false);
  Add("docker0", 1, "up", "", /*device=*/false);
  const std::vector<v1::NicInfo> nics = NicReader(root_).Read();
  ASSERT_EQ(nics.size(), 4u);
  EXPECT_EQ(nics[0].name(), "enp1s0");
  EXPECT_EQ(nics[0].kind(), "ethernet");
  EXPECT_EQ(nics[0].state(), "down");
  EXPECT_FALSE(nics[0].has_speed_bits_per_second());
  EXPECT_EQ(nics[1].name(), "eth0");
  EXPECT_EQ(nics[1].state(), "down");
  EXPECT_FALSE(nics[1].has_speed_bits_per_second());  // -1
  EXPECT_EQ(nics[2].name(), "ib0");
  EXPECT_EQ(nics[2].kind(), "infiniband");
  EXPECT_EQ(nics[2].state(), "up");
  EXPECT_EQ(nics[2].speed_bits_per_second(), 400'000'000'000u);
  EXPECT_EQ(nics[3].name(), "weird0");
  EXPECT_EQ(nics[3].kind(), "other");
  EXPECT_EQ(nics[3].state(), "unknown");
  EXPECT_FALSE(nics[3].has_speed_bits_per_second());
}

TEST_F(NicReaderTest, ReadsAnewEachTime) {
  Add("ib0", 32, "up", "200000");
  NicReader reader(root_);
  EXPECT_EQ(reader.Read().at(0).state(), "up");
  std::ofstream(fs::path(root_) / "ib0" / "operstate") << "down\n";
  fs::remove(fs::path(root_) / "ib0" / "speed");
  const v1::NicInfo nic = reader.Read().at(0);
  EXPECT_EQ(nic.state(), "down");
  EXPECT_FALSE(nic.has_speed_bits_per_second());
}

TEST_F(NicReaderTest, BoundedToTheFirstByName) {
  for (size_t i = 0; i < core::kMaxNicsPerAgent + 5; ++i) {
    Add(absl::StrCat("eth", i < 10 ? "0" : "", i), 1, "up", "1000");
  }
  const std::vector<v1::NicInfo> nics = NicReader(root_).Read();
  ASSERT_EQ(nics.size(), core::kMaxNicsPerAgent);
  EXPECT_EQ(nics.front().name(), "eth00");
  EXPECT_EQ(nics.back().name(),
            absl::StrCat("eth", core::kMaxNicsPerAgent - 1));
}

TEST_F(NicReaderTest, NoFolderNoNics) {
  EXPECT_TRUE(NicReader(root_ + "/missing").Read().empty());
}

TEST(AgentNicMetricsTest, UpAndSpeedPerNicAndGoneNicsRemoved) {
  prometheus::Registry registry;
  AgentMetrics metrics(registry, "node-a");
  v1::NicInfo ib;
  ib.set_name("ib0");
  ib.set_state("up");
  ib.set_speed_bits_per_second(400'000'000'000);
  v1::NicInfo eth;
  eth.set_name("eth0");
  eth.set_state("down");
  metrics.Nics({ib, eth});
  const std::string up = "fabricpulse_agent_nic_up";
  const std::string speed = "fabricpulse_agent_nic_speed_bytes";
  const std::string ib0 = "{nic=\"ib0\",node=\"node-a\"}";
  const std::string eth0 = "{nic=\"eth0\",node=\"node-a\"}";
  std::string text = Serialize(registry);
  EXPECT_EQ(ValueOf(text, up + ib0), "1") << text;
  EXPECT_EQ(ValueOf(text, up + eth0), "0") << text;
  // 400 Gb/s in bytes per second, as node_exporter writes it.
  EXPECT_EQ(std::stod(ValueOf(text, speed + ib0)), 5e10) << text;
  EXPECT_EQ(ValueOf(text, speed + eth0), "") << text;  // not measured
  // ib0 goes down and loses its speed; eth0 disappears.
  ib.set_state("down");
  ib.clear_speed_bits_per_second();
  metrics.Nics({ib});
  text = Serialize(registry);
  EXPECT_EQ(ValueOf(text, up + ib0), "0") << text;
  EXPECT_EQ(ValueOf(text, speed + ib0), "") << text;
  EXPECT_EQ(ValueOf(text, up + eth0), "") << text;
}

}  // namespace
}  // namespace fabricpulse::agent
