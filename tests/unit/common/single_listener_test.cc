// One process per port and per state directory: a second gRPC server or
// /metrics endpoint on a port in use is refused ("cannot listen"; gRPC's
// default SO_REUSEPORT is off), and a second lock on a state directory is
// refused, naming the holder's pid.
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "daemon/common/grpc_server.h"
#include "daemon/common/metrics_server.h"
#include "daemon/common/state_dir_lock.h"
#include "fabricpulse/v1/coordinator.grpc.pb.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"

namespace fabricpulse::common {
namespace {

using ::testing::HasSubstr;

TEST(SingleListenerTest, ASecondGrpcServerOnAPortInUseIsRefused) {
  v1::CoordinatorService::Service service;
  auto first = StartGrpcServer("127.0.0.1:0", &service,
                               grpc::InsecureServerCredentials(), 1 << 20,
                               kAgentCallLimits);
  ASSERT_TRUE(first.ok()) << first.status();
  const std::string address = absl::StrCat("127.0.0.1:", first->port);
  v1::CoordinatorService::Service other;
  auto second =
      StartGrpcServer(address, &other, grpc::InsecureServerCredentials(),
                      1 << 20, kAgentCallLimits);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(second.status().message(),
            absl::StrCat("--listen: cannot listen on ", address));
  // Silent case: once the first is gone, the port is free again at once
  // (SO_REUSEADDR stays on).
  first->server->Shutdown();
  first->server.reset();
  auto again =
      StartGrpcServer(address, &other, grpc::InsecureServerCredentials(),
                      1 << 20, kAgentCallLimits);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->port, first->port);
}

TEST(SingleListenerTest, ASecondMetricsEndpointOnAPortInUseIsRefused) {
  auto first = MetricsServer::Start("127.0.0.1:0", "test");
  ASSERT_TRUE(first.ok()) << first.status();
  auto second = MetricsServer::Start((*first)->address(), "test");
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(second.status().message()),
              HasSubstr("cannot listen on " + (*first)->address()));
}

class StateDirLockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = ::testing::TempDir() + "state_dir_lock_test.XXXXXX";
    ASSERT_NE(mkdtemp(templ.data()), nullptr);
    dir_ = templ;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(StateDirLockTest, ASecondHolderIsRefusedNamingTheDirectoryAndPid) {
  auto first = StateDirLock::Acquire(dir_, "fabricpulse-coordinator");
  ASSERT_TRUE(first.ok()) << first.status();
  // flock locks belong to the open file: a second open of the same file is
  // refused even in this process, as another process would be.
  auto second = StateDirLock::Acquire(dir_, "fabricpulse-coordinator");
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(second.status().message()),
              HasSubstr(absl::StrCat("--state-dir: '", dir_,
                                     "' is in use by another "
                                     "fabricpulse-coordinator (pid ",
                                     getpid(), ")")));
  // Released with its holder: the next one gets it.
  first->reset();
  auto third = StateDirLock::Acquire(dir_, "fabricpulse-coordinator");
  EXPECT_TRUE(third.ok()) << third.status();
}

// Issue 31, item 8: deleting (or replacing) the lock file under a running
// holder does not let a second holder in: the directory is locked too.
TEST_F(StateDirLockTest, ARemovedLockFileDoesNotLetASecondHolderIn) {
  auto first = StateDirLock::Acquire(dir_, "fabricpulse-coordinator");
  ASSERT_TRUE(first.ok()) << first.status();
  const std::string file = dir_ + "/" + StateDirLock::kFileName;
  ASSERT_EQ(unlink(file.c_str()), 0);
  auto second = StateDirLock::Acquire(dir_, "fabricpulse-coordinator");
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(second.status().message()),
              HasSubstr("is in use by another fabricpulse-coordinator (its "
                        "lock file was removed or replaced)"));
  // Released with its holder: the next one gets it, file and directory.
  first->reset();
  auto third = StateDirLock::Acquire(dir_, "fabricpulse-coordinator");
  EXPECT_TRUE(third.ok()) << third.status();
}

TEST_F(StateDirLockTest, AMissingDirectoryIsNamed) {
  auto lock = StateDirLock::Acquire(dir_ + "/none", "fabricpulse-coordinator");
  ASSERT_FALSE(lock.ok());
  EXPECT_EQ(lock.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(lock.status().message()),
              HasSubstr("--state-dir: cannot open the lock file '" + dir_ +
                        "/none/lock'"));
}

}  // namespace
}  // namespace fabricpulse::common
