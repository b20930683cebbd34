#include "daemon/core/byte_size.h"

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(ParseByteSizeTest, AcceptsPlainNumbersAndBinarySuffixes) {
  struct Case {
    const char* text;
    uint64_t bytes;
  };
  const Case kCases[] = {
      {"8", 8},
      {"0", 0},
      {"64K", 65536},
      {"1M", 1048576},
      {"2G", 2147483648ull},
      {"1g", 1073741824},
      {"64k", 65536},
      {"16KB", 16384},
      {"16kb", 16384},
      {"8B", 8},
      {"3M", 3145728},
      {"1T", 1099511627776ull},
      {"  4K  ", 4096},
  };
  for (const Case& c : kCases) {
    absl::StatusOr<uint64_t> bytes = ParseByteSize(c.text, "min_bytes");
    ASSERT_TRUE(bytes.ok()) << c.text << ": " << bytes.status();
    EXPECT_EQ(*bytes, c.bytes) << c.text;
  }
}

TEST(ParseByteSizeTest, LargestValuesThatFit) {
  absl::StatusOr<uint64_t> max = ParseByteSize("18446744073709551615", "f");
  ASSERT_TRUE(max.ok()) << max.status();
  EXPECT_EQ(*max, UINT64_MAX);
  // 2^24 - 1 terabytes is the largest whole number of T below 2^64.
  absl::StatusOr<uint64_t> tera = ParseByteSize("16777215T", "f");
  ASSERT_TRUE(tera.ok()) << tera.status();
  EXPECT_EQ(*tera, 16777215ull << 40);
}

TEST(ParseByteSizeTest, RejectsMalformedText) {
  for (const char* text : {"", " ", "abc", "1X", "-5", "+5", "K", "B", "KB",
                           "1.5M", "1MM", "0x10", "M1"}) {
    absl::StatusOr<uint64_t> bytes = ParseByteSize(text, "max_bytes");
    ASSERT_FALSE(bytes.ok()) << "'" << text << "' parsed as " << *bytes;
    EXPECT_EQ(bytes.status().code(), absl::StatusCode::kInvalidArgument)
        << text;
    EXPECT_THAT(std::string(bytes.status().message()),
                StartsWith("max_bytes: '"))
        << text;
    EXPECT_THAT(std::string(bytes.status().message()),
                HasSubstr(std::string("'") + text + "'"));
    EXPECT_THAT(std::string(bytes.status().message()), HasSubstr("64K"));
  }
}

TEST(ParseByteSizeTest, RejectsOverflow) {
  // 2^64 does not fit in the number itself.
  for (const char* text :
       {"18446744073709551616", "99999999999999999999999",
        // 2^34 G = 2^64: the multiplication overflows.
        "17179869184G", "16777216T", "18446744073709551615K"}) {
    absl::StatusOr<uint64_t> bytes = ParseByteSize(text, "max_bytes");
    ASSERT_FALSE(bytes.ok()) << text << " parsed as " << *bytes;
    EXPECT_EQ(bytes.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(bytes.status().message()),
                StartsWith("max_bytes: '"));
    EXPECT_THAT(std::string(bytes.status().message()), HasSubstr(text));
  }
}

TEST(HumanByteSizeTest, BinaryUnitsWithOneDecimalWhenInexact) {
  EXPECT_EQ(HumanByteSize(0), "0 B");
  EXPECT_EQ(HumanByteSize(1023), "1023 B");
  EXPECT_EQ(HumanByteSize(1024), "1 KiB");
  EXPECT_EQ(HumanByteSize(1536), "1.5 KiB");
  EXPECT_EQ(HumanByteSize(1ull << 30), "1 GiB");
  EXPECT_EQ(HumanByteSize(1ull << 40), "1 TiB");
}

TEST(FormatByteSizeTest, UsesLargestExactUnit) {
  EXPECT_EQ(FormatByteSize(0), "0");
  EXPECT_EQ(FormatByteSize(1), "1");
  EXPECT_EQ(FormatByteSize(8), "8");
  EXPECT_EQ(FormatByteSize(1000), "1000");
  EXPECT_EQ(FormatByteSize(1023), "1023");
  EXPECT_EQ(FormatByteSize(1024), "1K");
  EXPECT_EQ(FormatByteSize(1025), "1025");
  EXPECT_EQ(FormatByteSize(65536), "64K");
  EXPECT_EQ(FormatByteSize(1536), "1536");
  EXPECT_EQ(FormatByteSize(1048576), "1M");
  EXPECT_EQ(FormatByteSize(1572864), "1536K");
  EXPECT_EQ(FormatByteSize(3221225472ull), "3G");
  EXPECT_EQ(FormatByteSize(1ull << 40), "1T");
  EXPECT_EQ(FormatByteSize(1ull << 50), "1024T");
}

TEST(FormatByteSizeTest, RoundTripsThroughParse) {
  for (uint64_t bytes :
       {uint64_t{1}, uint64_t{8}, uint64_t{1000}, uint64_t{4096},
        uint64_t{1536} << 10, uint64_t{32} << 20, uint64_t{5} << 30,
        uint64_t{1} << 40}) {
    absl::StatusOr<uint64_t> parsed =
        ParseByteSize(FormatByteSize(bytes), "bytes");
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, bytes);
  }
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
