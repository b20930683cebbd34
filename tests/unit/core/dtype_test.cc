#include "daemon/core/dtype.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

using ::testing::HasSubstr;
using ::testing::StartsWith;

struct DTypeCase {
  DType dtype;
  const char* name;
  size_t size;
  bool floating;
};

constexpr DTypeCase kAllDTypes[] = {
    {DType::kInt8, "int8", 1, false},
    {DType::kUint8, "uint8", 1, false},
    {DType::kInt32, "int32", 4, false},
    {DType::kUint32, "uint32", 4, false},
    {DType::kInt64, "int64", 8, false},
    {DType::kUint64, "uint64", 8, false},
    {DType::kHalf, "half", 2, true},
    {DType::kFloat, "float", 4, true},
    {DType::kDouble, "double", 8, true},
    {DType::kBfloat16, "bfloat16", 2, true},
    {DType::kFp8E4M3, "fp8_e4m3", 1, true},
    {DType::kFp8E5M2, "fp8_e5m2", 1, true},
};

class DTypeTest : public ::testing::TestWithParam<DTypeCase> {};

TEST_P(DTypeTest, NameSizeAndKind) {
  const DTypeCase& c = GetParam();
  EXPECT_EQ(DTypeName(c.dtype), c.name);
  EXPECT_EQ(DTypeSize(c.dtype), c.size);
  EXPECT_EQ(IsFloatingPoint(c.dtype), c.floating);
}

TEST_P(DTypeTest, ParsesCanonicalNameInAnyCase) {
  const DTypeCase& c = GetParam();
  absl::StatusOr<DType> parsed = ParseDType(c.name);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*parsed, c.dtype);
  parsed = ParseDType(absl::AsciiStrToUpper(c.name));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*parsed, c.dtype);
}

INSTANTIATE_TEST_SUITE_P(AllDTypes, DTypeTest, ::testing::ValuesIn(kAllDTypes),
                         [](const ::testing::TestParamInfo<DTypeCase>& info) {
                           return std::string(info.param.name);
                         });

TEST(ParseDTypeTest, Aliases) {
  struct Alias {
    const char* name;
    DType dtype;
  };
  const Alias kAliases[] = {
      {"char", DType::kInt8},     {"int", DType::kInt32},
      {"long", DType::kInt64},    {"fp16", DType::kHalf},
      {"float16", DType::kHalf},  {"fp32", DType::kFloat},
      {"float32", DType::kFloat}, {"FP32", DType::kFloat},
      {"fp64", DType::kDouble},   {"float64", DType::kDouble},
      {"bf16", DType::kBfloat16}, {"e4m3", DType::kFp8E4M3},
  };
  for (const Alias& a : kAliases) {
    absl::StatusOr<DType> parsed = ParseDType(a.name);
    ASSERT_TRUE(parsed.ok()) << a.name << ": " << parsed.status();
    EXPECT_EQ(*parsed, a.dtype) << a.name;
  }
}

TEST(ParseDTypeTest, UnknownNameNamesFieldValueAndAllowedNames) {
  for (const char* name : {"", "float128", "int16", "fp8"}) {
    absl::StatusOr<DType> parsed = ParseDType(name);
    ASSERT_FALSE(parsed.ok()) << name;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    const std::string message(parsed.status().message());
    EXPECT_THAT(message, StartsWith("dtype: "));
    EXPECT_THAT(message, HasSubstr(std::string("'") + name + "'"));
    EXPECT_THAT(message, HasSubstr(AllDTypeNames()));
  }
}

TEST(AllDTypeNamesTest, ListsCanonicalNamesInOrder) {
  EXPECT_EQ(AllDTypeNames(),
            "int8, uint8, int32, uint32, int64, uint64, half, float, double, "
            "bfloat16, fp8_e4m3, fp8_e5m2");
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
