#include "client/local/local_backend.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::client {
namespace {

using ::testing::HasSubstr;

class ResolveLocalBackendTest : public ::testing::Test {
 protected:
  absl::StatusOr<std::string> Resolve(std::string backend, int agents,
                                      int ranks, int gpus) {
    LocalBackendRequest request;
    request.backend = std::move(backend);
    request.agents = agents;
    request.ranks = ranks;
    request.visible_gpus = gpus;
    request.worker_backends =
        [this]() -> absl::StatusOr<std::vector<std::string>> {
      ++worker_asked_;
      return worker_backends_;
    };
    return ResolveLocalBackend(request);
  }

  absl::StatusOr<std::vector<std::string>> worker_backends_ =
      std::vector<std::string>{"gloo", "nccl"};
  int worker_asked_ = 0;
};

TEST_F(ResolveLocalBackendTest, GlooIsGloo) {
  EXPECT_EQ(*Resolve("gloo", 2, 2, 8), "gloo");
  EXPECT_EQ(worker_asked_, 0);
}

TEST_F(ResolveLocalBackendTest, AutoWithoutGpusIsGloo) {
  EXPECT_EQ(*Resolve("auto", 1, 2, 0), "gloo");
  EXPECT_EQ(worker_asked_, 0);
}

TEST_F(ResolveLocalBackendTest, AutoWithGpusIsNccl) {
  EXPECT_EQ(*Resolve("auto", 2, 2, 4), "nccl");
  EXPECT_EQ(worker_asked_, 1);
}

TEST_F(ResolveLocalBackendTest, AutoWithAWorkerWithoutNcclIsGloo) {
  worker_backends_ = std::vector<std::string>{"gloo"};
  EXPECT_EQ(*Resolve("auto", 1, 2, 4), "gloo");
}

TEST_F(ResolveLocalBackendTest, TooFewGpus) {
  auto r = Resolve("nccl", 2, 2, 3);
  ASSERT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "--backend nccl: 2 agents x 2 ranks need 4 GPUs; 3 visible: lower "
            "--agents or --ranks to fit, or use --backend gloo");
  // auto picks NCCL on a machine with a GPU, and says so the same way.
  r = Resolve("auto", 1, 2, 1);
  ASSERT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "--backend nccl: 1 agents x 2 ranks need 2 GPUs; 1 visible: lower "
            "--agents or --ranks to fit, or use --backend gloo");
  r = Resolve("nccl", 1, 1, 0);
  EXPECT_EQ(r.status().message(),
            "--backend nccl: 1 agents x 1 ranks need 1 GPUs; 0 visible: use "
            "--backend gloo");
}

TEST_F(ResolveLocalBackendTest, TooFewGpusNamesAWorkerWithoutNccl) {
  worker_backends_ = std::vector<std::string>{"gloo"};
  auto r = Resolve("nccl", 1, 2, 0);
  ASSERT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "--backend nccl: 1 agents x 2 ranks need 2 GPUs; 0 visible "
            "(built without NCCL): use --backend gloo");
}

TEST_F(ResolveLocalBackendTest, NcclNotBuiltIntoTheWorker) {
  worker_backends_ = std::vector<std::string>{"gloo"};
  auto r = Resolve("nccl", 1, 2, 2);
  ASSERT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("built without NCCL"));
}

TEST_F(ResolveLocalBackendTest, AWorkerThatDoesNotAnswer) {
  worker_backends_ = absl::FailedPreconditionError(
      "fabricpulse-worker --backends: exited with code 127");
  auto r = Resolve("nccl", 1, 2, 2);
  ASSERT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(r.status().message(), HasSubstr("exited with code 127"));
  r = Resolve("auto", 1, 2, 2);
  ASSERT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(r.status().message(), HasSubstr("--backend auto"));
}

}  // namespace
}  // namespace fabricpulse::client
