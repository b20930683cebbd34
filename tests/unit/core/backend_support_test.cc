#include "daemon/core/backend_support.h"

#include <string>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

using ::testing::HasSubstr;
using ::testing::StartsWith;

ResolvedSpec WithDType(DType dtype) {
  ResolvedSpec spec;
  spec.ops = {Op::kAllReduce};
  spec.dtype = dtype;
  return spec;
}

TEST(CheckBackendSupportTest, GlooRunsCpuDTypes) {
  for (DType dtype : {DType::kInt8, DType::kUint8, DType::kInt32,
                      DType::kUint32, DType::kInt64, DType::kUint64,
                      DType::kHalf, DType::kFloat, DType::kDouble}) {
    EXPECT_TRUE(CheckBackendSupport("gloo", WithDType(dtype), SweepSpec{}).ok())
        << DTypeName(dtype);
  }
}

TEST(CheckBackendSupportTest, GlooRefusesBfloat16AndFp8) {
  for (DType dtype : {DType::kBfloat16, DType::kFp8E4M3, DType::kFp8E5M2}) {
    absl::Status status =
        CheckBackendSupport("gloo", WithDType(dtype), SweepSpec{});
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    const std::string message(status.message());
    EXPECT_THAT(message, StartsWith("dtype: "));
    EXPECT_THAT(message, HasSubstr(std::string("'") +
                                   std::string(DTypeName(dtype)) + "'"));
    EXPECT_THAT(message, HasSubstr("gloo"));
    EXPECT_THAT(message, HasSubstr("allowed: int8, uint8, int32, uint32, "
                                   "int64, uint64, half, float, double"));
  }
}

TEST(CheckBackendSupportTest, GlooRefusesGraphMode) {
  SweepSpec raw;
  raw.graph = true;
  absl::Status status =
      CheckBackendSupport("gloo", WithDType(DType::kFloat), raw);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), StartsWith("graph: "));
  EXPECT_THAT(std::string(status.message()), HasSubstr("nccl"));
}

TEST(CheckBackendSupportTest, NcclRunsEverything) {
  SweepSpec raw;
  raw.graph = true;
  for (DType dtype : {DType::kInt8, DType::kHalf, DType::kFloat,
                      DType::kBfloat16, DType::kFp8E4M3, DType::kFp8E5M2}) {
    EXPECT_TRUE(CheckBackendSupport("nccl", WithDType(dtype), raw).ok())
        << DTypeName(dtype);
  }
}

TEST(CheckBackendSupportTest, UnknownBackend) {
  for (const char* backend : {"", "mpi", "ucc"}) {
    absl::Status status =
        CheckBackendSupport(backend, WithDType(DType::kFloat), SweepSpec{});
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << backend;
    EXPECT_THAT(std::string(status.message()), StartsWith("backend: "));
    EXPECT_THAT(std::string(status.message()),
                HasSubstr(std::string("'") + backend + "'"));
    EXPECT_THAT(std::string(status.message()), HasSubstr("gloo, nccl"));
  }
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
