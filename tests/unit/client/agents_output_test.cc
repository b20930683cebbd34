// `fabricpulse agents` in its three formats.
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "client/commands/agents_command.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::client {
namespace {
namespace FP_UNITY_ID {

using ::testing::HasSubstr;

v1::ListAgentsResponse Agents() {
  v1::ListAgentsResponse resp;
  resp.set_membership_epoch(7);
  v1::AgentInfo* a = resp.add_agents();
  a->set_node_name("node-a");
  a->set_state("alive");
  a->set_address("10.0.0.1:7071");
  a->set_backend("nccl");
  a->set_backend_version("nccl 2.28.9");
  a->set_seconds_since_heartbeat(0.4);
  for (int gpu = 0; gpu < 2; ++gpu) {
    v1::WorkerInfo* w = a->add_workers();
    w->set_local_index(gpu);
    w->set_gpu(gpu);
    w->set_ready(true);
    w->set_restarts(gpu);
    w->set_gpu_busy(gpu == 1);
    w->set_gpu_model("NVIDIA H200");
    w->set_pci_bus_id(gpu == 0 ? "00000000:18:00.0" : "00000000:2A:00.0");
    w->add_nvlink_peers(1 - gpu);
  }
  v1::NicInfo* ib = a->add_nics();
  ib->set_name("ib0");
  ib->set_kind("infiniband");
  ib->set_state("up");
  ib->set_speed_bits_per_second(400'000'000'000);
  v1::NicInfo* eth = a->add_nics();
  eth->set_name("eth0");
  eth->set_kind("ethernet");
  eth->set_state("down");
  return resp;
}

TEST(AgentsOutputTest, ALongNodeNameShiftsNoColumn) {
  // An EKS-style name of 44 characters: every row's STATE starts where the
  // header's does.
  v1::ListAgentsResponse resp = Agents();
  *resp.add_agents() = resp.agents(0);
  resp.mutable_agents(1)->set_node_name(
      "ip-10-0-12-34.us-west-2.compute.internal-gpu");
  const std::string text = FormatAgents(resp, OutputFormat::kTable);
  const std::vector<std::string> lines = absl::StrSplit(text, '\n');
  const size_t state = lines[0].find("STATE");
  ASSERT_NE(state, std::string::npos);
  int rows = 0;
  for (const std::string& line : lines) {
    if (line.rfind("node-a", 0) == 0 || line.rfind("ip-10", 0) == 0) {
      EXPECT_EQ(line.find("alive"), state) << line;
      EXPECT_EQ(line.find("10.0.0.1:7071"), lines[0].find("ADDRESS")) << line;
      ++rows;
    }
  }
  EXPECT_EQ(rows, 2);
}

TEST(AgentsOutputTest, TableHasOneRowPerAgentAndTheEpoch) {
  const std::string text = FormatAgents(Agents(), OutputFormat::kTable);
  EXPECT_THAT(text, HasSubstr("NODE "));
  EXPECT_THAT(text, HasSubstr("node-a"));
  // Heartbeat (padded to its header's width), busy GPU 1.
  EXPECT_THAT(text, HasSubstr("  0.4s       1\n"));
  EXPECT_THAT(text, HasSubstr("# 1 agent(s), membership epoch 7\n"));
  // Under the agent's row: each GPU and the NICs.
  EXPECT_THAT(text, HasSubstr("  0.4s       1\n"
                              "  gpu 0: NVIDIA H200, bus 00000000:18:00.0, "
                              "nvlink 1\n"
                              "  gpu 1: NVIDIA H200, bus 00000000:2A:00.0, "
                              "nvlink 0\n"
                              "  nics: ib0 infiniband up 400 Gb/s, eth0 "
                              "ethernet down\n"));
}

TEST(AgentsOutputTest, JsonIsTheResponseWithProtoFieldNames) {
  const std::string text = FormatAgents(Agents(), OutputFormat::kJson);
  EXPECT_THAT(text, HasSubstr("{\"agents\":[{\"node_name\":\"node-a\""));
  EXPECT_THAT(text, HasSubstr("\"backend_version\":\"nccl 2.28.9\""));
  EXPECT_THAT(text, HasSubstr("\"gpu_busy\":true"));
  EXPECT_THAT(text, HasSubstr("\"membership_epoch\":\"7\""));
  EXPECT_THAT(text, HasSubstr("\"gpu_model\":\"NVIDIA H200\""));
  EXPECT_THAT(text, HasSubstr("\"nvlink_peers\":[1]"));
  EXPECT_THAT(text, HasSubstr("{\"name\":\"eth0\",\"kind\":\"ethernet\","
                              "\"state\":\"down\"}"));
}

TEST(AgentsOutputTest, CsvHasAHeaderAndOneLinePerAgent) {
  EXPECT_EQ(FormatAgents(Agents(), OutputFormat::kCsv),
            "node,state,address,backend,backend_version,ranks,ready,restarts,"
            "seconds_since_heartbeat,busy_gpus,gpu_models,nvlink_peers,nics,"
            "links_degraded\n"
            "node-a,alive,10.0.0.1:7071,nccl,nccl 2.28.9,2,2,1,0.400,1,"
            "NVIDIA H200,0:1;1:0,ib0=up;eth0=down,0\n");
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::client
