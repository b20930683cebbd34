// A failed coordinator call's exit code (ReportCallError), code by code, as
// the exit code table says (docs/exit-codes.md).
#include "client/commands/coordinator_connection.h"
#include "client/commands/exit_codes.h"
#include "gtest/gtest.h"

namespace fabricpulse::client {
namespace {
namespace FP_UNITY_ID {

int ExitFor(grpc::StatusCode code, bool named = false) {
  return ReportCallError("results", grpc::Status(code, "why"), named);
}

TEST(CallErrorExitTest, EachStatusGetsTheTablesCode) {
  EXPECT_EQ(ExitFor(grpc::StatusCode::INVALID_ARGUMENT), kExitBadInput);
  EXPECT_EQ(ExitFor(grpc::StatusCode::NOT_FOUND, /*named=*/true),
            kExitBadInput);
  EXPECT_EQ(ExitFor(grpc::StatusCode::NOT_FOUND), kExitFailed);
  EXPECT_EQ(ExitFor(grpc::StatusCode::PERMISSION_DENIED), kExitUnreachable);
  EXPECT_EQ(ExitFor(grpc::StatusCode::UNAUTHENTICATED), kExitUnreachable);
  EXPECT_EQ(ExitFor(grpc::StatusCode::UNAVAILABLE), kExitUnreachable);
  EXPECT_EQ(ExitFor(grpc::StatusCode::UNIMPLEMENTED), kExitUnreachable);
  // The caller has as many calls in flight as it may: busy, as for a sweep
  // (it was 1 for every command but those that start sweeps).
  EXPECT_EQ(ExitFor(grpc::StatusCode::RESOURCE_EXHAUSTED), kExitBusy);
  EXPECT_EQ(ExitFor(grpc::StatusCode::INTERNAL), kExitFailed);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::client
