#include "daemon/common/port_file.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

#include "gtest/gtest.h"

namespace fabricpulse::common {
namespace {

std::string TempPath() {
  char tmpl[] = "/tmp/fp-port-file-XXXXXX";
  EXPECT_NE(mkdtemp(tmpl), nullptr);
  return std::string(tmpl) + "/ports";
}

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(PortFileTest, TwoLinesWithoutAHealthListener) {
  const std::string path = TempPath();
  ASSERT_TRUE(WritePortFile(path, {"127.0.0.1:1", "127.0.0.1:2", ""}).ok());
  EXPECT_EQ(Read(path), "grpc=127.0.0.1:1\nmetrics=127.0.0.1:2\n");
  auto read = WaitForPortFile(path, absl::Seconds(1));
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->grpc, "127.0.0.1:1");
  EXPECT_EQ(read->metrics, "127.0.0.1:2");
  EXPECT_EQ(read->health, "");
}

TEST(PortFileTest, AThirdLineForTheHealthListener) {
  const std::string path = TempPath();
  ASSERT_TRUE(
      WritePortFile(path, {"127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"}).ok());
  EXPECT_EQ(Read(path),
            "grpc=127.0.0.1:1\nmetrics=127.0.0.1:2\nhealth=127.0.0.1:3\n");
  auto read = WaitForPortFile(path, absl::Seconds(1));
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->health, "127.0.0.1:3");
}

TEST(PortFileTest, UnknownLinesAreIgnoredAndHalfAFileIsNotRead) {
  const std::string path = TempPath();
  std::ofstream(path) << "future=1\ngrpc=h:1\nmetrics=h:2\n";
  auto read = WaitForPortFile(path, absl::Seconds(1));
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->grpc, "h:1");
  std::ofstream(path) << "grpc=h:1\n";
  EXPECT_EQ(WaitForPortFile(path, absl::Milliseconds(50)).status().code(),
            absl::StatusCode::kDeadlineExceeded);
}

}  // namespace
}  // namespace fabricpulse::common
