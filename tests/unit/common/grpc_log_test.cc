// gRPC's lines at the daemons' levels: routine per-connection lines at
// debug, other gRPC errors at the level the daemon asks for, gRPC's info
// and debug at debug.
#include "daemon/common/grpc_log.h"

#include "gtest/gtest.h"

namespace fabricpulse::common {
namespace {

using core::LogLevel;

TEST(GrpcLogTest, ARoutineTlsLineIsDebugNotAnError) {
  EXPECT_EQ(GrpcLineLevel(true,
                          "No match found for server name: "
                          "fabricpulse-coordinator.",
                          LogLevel::kWarning),
            LogLevel::kDebug);
}

TEST(GrpcLogTest, OtherGrpcErrorsTakeTheDaemonsLevel) {
  EXPECT_EQ(GrpcLineLevel(true, "Handshake failed with fatal error",
                          LogLevel::kWarning),
            LogLevel::kWarning);
  EXPECT_EQ(GrpcLineLevel(true, "anything else", LogLevel::kDebug),
            LogLevel::kDebug);
}

TEST(GrpcLogTest, GrpcInfoAndDebugAreDebug) {
  EXPECT_EQ(GrpcLineLevel(false, "No match found for server name: x",
                          LogLevel::kWarning),
            LogLevel::kDebug);
  EXPECT_EQ(GrpcLineLevel(false, "subchannel connected", LogLevel::kError),
            LogLevel::kDebug);
}

}  // namespace
}  // namespace fabricpulse::common
