#include "daemon/core/redop.h"

#include <string>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(RedOpTest, NamesRoundTrip) {
  struct Case {
    RedOp op;
    const char* name;
  };
  const Case kCases[] = {{RedOp::kSum, "sum"},
                         {RedOp::kProd, "prod"},
                         {RedOp::kMin, "min"},
                         {RedOp::kMax, "max"},
                         {RedOp::kAvg, "avg"}};
  for (const Case& c : kCases) {
    EXPECT_EQ(RedOpName(c.op), c.name);
    absl::StatusOr<RedOp> parsed = ParseRedOp(c.name);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, c.op);
  }
  absl::StatusOr<RedOp> upper = ParseRedOp("SUM");
  ASSERT_TRUE(upper.ok()) << upper.status();
  EXPECT_EQ(*upper, RedOp::kSum);
}

TEST(RedOpTest, UnknownNameNamesFieldValueAndAllowedNames) {
  for (const char* name : {"", "mean", "product", "xor"}) {
    absl::StatusOr<RedOp> parsed = ParseRedOp(name);
    ASSERT_FALSE(parsed.ok()) << name;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    const std::string message(parsed.status().message());
    EXPECT_THAT(message, StartsWith("redop: "));
    EXPECT_THAT(message, HasSubstr(std::string("'") + name + "'"));
    EXPECT_THAT(message, HasSubstr("sum, prod, min, max, avg"));
  }
  EXPECT_EQ(AllRedOpNames(), "sum, prod, min, max, avg");
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
