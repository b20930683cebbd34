#include "daemon/core/host_memory.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

TEST(HostMemoryTest, ParsesMemAvailable) {
  auto bytes = ParseMemAvailable(
      "MemTotal:       32780936 kB\n"
      "MemFree:         1022316 kB\n"
      "MemAvailable:   21714420 kB\n"
      "Buffers:          412036 kB\n");
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(*bytes, 21714420ull * 1024);
}

TEST(HostMemoryTest, MissingOrMalformedMemAvailable) {
  EXPECT_EQ(ParseMemAvailable("MemTotal: 1 kB\n").status().code(),
            absl::StatusCode::kNotFound);
  for (const char* bad :
       {"MemAvailable: lots kB\n", "MemAvailable: 12\n",
        "MemAvailable: 12 MB\n", "MemAvailable: 99999999999999999999 kB\n"}) {
    EXPECT_EQ(ParseMemAvailable(bad).status().code(),
              absl::StatusCode::kInvalidArgument)
        << bad;
  }
}

TEST(HostMemoryTest, CgroupFigures) {
  EXPECT_EQ(ParseCgroupBytes("2147483648\n"), 2147483648ull);
  EXPECT_EQ(ParseCgroupBytes("max\n"), std::nullopt);
  // cgroup v1's "no limit".
  EXPECT_EQ(ParseCgroupBytes("9223372036854771712\n"), std::nullopt);
  EXPECT_EQ(ParseCgroupBytes(""), std::nullopt);
}

TEST(HostMemoryTest, TheCgroupLimitCapsMemAvailable) {
  constexpr uint64_t kGiB = 1ull << 30;
  EXPECT_EQ(HostAvailableBytes(20 * kGiB, std::nullopt, std::nullopt),
            20 * kGiB);
  EXPECT_EQ(HostAvailableBytes(20 * kGiB, 8 * kGiB, 3 * kGiB), 5 * kGiB);
  EXPECT_EQ(HostAvailableBytes(2 * kGiB, 8 * kGiB, 3 * kGiB), 2 * kGiB);
  EXPECT_EQ(HostAvailableBytes(20 * kGiB, 8 * kGiB, 9 * kGiB), 0u);
  EXPECT_EQ(HostAvailableBytes(20 * kGiB, 8 * kGiB, std::nullopt), 20 * kGiB);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
