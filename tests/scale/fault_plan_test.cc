#include "tests/scale/fault_plan.h"

#include "gtest/gtest.h"

namespace fabricpulse::scale {
namespace {
namespace FP_UNITY_ID {

TEST(FaultPlanTest, NodeNamesArePaddedToFourDigits) {
  EXPECT_EQ(SimNodeName(0), "sim-0000");
  EXPECT_EQ(SimNodeName(42), "sim-0042");
  EXPECT_EQ(SimNodeName(12345), "sim-12345");
}

TEST(FaultPlanTest, AppliesEachFaultToItsNode) {
  auto plan = FaultPlan::Parse({"sim-0003:4", "sim-0005:1.5"}, {"sim-0007"},
                               {"sim-0009"});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->For("sim-0003").slow_factor, 4);
  EXPECT_EQ(plan->For("sim-0005").slow_factor, 1.5);
  EXPECT_TRUE(plan->For("sim-0007").dead);
  EXPECT_FALSE(plan->For("sim-0007").hang);
  EXPECT_TRUE(plan->For("sim-0009").hang);
  const NodeFault healthy = plan->For("sim-0000");
  EXPECT_EQ(healthy.slow_factor, 1);
  EXPECT_FALSE(healthy.dead);
  EXPECT_FALSE(healthy.hang);
}

TEST(FaultPlanTest, RefusesBadEntriesNamingTheFlag) {
  struct Case {
    std::vector<std::string> slow, dead, hang;
    std::string flag;
  };
  for (const Case& c : std::vector<Case>{
           {{"sim-0001"}, {}, {}, "--slow-node"},
           {{":2"}, {}, {}, "--slow-node"},
           {{"sim-0001:fast"}, {}, {}, "--slow-node"},
           {{"sim-0001:0.5"}, {}, {}, "--slow-node"},
           {{"sim-0001:2", "sim-0001:3"}, {}, {}, "--slow-node"},
           {{}, {""}, {}, "--dead-node"},
           {{}, {"sim-0001", "sim-0001"}, {}, "--dead-node"},
           {{}, {"sim-0001"}, {"sim-0001"}, "--hang-node"},
       }) {
    auto plan = FaultPlan::Parse(c.slow, c.dead, c.hang);
    ASSERT_FALSE(plan.ok()) << c.flag;
    EXPECT_EQ(plan.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(plan.status().message().rfind(c.flag, 0), 0u)
        << plan.status().message();
  }
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::scale
