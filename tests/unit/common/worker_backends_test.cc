#include "daemon/common/worker_backends.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::common {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Stand-ins for fabricpulse-worker: small shell scripts in a temporary
// folder.
class QueryWorkerBackendsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/fabricpulse-worker-backends-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
  }
  void TearDown() override {
    for (const std::string& path : files_) unlink(path.c_str());
    rmdir(dir_.c_str());
  }

  std::string Script(const std::string& name, const std::string& body) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    chmod(path.c_str(), 0755);
    files_.push_back(path);
    return path;
  }

  std::string dir_;
  std::vector<std::string> files_;
};

TEST_F(QueryWorkerBackendsTest, ReadsTheNames) {
  const std::string worker =
      Script("worker",
             "[ \"$1\" = --backends ] && echo 'gloo nccl' && exit 0\nexit 9");
  auto backends = QueryWorkerBackends(worker);
  ASSERT_TRUE(backends.ok()) << backends.status();
  EXPECT_THAT(*backends, ElementsAre("gloo", "nccl"));
}

TEST_F(QueryWorkerBackendsTest, AFailingWorkerIsNamedWithWhatItSaid) {
  const std::string worker =
      Script("worker",
             "echo 'error while loading shared libraries: libnccl.so.2' >&2\n"
             "exit 127");
  auto backends = QueryWorkerBackends(worker);
  ASSERT_EQ(backends.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(backends.status().message(), HasSubstr("exited with code 127"));
  EXPECT_THAT(backends.status().message(), HasSubstr("libnccl.so.2"));
  EXPECT_THAT(backends.status().message(), HasSubstr("--backends"));
}

TEST_F(QueryWorkerBackendsTest, NoAnswerIsAnError) {
  auto backends = QueryWorkerBackends(Script("worker", "exit 0"));
  ASSERT_EQ(backends.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(backends.status().message(), HasSubstr("printed no backend"));
}

TEST_F(QueryWorkerBackendsTest, AMissingWorkerIsNotFound) {
  auto backends = QueryWorkerBackends(dir_ + "/no-such-worker");
  EXPECT_EQ(backends.status().code(), absl::StatusCode::kNotFound);
}

TEST_F(QueryWorkerBackendsTest, AHungWorkerIsKilledAtTheDeadline) {
  // Never exits on its own.
  const std::string worker = Script("worker", "exec tail -f /dev/null");
  auto backends = QueryWorkerBackends(worker, absl::Milliseconds(200));
  EXPECT_EQ(backends.status().code(), absl::StatusCode::kDeadlineExceeded);
}

}  // namespace
}  // namespace fabricpulse::common
