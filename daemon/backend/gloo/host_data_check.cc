#include "daemon/backend/gloo/host_data_check.h"

#include <cmath>
#include <cstring>
#include <type_traits>

#include "daemon/backend/gloo/gloo_dtype.h"
#include "daemon/core/data_pattern.h"

namespace fabricpulse::backend::gloo_impl {

absl::Status CheckDType(core::DType dtype) {
  return VisitDType(dtype, [](auto) { return absl::OkStatus(); });
}

absl::Status FillInput(const core::Step& step, int rank, int nranks, void* send,
                       uint64_t count) {
  return VisitDType(step.dtype, [&](auto tag) {
    using T = decltype(tag);
    T* data = static_cast<T*>(send);
    for (uint64_t i = 0; i < count; ++i) {
      StoreDouble<T>(&data[i], core::InputValue(step, rank, nranks, i));
    }
    return absl::OkStatus();
  });
}

absl::Status FillExpected(const core::Step& step, int rank, int nranks,
                          void* recv, uint64_t count) {
  return VisitDType(step.dtype, [&](auto tag) {
    using T = decltype(tag);
    T* data = static_cast<T*>(recv);
    for (uint64_t i = 0; i < count; ++i) {
      StoreDouble<T>(&data[i], core::ExpectedValue(step, rank, nranks, i));
    }
    return absl::OkStatus();
  });
}

void Poison(void* data, uint64_t bytes) { std::memset(data, 0xFF, bytes); }

absl::Status DivideByRanks(core::DType dtype, void* data, uint64_t count,
                           int nranks) {
  return VisitDType(dtype, [&](auto tag) {
    using T = decltype(tag);
    T* values = static_cast<T*>(data);
    if constexpr (std::is_same_v<T, ::gloo::float16>) {
      for (uint64_t i = 0; i < count; ++i) {
        StoreDouble<T>(&values[i], ToDouble<T>(values[i]) / nranks);
      }
    } else {
      // Integer division in C++ truncates toward zero.
      const T divisor = static_cast<T>(nranks);
      for (uint64_t i = 0; i < count; ++i) {
        values[i] = static_cast<T>(values[i] / divisor);
      }
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<int64_t> CountWrong(const core::Step& step, int rank, int nranks,
                                   const void* recv, uint64_t count) {
  int64_t wrong = 0;
  absl::Status status = VisitDType(step.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* data = static_cast<const T*>(recv);
    for (uint64_t i = 0; i < count; ++i) {
      const double expected = core::ExpectedValue(step, rank, nranks, i);
      const double actual = ToDouble<T>(data[i]);
      // Written so that NaN (the poison of floating types) counts as wrong.
      if (!(std::fabs(actual - expected) <=
            core::Tolerance(step.dtype, expected))) {
        ++wrong;
      }
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return wrong;
}

}  // namespace fabricpulse::backend::gloo_impl
