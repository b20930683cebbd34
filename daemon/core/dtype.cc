#include "daemon/core/dtype.h"

#include <array>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/core/name_rules.h"

namespace fabricpulse::core {
namespace {

struct DTypeInfo {
  DType dtype;
  absl::string_view name;
  size_t size;
  bool floating;
};

constexpr std::array<DTypeInfo, 12> kDTypes = {{
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
}};

constexpr std::array<std::pair<absl::string_view, DType>, 11> kAliases = {{
    {"char", DType::kInt8},
    {"int", DType::kInt32},
    {"long", DType::kInt64},
    {"fp16", DType::kHalf},
    {"float16", DType::kHalf},
    {"fp32", DType::kFloat},
    {"float32", DType::kFloat},
    {"fp64", DType::kDouble},
    {"float64", DType::kDouble},
    {"bf16", DType::kBfloat16},
    {"e4m3", DType::kFp8E4M3},
}};

const DTypeInfo& Info(DType dtype) {
  for (const auto& info : kDTypes) {
    if (info.dtype == dtype) return info;
  }
  return kDTypes[0];
}

}  // namespace

absl::string_view DTypeName(DType dtype) { return Info(dtype).name; }
size_t DTypeSize(DType dtype) { return Info(dtype).size; }
bool IsFloatingPoint(DType dtype) { return Info(dtype).floating; }

absl::StatusOr<DType> ParseDType(absl::string_view name) {
  std::string lower = absl::AsciiStrToLower(name);
  for (const auto& info : kDTypes) {
    if (info.name == lower) return info.dtype;
  }
  for (const auto& [alias, dtype] : kAliases) {
    if (alias == lower) return dtype;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("dtype: unknown type ", QuotePrefix(name),
                   "; allowed: ", AllDTypeNames()));
}

std::string AllDTypeNames() {
  return absl::StrJoin(kDTypes, ", ", [](std::string* out, const DTypeInfo& i) {
    absl::StrAppend(out, i.name);
  });
}

}  // namespace fabricpulse::core
