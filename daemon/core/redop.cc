#include "daemon/core/redop.h"

#include <array>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/core/name_rules.h"

namespace fabricpulse::core {
namespace {

struct RedOpInfo {
  RedOp op;
  absl::string_view name;
};

constexpr std::array<RedOpInfo, 5> kRedOps = {{{RedOp::kSum, "sum"},
                                               {RedOp::kProd, "prod"},
                                               {RedOp::kMin, "min"},
                                               {RedOp::kMax, "max"},
                                               {RedOp::kAvg, "avg"}}};

}  // namespace

absl::string_view RedOpName(RedOp op) {
  for (const auto& info : kRedOps) {
    if (info.op == op) return info.name;
  }
  return "?";
}

absl::StatusOr<RedOp> ParseRedOp(absl::string_view name) {
  std::string lower = absl::AsciiStrToLower(name);
  for (const auto& info : kRedOps) {
    if (info.name == lower) return info.op;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("redop: unknown reduction ", QuotePrefix(name),
                   "; allowed: ", AllRedOpNames()));
}

std::string AllRedOpNames() {
  return absl::StrJoin(kRedOps, ", ", [](std::string* out, const RedOpInfo& i) {
    absl::StrAppend(out, i.name);
  });
}

}  // namespace fabricpulse::core
