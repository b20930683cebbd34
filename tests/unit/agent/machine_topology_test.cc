// MachineTopology (issue 29, item 4): the agent re-reads its GPUs' NVLinks
// and its NICs every refresh, and reports a change only once two reads in a
// row agree: a link that goes down shows, a link that flaps for one read
// does not, and nothing is read between refreshes.
#include "daemon/agent/machine_topology.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"
#include "tests/fakes/fake_clock.h"

namespace fabricpulse::agent {
namespace {
namespace FP_UNITY_ID {

namespace fs = std::filesystem;

class MachineTopologyTest : public ::testing::Test {
 protected:
  MachineTopologyTest() {
    // A folder of this process's own: ctest runs each test as a process,
    // two at once.
    std::string dir = ::testing::TempDir() + "machine_topology.XXXXXX";
    EXPECT_NE(mkdtemp(dir.data()), nullptr);
    net_ = dir + "/net";
    SetNic("up");
    fs::create_directories(fs::path(net_) / "ib0" / "device");
    std::ofstream(fs::path(net_) / "ib0" / "type") << "32\n";
    std::ofstream(fs::path(net_) / "ib0" / "speed") << "400000\n";
    MachineTopology::Options options;
    options.read_gpus = [this](bool) {
      ++reads_;
      GpuFacts facts;
      facts.model = "NVIDIA H200";
      facts.active_links = links_;
      return std::map<int, GpuFacts>{{0, facts}};
    };
    options.sys_class_net = net_;
    options.refresh = absl::Seconds(60);
    options.clock = &clock_;
    topology_ = std::make_unique<MachineTopology>(std::move(options));
  }
  ~MachineTopologyTest() override {
    std::error_code ignored;
    fs::remove_all(fs::path(net_).parent_path(), ignored);
  }

  void SetNic(const std::string& state) {
    fs::create_directories(fs::path(net_) / "ib0");
    std::ofstream(fs::path(net_) / "ib0" / "operstate") << state << "\n";
  }
  // A heartbeat of one GPU worker, as the agent fills it.
  v1::HeartbeatRequest Heartbeat() {
    v1::HeartbeatRequest request;
    request.add_workers()->set_gpu(0);
    topology_->AnnotateHeartbeat(request);
    return request;
  }
  int Links() { return Heartbeat().workers(0).nvlink_active_links(); }

  std::string net_;
  int links_ = 18;
  int reads_ = 0;
  fakes::FakeClock clock_;
  std::unique_ptr<MachineTopology> topology_;
};

TEST_F(MachineTopologyTest,
       TheFirstReadIsTakenAndNothingIsReadBetweenRefreshes) {
  EXPECT_EQ(reads_, 1);
  const v1::HeartbeatRequest hb = Heartbeat();
  EXPECT_EQ(hb.workers(0).gpu_model(), "NVIDIA H200");
  EXPECT_EQ(hb.workers(0).nvlink_active_links(), 18);
  ASSERT_TRUE(hb.has_nics());
  ASSERT_EQ(hb.nics().nics_size(), 1);
  EXPECT_EQ(hb.nics().nics(0).state(), "up");
  clock_.Advance(absl::Seconds(59));
  Heartbeat();
  EXPECT_EQ(reads_, 1);
  clock_.Advance(absl::Seconds(1));
  Heartbeat();
  EXPECT_EQ(reads_, 2);
}

TEST_F(MachineTopologyTest, AChangeShowsOnceTwoReadsInARowAgree) {
  links_ = 12;
  SetNic("down");
  clock_.Advance(absl::Seconds(60));
  EXPECT_EQ(Links(), 18);  // one read: not yet
  EXPECT_EQ(Heartbeat().nics().nics(0).state(), "up");
  clock_.Advance(absl::Seconds(60));
  EXPECT_EQ(Links(), 12);
  EXPECT_EQ(Heartbeat().nics().nics(0).state(), "down");
  // And back the same way.
  links_ = 18;
  SetNic("up");
  clock_.Advance(absl::Seconds(60));
  EXPECT_EQ(Links(), 12);
  clock_.Advance(absl::Seconds(60));
  EXPECT_EQ(Links(), 18);
}

TEST_F(MachineTopologyTest, ALinkThatFlapsForOneReadIsNeverReported) {
  for (int round = 0; round < 5; ++round) {
    links_ = round % 2 == 0 ? 12 : 18;  // down at every other read only
    clock_.Advance(absl::Seconds(60));
    EXPECT_EQ(Links(), 18) << "round " << round;
  }
  EXPECT_EQ(reads_, 6);
}

TEST_F(MachineTopologyTest, AFullDescriptionIsARead) {
  links_ = 12;
  v1::AgentInfo info;
  info.add_workers()->set_gpu(0);
  topology_->Annotate(info);
  EXPECT_EQ(info.workers(0).nvlink_active_links(), 18);
  topology_->Annotate(info);
  EXPECT_EQ(info.workers(0).nvlink_active_links(), 12);
  ASSERT_EQ(info.nics_size(), 1);
  EXPECT_EQ(reads_, 3);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::agent
