// The daemons' sysconf (daemon/common/grpc_cpu_cap.cc), built here with a
// cap of 1 so that it shows on any machine: gRPC's own CPU count, read by
// libgpr through sysconf, is capped; FABRICPULSE_GRPC_CPUS replaces the
// cap; every other sysconf is the C library's.
#include "daemon/common/grpc_cpu_cap.h"

#include <sys/sysinfo.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "grpc/support/cpu.h"
#include "gtest/gtest.h"

namespace fabricpulse::common {
namespace {

class GrpcCpuCapTest : public ::testing::Test {
 protected:
  void SetUp() override { unsetenv(kGrpcCpusEnv); }
  void TearDown() override { unsetenv(kGrpcCpusEnv); }
};

TEST_F(GrpcCpuCapTest, GrpcSeesTheCapOtherQueriesPassThrough) {
  EXPECT_EQ(sysconf(_SC_NPROCESSORS_CONF), 1);
  EXPECT_EQ(sysconf(_SC_NPROCESSORS_ONLN), 1);
  // Resolved from inside libgpr, a shared library: the interposition holds
  // there too.
  EXPECT_EQ(gpr_cpu_num_cores(), 1u);
  EXPECT_EQ(sysconf(_SC_PAGESIZE), getpagesize());
  EXPECT_GT(sysconf(_SC_CLK_TCK), 0);
  EXPECT_EQ(GrpcCpusEnvError(), "");
}

TEST_F(GrpcCpuCapTest, TheEnvironmentReplacesTheBuiltInCap) {
  setenv(kGrpcCpusEnv, "1024", 1);
  EXPECT_EQ(GrpcCpuCap(), 1024);
  // The machine's own count (not read through sysconf) when under 1024.
  EXPECT_EQ(sysconf(_SC_NPROCESSORS_CONF),
            std::min<long>(get_nprocs_conf(), 1024));
  EXPECT_EQ(GrpcCpusEnvError(), "");
  setenv(kGrpcCpusEnv, "1", 1);
  EXPECT_EQ(sysconf(_SC_NPROCESSORS_ONLN), 1);
}

TEST_F(GrpcCpuCapTest, AnInvalidValueIsNamedWithTheRangeAndIgnored) {
  for (const char* bad : {"0", "-3", "1025", "four", "4x", "99999999999999"}) {
    setenv(kGrpcCpusEnv, bad, 1);
    EXPECT_EQ(GrpcCpusEnvError(),
              std::string("FABRICPULSE_GRPC_CPUS: '") + bad +
                  "' is not a CPU count; allowed: 1 to 1024")
        << bad;
    EXPECT_EQ(GrpcCpuCap(), 1) << bad;
  }
  setenv(kGrpcCpusEnv, "", 1);  // set but empty: as if unset
  EXPECT_EQ(GrpcCpusEnvError(), "");
  EXPECT_EQ(GrpcCpuCap(), 1);
}

}  // namespace
}  // namespace fabricpulse::common
