// Element types of the Gloo backend: the C++ type behind each supported
// core::DType, conversions to and from double (the data pattern's currency)
// and the Gloo reduction function for each redop. Internal to the backend.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "daemon/core/dtype.h"
#include "daemon/core/redop.h"
#include "gloo/math.h"
#include "gloo/types.h"

namespace fabricpulse::backend::gloo_impl {

// Gloo's element-wise reduction: out[i] = a[i] (op) b[i] for n elements.
using ReduceFn = void (*)(void*, const void*, const void*, size_t);

inline constexpr absl::string_view kSupportedDTypes =
    "int8, uint8, int32, uint32, int64, uint64, half, float, double";

// Calls `f(T{})` with the C++ type of `dtype` and returns its status.
// Errors: INVALID_ARGUMENT naming the dtype when Gloo cannot run it
// (bfloat16, fp8).
template <typename F>
absl::Status VisitDType(core::DType dtype, F&& f) {
  switch (dtype) {
    case core::DType::kInt8:
      return f(int8_t{});
    case core::DType::kUint8:
      return f(uint8_t{});
    case core::DType::kInt32:
      return f(int32_t{});
    case core::DType::kUint32:
      return f(uint32_t{});
    case core::DType::kInt64:
      return f(int64_t{});
    case core::DType::kUint64:
      return f(uint64_t{});
    case core::DType::kHalf:
      return f(::gloo::float16{});
    case core::DType::kFloat:
      return f(float{});
    case core::DType::kDouble:
      return f(double{});
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("dtype: '", core::DTypeName(dtype),
                       "' is not supported by the gloo backend; supported: ",
                       kSupportedDTypes));
  }
}

// Writes `value` at `*out`. For float16 the bits are stored directly:
// gloo::float16::operator= skips the store when the new value equals the
// old bits read as an integer.
template <typename T>
void StoreDouble(T* out, double value) {
  if constexpr (std::is_same_v<T, ::gloo::float16>) {
    out->x = ::gloo::float16(value).x;
  } else {
    *out = static_cast<T>(value);
  }
}

template <typename T>
double ToDouble(T value) {
  if constexpr (std::is_same_v<T, ::gloo::float16>) {
    return static_cast<double>(::gloo::cpu_half2float(value));
  } else {
    return static_cast<double>(value);
  }
}

// Gloo's reduction function for `redop` on T. Avg reduces with sum; the
// caller divides by the rank count afterwards.
template <typename T>
ReduceFn ReduceFunctionFor(core::RedOp redop) {
  switch (redop) {
    case core::RedOp::kProd:
      return static_cast<ReduceFn>(&::gloo::product<T>);
    case core::RedOp::kMin:
      return static_cast<ReduceFn>(&::gloo::min<T>);
    case core::RedOp::kMax:
      return static_cast<ReduceFn>(&::gloo::max<T>);
    case core::RedOp::kSum:
    case core::RedOp::kAvg:
      break;
  }
  return static_cast<ReduceFn>(&::gloo::sum<T>);
}

}  // namespace fabricpulse::backend::gloo_impl
