// The data check on host memory: typed fill of send buffers with the data
// pattern, poisoning of receive buffers, the local part of avg, and the
// count of wrong output elements. Pure functions over caller-owned memory;
// thread-compatible.
#pragma once

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "daemon/core/sweep_spec.h"

namespace fabricpulse::backend::gloo_impl {

// OK for the dtypes the Gloo backend runs. Errors: INVALID_ARGUMENT naming
// the dtype (bfloat16, fp8) and the supported ones.
absl::Status CheckDType(core::DType dtype);

// Writes core::InputValue(step, rank, nranks, i), converted to step.dtype,
// at element i of `send` for i < count. Errors: INVALID_ARGUMENT unsupported
// dtype.
absl::Status FillInput(const core::Step& step, int rank, int nranks, void* send,
                       uint64_t count);

// Writes core::ExpectedValue(step, rank, nranks, i) at element i of `recv`
// for i < count (what a correct op leaves there; for tests of the check).
// Errors: INVALID_ARGUMENT unsupported dtype.
absl::Status FillExpected(const core::Step& step, int rank, int nranks,
                          void* recv, uint64_t count);

// Fills `bytes` bytes with 0xFF: NaN for floating types, -1 or the maximum
// for integers; never a value the data pattern expects.
void Poison(void* data, uint64_t bytes);

// Divides each of `count` elements of `dtype` by `nranks` in place: the
// local half of avg (integers truncate toward zero, as NCCL does).
// Errors: INVALID_ARGUMENT unsupported dtype.
absl::Status DivideByRanks(core::DType dtype, void* data, uint64_t count,
                           int nranks);

// Number of the first `count` elements of `recv` that differ from
// core::ExpectedValue(step, rank, nranks, i) by more than
// core::Tolerance(step.dtype, expected); NaN counts as wrong. Errors:
// INVALID_ARGUMENT unsupported dtype.
absl::StatusOr<int64_t> CountWrong(const core::Step& step, int rank, int nranks,
                                   const void* recv, uint64_t count);

}  // namespace fabricpulse::backend::gloo_impl
