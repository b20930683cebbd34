// Issue 13's attacks on bounded state, against a real coordinator and a
// real agent (2 Gloo ranks) on 127.0.0.1, each refused with the right code
// while nothing changes: a flood of fake registrations (refused past the
// bound, the coordinator's memory flat, `agents` still works), a spec of
// 300,000 ops, a 3 MB op name, a node name with a newline, heartbeats with
// 20,001 fake workers, and a request larger than the server takes.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/integration/process_tree.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kConfig[] = R"(agents:
  max: 100
  forget_lost_after: 1m
)";

class BoundsIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/fabricpulse-bounds-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    const std::string config = dir_ + "/config.yaml";
    std::ofstream(config) << kConfig;
    client::LocalClusterOptions options;
    options.bin_dir = BinDir();
    options.agents = 1;
    options.ranks = 2;
    options.config_file = config;
    // Plaintext: these bounds are what holds when identities do not (an
    // --insecure deployment, or a CA that issued many agent certificates).
    // With mutual TLS each fake registration is refused before them, by the
    // node binding (security_integration_test).
    options.insecure = true;
    auto cluster = StartCluster(options);
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = std::move(*cluster);
    stub_ = Connect(cluster_->coordinator());
  }
  void TearDown() override {
    cluster_.reset();
    std::filesystem::remove_all(dir_);
  }

  grpc::Status Register(const v1::AgentInfo& info) {
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
    v1::RegisterRequest req;
    *req.mutable_agent() = info;
    v1::RegisterResponse resp;
    return stub_->Register(&ctx, req, &resp);
  }
  static v1::AgentInfo FakeAgent(const std::string& node) {
    v1::AgentInfo info;
    info.set_node_name(node);
    info.set_address("127.0.0.1:1");
    info.set_backend("gloo");
    info.set_instance_id(node);
    v1::WorkerInfo* w = info.add_workers();
    w->set_local_index(0);
    w->set_gpu(-1);
    return info;
  }
  grpc::Status Sweep(const v1::SweepRequest& req) {
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(60)));
    auto reader = stub_->RunSweep(&ctx, req);
    v1::SweepEvent event;
    while (reader->Read(&event)) {
    }
    return reader->Finish();
  }
  int StoredSweeps() {
    grpc::ClientContext ctx;
    v1::ListSweepsRequest req;
    req.set_last(1000);
    v1::ListSweepsResponse resp;
    EXPECT_TRUE(stub_->ListSweeps(&ctx, req, &resp).ok());
    return resp.sweeps_size();
  }
  // The coordinator's resident memory, in KiB.
  int64_t CoordinatorRssKib() {
    return ProcStatusNumber(cluster_->coordinator_pid(), "VmRSS");
  }
  std::string CoordinatorLog() {
    std::ifstream in(cluster_->dir() + "/coordinator.log");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  // A sweep on the real agent passes: the membership is as it was.
  void ExpectRealAgentSweeps() {
    SweepOutcome outcome =
        RunSweep(*stub_, QuickSpec({"all_reduce"}, 1024), {"local-0"});
    EXPECT_TRUE(outcome.status.ok()) << outcome.status;
    EXPECT_EQ(outcome.finished.status(), "succeeded");
  }

  std::string dir_;
  std::unique_ptr<client::LocalCluster> cluster_;
  std::unique_ptr<v1::CoordinatorService::Stub> stub_;
};

TEST_F(BoundsIntegrationTest, ARegistrationFloodIsRefusedPastTheBound) {
  int accepted = 0;
  int refused = 0;
  std::string refusal;
  int64_t rss_at_half = 0;
  for (int i = 0; i < 10000; ++i) {
    grpc::Status status = Register(FakeAgent(absl::StrCat("fake-", i)));
    if (status.ok()) {
      accepted++;
    } else {
      ASSERT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
          << status.error_message();
      refused++;
      refusal = status.error_message();
    }
    if (i == 4999) rss_at_half = CoordinatorRssKib();
  }
  const int64_t rss_at_end = CoordinatorRssKib();
  // local-0 holds one of the 100 places. The fakes never heartbeat: each
  // is lost after the lease (5 s at 100 agents) and then forgotten to make
  // room for a newer one, so how many get in depends on the flood's pace;
  // the table never holds more than the bound, and local-0 stays.
  EXPECT_GE(accepted, 99);
  EXPECT_GT(refused, 0);
  EXPECT_EQ(accepted + refused, 10000);
  EXPECT_THAT(refusal, HasSubstr("agents: 100 agents registered, the bound "
                                 "(config agents.max: 100)"));
  const std::vector<v1::AgentInfo> agents = ListAgents(*stub_);
  EXPECT_EQ(agents.size(), 100u);
  bool real_agent_alive = false;
  for (const v1::AgentInfo& a : agents) {
    real_agent_alive |= a.node_name() == "local-0" && a.state() == "alive";
  }
  EXPECT_TRUE(real_agent_alive);
  // The second 5,000 attempts did not grow the coordinator.
  RecordProperty("rss_kib_after_5000", static_cast<int>(rss_at_half));
  RecordProperty("rss_kib_after_10000", static_cast<int>(rss_at_end));
  EXPECT_LT(rss_at_end - rss_at_half, 16 * 1024)
      << rss_at_half << " KiB -> " << rss_at_end << " KiB";
  // `agents` still works, and the real agent still sweeps.
  CliResult cli = RunCli({"--coordinator", cluster_->coordinator(), "agents"});
  EXPECT_EQ(cli.exit_code, 0) << cli.err;
  EXPECT_THAT(cli.out, HasSubstr("local-0"));
  ExpectRealAgentSweeps();
}

// At the default bound of 4,096 agents, each with every field at its
// longest (about 1.2 KB), ListAgents is ~5 MB: more than gRPC's default
// 4 MiB, within what the CLI accepts.
TEST(BoundsAtDefaultsTest, AgentsAtTheDefaultBoundFitTheCli) {
  // Plaintext, as above: thousands of nodes without thousands of
  // certificates.
  client::LocalClusterOptions options;
  options.agents = 1;
  options.ranks = 1;
  options.backend = "gloo";
  options.insecure = true;
  auto started = StartCluster(options);
  ASSERT_TRUE(started.ok()) << started.status();
  std::unique_ptr<client::LocalCluster> cluster = *std::move(started);
  auto stub = Connect(cluster->coordinator());
  int refused = 0;
  for (int i = 0; i < 4200; ++i) {
    v1::AgentInfo info;
    const std::string tail = absl::StrCat("-", i);
    info.set_node_name(std::string(253 - tail.size(), 'n') + tail);
    info.set_address(std::string(255, 'a') + ":65535");
    info.set_backend("gloo");
    info.set_backend_version(std::string(128, 'v'));
    info.set_instance_id(std::string(128, 'i'));
    info.set_boot_id(std::string(128, 'b'));
    v1::WorkerInfo* w = info.add_workers();
    w->set_local_index(0);
    w->set_incarnation(std::string(128, 'w'));
    w->set_gpu(-1);
    grpc::ClientContext ctx;
    v1::RegisterRequest req;
    *req.mutable_agent() = info;
    v1::RegisterResponse resp;
    grpc::Status status = stub->Register(&ctx, req, &resp);
    if (!status.ok()) {
      ASSERT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
          << status.error_message();
      refused++;
    }
  }
  EXPECT_EQ(refused, 4200 - 4095);  // local-0 is the 4,096th
  grpc::ClientContext ctx;
  v1::ListAgentsResponse agents;
  ASSERT_TRUE(stub->ListAgents(&ctx, v1::ListAgentsRequest(), &agents).ok());
  EXPECT_EQ(agents.agents_size(), 4096);
  RecordProperty("list_agents_bytes", static_cast<int>(agents.ByteSizeLong()));
  EXPECT_GT(agents.ByteSizeLong(), 4u << 20);
  CliResult cli = RunCli({"--coordinator", cluster->coordinator(), "agents"});
  EXPECT_EQ(cli.exit_code, 0) << cli.err;
  EXPECT_THAT(cli.out, HasSubstr("local-0"));
}

TEST_F(BoundsIntegrationTest, AThreeHundredThousandOpSpecIsRefusedUnstored) {
  const int before = StoredSweeps();
  v1::SweepRequest req;
  *req.mutable_spec() = QuickSpec({"all_reduce"}, 1024);
  for (int i = 0; i < 300000; ++i) req.mutable_spec()->add_ops("all_reduce");
  grpc::Status status = Sweep(req);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(),
              HasSubstr("ops: 300001 entries; allowed: 1 to 32"));
  EXPECT_EQ(StoredSweeps(), before);
  CliResult results =
      RunCli({"--coordinator", cluster_->coordinator(), "results"});
  EXPECT_EQ(results.exit_code, 0) << results.err;
}

TEST_F(BoundsIntegrationTest, AThreeMegabyteOpNameIsQuotedByAShortPrefix) {
  v1::SweepRequest req;
  *req.mutable_spec() = QuickSpec({std::string(3 << 20, 'x')}, 1024);
  grpc::Status status = Sweep(req);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_LT(status.error_message().size(), 200u);
  EXPECT_THAT(status.error_message(),
              HasSubstr("ops: 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...' is "
                        "3145728 bytes long; allowed: 1 to 32 bytes"));
  EXPECT_EQ(StoredSweeps(), 0);
}

TEST_F(BoundsIntegrationTest, ARequestLargerThanTheServerTakesIsRefused) {
  v1::SweepRequest req;
  *req.mutable_spec() = QuickSpec({std::string(9 << 20, 'x')}, 1024);
  grpc::Status status = Sweep(req);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
      << status.error_message();
  ExpectRealAgentSweeps();
}

TEST_F(BoundsIntegrationTest, ANewlineInANodeNameIsRefusedAndForgesNoLine) {
  const std::string forged =
      "evil\nI 12:00:00.000 coordinator: agent node-x at 10.0.0.9:7071 "
      "joined (epoch 99)";
  grpc::Status status = Register(FakeAgent(forged));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("node_name: 'evil\\nI 12"));
  v1::SweepRequest req;
  *req.mutable_spec() = QuickSpec({"all_reduce"}, 1024);
  req.add_nodes(forged);
  status = Sweep(req);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("nodes[0]: 'evil\\nI 12"));
  const std::vector<v1::AgentInfo> agents = ListAgents(*stub_);
  ASSERT_EQ(agents.size(), 1u);
  EXPECT_EQ(agents[0].node_name(), "local-0");
  EXPECT_THAT(CoordinatorLog(), Not(HasSubstr("\nI 12:00:00.000")));
  EXPECT_THAT(CoordinatorLog(), Not(HasSubstr("node-x")));
}

TEST_F(BoundsIntegrationTest, HeartbeatsWithFakeWorkersAreRefused) {
  std::vector<v1::AgentInfo> agents = ListAgents(*stub_);
  ASSERT_EQ(agents.size(), 1u);
  v1::HeartbeatRequest beat;
  beat.set_agent_id(agents[0].agent_id());
  for (int i = 0; i < 20001; ++i) {
    v1::WorkerInfo* w = beat.add_workers();
    w->set_local_index(i);
    w->set_gpu(i % 8);
    w->set_gpu_busy(true);
    w->set_gpu_other_processes(1);
  }
  grpc::ClientContext ctx;
  v1::HeartbeatResponse resp;
  grpc::Status status = stub_->Heartbeat(&ctx, beat, &resp);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(),
              HasSubstr("node local-0: workers: 20001 listed; allowed: up to "
                        "2 (the workers this agent registered with)"));
  agents = ListAgents(*stub_);
  ASSERT_EQ(agents.size(), 1u);
  EXPECT_EQ(agents[0].workers_size(), 2);
  for (const v1::WorkerInfo& w : agents[0].workers()) {
    EXPECT_FALSE(w.gpu_busy());
  }
  ExpectRealAgentSweeps();
}

}  // namespace
}  // namespace fabricpulse::testing
