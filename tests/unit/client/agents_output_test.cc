// `fabricpulse agents` in its three formats.
#include <string>

#include "client/commands/agents_command.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::client {
namespace {

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
  }
  return resp;
}

TEST(AgentsOutputTest, TableHasOneRowPerAgentAndTheEpoch) {
  const std::string text = FormatAgents(Agents(), OutputFormat::kTable);
  EXPECT_THAT(text, HasSubstr("NODE "));
  EXPECT_THAT(text, HasSubstr("node-a"));
  EXPECT_THAT(text, HasSubstr("    0.4s  1\n"));  // heartbeat, busy GPU 1
  EXPECT_THAT(text, HasSubstr("# 1 agent(s), membership epoch 7\n"));
}

TEST(AgentsOutputTest, JsonIsTheResponseWithProtoFieldNames) {
  const std::string text = FormatAgents(Agents(), OutputFormat::kJson);
  EXPECT_THAT(text, HasSubstr("{\"agents\":[{\"node_name\":\"node-a\""));
  EXPECT_THAT(text, HasSubstr("\"backend_version\":\"nccl 2.28.9\""));
  EXPECT_THAT(text, HasSubstr("\"gpu_busy\":true"));
  EXPECT_THAT(text, HasSubstr("\"membership_epoch\":\"7\""));
}

TEST(AgentsOutputTest, CsvHasAHeaderAndOneLinePerAgent) {
  EXPECT_EQ(FormatAgents(Agents(), OutputFormat::kCsv),
            "node,state,address,backend,backend_version,ranks,ready,restarts,"
            "seconds_since_heartbeat,busy_gpus\n"
            "node-a,alive,10.0.0.1:7071,nccl,nccl 2.28.9,2,2,1,0.400,1\n");
}

}  // namespace
}  // namespace fabricpulse::client
