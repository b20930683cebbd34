// The agent's sysconf (daemon/agent/grpc_cpu_cap.cc), built here with a cap
// of 1 so that it shows on any machine: gRPC's own CPU count, read by
// libgpr through sysconf, is capped; every other sysconf is the C
// library's.
#include <unistd.h>

#include "grpc/support/cpu.h"
#include "gtest/gtest.h"

namespace {

TEST(GrpcCpuCapTest, GrpcSeesTheCapOtherQueriesPassThrough) {
  EXPECT_EQ(sysconf(_SC_NPROCESSORS_CONF), 1);
  EXPECT_EQ(sysconf(_SC_NPROCESSORS_ONLN), 1);
  // Resolved from inside libgpr, a shared library: the interposition holds
  // there too.
  EXPECT_EQ(gpr_cpu_num_cores(), 1u);
  EXPECT_EQ(sysconf(_SC_PAGESIZE), getpagesize());
  EXPECT_GT(sysconf(_SC_CLK_TCK), 0);
}

}  // namespace
