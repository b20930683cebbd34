// Element types a sweep can use.
#pragma once

#include <cstddef>
#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"

namespace fabricpulse::core {

enum class DType {
  kInt8,
  kUint8,
  kInt32,
  kUint32,
  kInt64,
  kUint64,
  kHalf,
  kFloat,
  kDouble,
  kBfloat16,
  kFp8E4M3,
  kFp8E5M2,
};

// Canonical name ("float", "half", "bfloat16", "fp8_e4m3", ...).
absl::string_view DTypeName(DType dtype);
// Bytes per element.
size_t DTypeSize(DType dtype);
bool IsFloatingPoint(DType dtype);
// Accepts canonical names and common aliases (fp32, float32, fp16, float16,
// bf16, fp64, float64, char, int, long). Errors: INVALID_ARGUMENT naming the
// field "dtype" and listing the allowed names.
absl::StatusOr<DType> ParseDType(absl::string_view name);
// "int8, uint8, ..." for error messages and --help.
std::string AllDTypeNames();

}  // namespace fabricpulse::core
