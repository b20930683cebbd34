// Feeds every committed fuzz input (tests/fuzz/corpus/<target>/*: the seeds
// and every input that once broke a target) to its target, built here with
// the ordinary compiler: an input that breaks an invariant aborts, so this
// test fails without clang or a fuzzing run.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_targets.h"

namespace fabricpulse::fuzz {
namespace {

struct Target {
  const char* name;
  TargetFunction function;
};

const Target kTargets[] = {
    {"sweep_spec", FuzzSweepSpec},
    {"config", FuzzConfig},
    {"cron", FuzzCron},
    {"byte_size", FuzzByteSize},
    {"coordinator_requests", FuzzCoordinatorRequests},
    {"agent_requests", FuzzAgentRequests},
    {"worker_requests", FuzzWorkerRequests},
    {"identity", FuzzIdentity},
};

class FuzzReplayTest : public ::testing::TestWithParam<Target> {};

TEST_P(FuzzReplayTest, EveryCommittedInputPasses) {
  const std::filesystem::path dir =
      std::filesystem::path(FABRICPULSE_FUZZ_CORPUS) / GetParam().name;
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  ASSERT_FALSE(files.empty()) << "no corpus in " << dir;
  for (const std::filesystem::path& file : files) {
    SCOPED_TRACE(file.string());
    std::ifstream in(file, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)),
                            std::istreambuf_iterator<char>());
    EXPECT_EQ(GetParam().function(
                  reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
              0);
  }
}

// The empty input, which every target must take.
TEST_P(FuzzReplayTest, EmptyInputPasses) {
  EXPECT_EQ(GetParam().function(nullptr, 0), 0);
}

INSTANTIATE_TEST_SUITE_P(Targets, FuzzReplayTest, ::testing::ValuesIn(kTargets),
                         [](const auto& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace fabricpulse::fuzz
