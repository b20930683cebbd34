#include "daemon/agent/backend_selection.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_nvml.h"

namespace fabricpulse::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class SelectBackendTest : public ::testing::Test {
 protected:
  // A machine with `gpus` GPUs (NVML) and a worker with `backends`.
  void Machine(int gpus, std::vector<std::string> backends = {"gloo", "nccl"}) {
    nvml_.SetDeviceCount(gpus);
    env_.nvml = &nvml_;
    env_.worker_backends =
        [this, backends]() -> absl::StatusOr<std::vector<std::string>> {
      ++worker_asked_;
      return backends;
    };
  }

  absl::StatusOr<BackendSelection> Select(std::string backend,
                                          std::string gpus = "",
                                          int ranks = 0) {
    AgentConfig config;
    config.backend = std::move(backend);
    config.gpus = std::move(gpus);
    if (ranks > 0) config.ranks = ranks;  // 0: not given
    return SelectBackend(config, env_);
  }

  fakes::FakeNvml nvml_;
  BackendEnvironment env_;
  int worker_asked_ = 0;
};

TEST_F(SelectBackendTest, AutoWithoutNvmlIsGloo) {
  Machine(0);
  env_.nvml = nullptr;  // no driver
  auto s = Select("auto", "", 3);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->backend, "gloo");
  EXPECT_THAT(s->gpus, ElementsAre(-1, -1, -1));
  EXPECT_EQ(worker_asked_, 0);
}

TEST_F(SelectBackendTest, AutoWithNoGpuIsOneGlooRank) {
  Machine(0);
  auto s = Select("auto");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->backend, "gloo");
  EXPECT_THAT(s->gpus, ElementsAre(-1));
  EXPECT_EQ(worker_asked_, 0);
}

TEST_F(SelectBackendTest, AutoWithGpusIsNcclOnEveryGpu) {
  Machine(2);
  auto s = Select("auto");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->backend, "nccl");
  EXPECT_THAT(s->gpus, ElementsAre(0, 1));
  EXPECT_EQ(worker_asked_, 1);
}

TEST_F(SelectBackendTest, AutoWithGpusButAWorkerWithoutNcclIsGloo) {
  Machine(2, {"gloo"});
  auto s = Select("auto");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->backend, "gloo");
  EXPECT_THAT(s->gpus, ElementsAre(-1));
}

TEST_F(SelectBackendTest, AutoSurfacesAWorkerThatDoesNotAnswer) {
  Machine(2);
  env_.worker_backends = []() -> absl::StatusOr<std::vector<std::string>> {
    return absl::FailedPreconditionError(
        "fabricpulse-worker --backends: exited with code 127: libnccl.so.2: "
        "cannot open shared object file");
  };
  auto s = Select("auto");
  ASSERT_EQ(s.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.status().message(), HasSubstr("--backend auto"));
  EXPECT_THAT(s.status().message(), HasSubstr("libnccl.so.2"));
}

TEST_F(SelectBackendTest, GlooAsksNeitherNvmlNorTheWorker) {
  Machine(2);
  nvml_.SetDeviceCount(absl::InternalError("NVML must not be asked"));
  auto s = Select("gloo", "", 2);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->backend, "gloo");
  EXPECT_THAT(s->gpus, ElementsAre(-1, -1));
  EXPECT_EQ(worker_asked_, 0);
}

TEST_F(SelectBackendTest, NcclWithNoGpuIsOneLineFailedPrecondition) {
  for (bool have_nvml : {false, true}) {
    Machine(0);
    if (!have_nvml) env_.nvml = nullptr;
    auto s = Select("nccl");
    ASSERT_EQ(s.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_EQ(s.status().message(),
              "--backend: nccl needs a GPU, and none is visible (no device or "
              "no driver); use --backend gloo or auto");
    EXPECT_EQ(worker_asked_, 0);
  }
}

TEST_F(SelectBackendTest, NcclNotBuiltIntoTheWorker) {
  Machine(2, {"gloo"});
  auto s = Select("nccl");
  ASSERT_EQ(s.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(
      s.status().message(),
      HasSubstr("--backend: nccl is not built into fabricpulse-worker"));
}

TEST_F(SelectBackendTest, NcclOnTheGivenGpus) {
  Machine(4);
  auto s = Select("nccl", "3,1");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->backend, "nccl");
  EXPECT_THAT(s->gpus, ElementsAre(3, 1));
}

TEST_F(SelectBackendTest, NcclGpuOutOfRange) {
  Machine(2);
  auto s = Select("nccl", "0,2");
  ASSERT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.status().message(),
            "--gpus: GPU 2 is not visible; allowed: 0 to 1");
}

TEST_F(SelectBackendTest, NcclOnTheFirstRanksGpus) {
  Machine(4);
  auto s = Select("nccl", "", 2);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_THAT(s->gpus, ElementsAre(0, 1));
}

TEST_F(SelectBackendTest, NcclMoreRanksThanGpus) {
  Machine(2);
  auto s = Select("nccl", "", 3);
  ASSERT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.status().message(),
            "--ranks: 3 NCCL ranks need 3 GPUs; 2 visible");
}

TEST_F(SelectBackendTest, CudaVisibleDevicesNarrowsTheGpus) {
  Machine(4);
  env_.cuda_visible_devices = "2,3";
  auto all = Select("nccl");
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_THAT(all->gpus, ElementsAre(0, 1));  // CUDA renumbers them
  auto s = Select("nccl", "2");
  ASSERT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.status().message(),
            "--gpus: GPU 2 is not visible; allowed: 0 to 1");
  env_.cuda_visible_devices = "";
  EXPECT_EQ(Select("auto")->backend, "gloo");
  EXPECT_EQ(Select("nccl").status().code(),
            absl::StatusCode::kFailedPrecondition);
}

// The test seam: Gloo ranks accounted to GPUs for the busy-GPU check.
TEST_F(SelectBackendTest, GlooProbeGpusAccountEachGlooRankToItsGpu) {
  Machine(2);
  AgentConfig config;
  config.backend = "gloo";
  config.gloo_probe_gpus = "1,0";
  auto s = SelectBackend(config, env_);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->backend, "gloo");
  EXPECT_THAT(s->gpus, ElementsAre(1, 0));
  EXPECT_EQ(worker_asked_, 0);
}

}  // namespace
}  // namespace fabricpulse::agent
