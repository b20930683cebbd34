// Reduction operators.
#pragma once

#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"

namespace fabricpulse::core {

enum class RedOp { kSum, kProd, kMin, kMax, kAvg };

absl::string_view RedOpName(RedOp op);
// Errors: INVALID_ARGUMENT naming the field "redop" and the allowed names.
absl::StatusOr<RedOp> ParseRedOp(absl::string_view name);
std::string AllRedOpNames();

}  // namespace fabricpulse::core
