// A status's reason crosses gRPC as status details (a google.rpc.Status
// on the wire) and comes back typed; a status without one, or details that
// are not ours, come back with none.
#include "daemon/common/grpc_status.h"

#include "daemon/core/status_reason.h"
#include "fabricpulse/v1/status.pb.h"
#include "gtest/gtest.h"

namespace fabricpulse::common {
namespace {

using core::StatusReason;

TEST(GrpcStatusTest, AReasonCrossesAsStatusDetails) {
  const absl::Status lease =
      core::WithReason(absl::UnavailableError("sweep lease expired"),
                       StatusReason::kSweepLeaseEnded);
  const grpc::Status wire = ToGrpcStatus(lease);
  EXPECT_EQ(wire.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(wire.error_message(), "sweep lease expired");
  v1::RpcStatus details;
  ASSERT_TRUE(details.ParseFromString(wire.error_details()));
  EXPECT_EQ(details.code(), grpc::StatusCode::UNAVAILABLE);
  ASSERT_EQ(details.details_size(), 1);
  EXPECT_EQ(details.details(0).type_url(), core::kStatusReasonUrl);
  const absl::Status back = FromGrpcStatus(wire);
  EXPECT_EQ(back.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(back.message(), "sweep lease expired");
  EXPECT_EQ(core::ReasonOf(back), StatusReason::kSweepLeaseEnded);
}

TEST(GrpcStatusTest, WithoutAReasonThereAreNoDetails) {
  const grpc::Status wire =
      ToGrpcStatus(absl::ResourceExhaustedError("is busy with sweep x"));
  EXPECT_TRUE(wire.error_details().empty());
  EXPECT_EQ(core::ReasonOf(FromGrpcStatus(wire)), StatusReason::kNone);
  // Details that are not a status of ours: the code and message stay.
  const grpc::Status foreign(grpc::StatusCode::UNAVAILABLE, "down",
                             "\xff\xfe not a proto");
  const absl::Status back = FromGrpcStatus(foreign);
  EXPECT_EQ(back.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(core::ReasonOf(back), StatusReason::kNone);
  EXPECT_TRUE(ToGrpcStatus(absl::OkStatus()).ok());
}

}  // namespace
}  // namespace fabricpulse::common
