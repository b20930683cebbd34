#include "daemon/coordinator/request_checks.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace fabricpulse::coordinator {
namespace {

v1::ListSweepsRequest Last(int last) {
  v1::ListSweepsRequest request;
  request.set_last(last);
  return request;
}

TEST(ListSweepsLimitTest, UnsetMeansTheDefault) {
  EXPECT_EQ(ListSweepsLimit(v1::ListSweepsRequest()).value(),
            kDefaultListSweeps);
}

TEST(ListSweepsLimitTest, TakesOneToTheMaximum) {
  EXPECT_EQ(ListSweepsLimit(Last(1)).value(), 1);
  EXPECT_EQ(ListSweepsLimit(Last(kMaxListSweeps)).value(), kMaxListSweeps);
}

TEST(ListSweepsLimitTest, RefusesOutsideTheRangeNamingTheField) {
  for (int last : {-1, kMaxListSweeps + 1}) {
    const auto limit = ListSweepsLimit(Last(last));
    ASSERT_FALSE(limit.ok());
    EXPECT_EQ(limit.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(
        limit.status().message(),
        absl::StrCat("last: ", last, " is out of range; allowed: 1 to 1000"));
  }
}

}  // namespace
}  // namespace fabricpulse::coordinator
