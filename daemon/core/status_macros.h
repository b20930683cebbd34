// Minimal status propagation macros (Abseil 20220623 ships none).
#pragma once

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define FP_CONCAT_INNER(a, b) a##b
#define FP_CONCAT(a, b) FP_CONCAT_INNER(a, b)

// Returns the status from the enclosing function when `expr` is not OK.
#define FP_RETURN_IF_ERROR(expr)                      \
  do {                                                \
    ::absl::Status fp_status_ = (expr);               \
    if (!fp_status_.ok()) return fp_status_;          \
  } while (0)

#define FP_ASSIGN_OR_RETURN_IMPL(var, lhs, expr) \
  auto var = (expr);                             \
  if (!var.ok()) return var.status();            \
  lhs = std::move(*var)

// `FP_ASSIGN_OR_RETURN(auto x, MakeX());` unwraps a StatusOr or returns its
// error.
#define FP_ASSIGN_OR_RETURN(lhs, expr) \
  FP_ASSIGN_OR_RETURN_IMPL(FP_CONCAT(fp_statusor_, __LINE__), lhs, expr)
