#include "client/output/max_bytes_auto_text.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/output/json_printer.h"
#include "client/output/units.h"
#include "daemon/core/byte_size.h"

namespace fabricpulse::client {
namespace {

bool HasAuto(const v1::SweepSpec& spec) {
  return spec.has_max_bytes_auto() && spec.max_bytes_auto().fraction() != 0;
}

}  // namespace

std::string MaxBytesAutoLine(const v1::SweepSpec& spec) {
  if (!HasAuto(spec)) return "";
  const v1::MaxBytesAuto& a = spec.max_bytes_auto();
  std::vector<std::string> ops;
  for (const v1::OpMaxBytes& op : a.ops()) {
    ops.push_back(
        absl::StrCat(op.op(), " ", core::FormatByteSize(op.max_bytes())));
  }
  return absl::StrCat("# maxBytes auto:", FormatNumber(a.fraction()), ": ",
                      ops.empty() ? "not resolved" : absl::StrJoin(ops, ", "),
                      " (budget ", core::HumanByteSize(a.budget_bytes()), " = ",
                      FormatNumber(a.fraction()), " x ",
                      core::HumanByteSize(a.free_bytes()), " free on ",
                      a.least_free(), ")\n");
}

std::string MaxBytesAutoJson(const v1::SweepSpec& spec) {
  if (!HasAuto(spec)) return "";
  const v1::MaxBytesAuto& a = spec.max_bytes_auto();
  std::vector<std::string> ops;
  for (const v1::OpMaxBytes& op : a.ops()) {
    ops.push_back(absl::StrCat("{\"op\": ", JsonString(op.op()),
                               ", \"max_bytes\": ", op.max_bytes(),
                               ", \"buffer_bytes\": ", op.buffer_bytes(), "}"));
  }
  return absl::StrCat("{\"fraction\": ", FormatNumber(a.fraction()),
                      ", \"free_bytes\": ", a.free_bytes(),
                      ", \"least_free\": ", JsonString(a.least_free()),
                      ", \"budget_bytes\": ", a.budget_bytes(), ", \"ops\": [",
                      absl::StrJoin(ops, ", "), "]}");
}

}  // namespace fabricpulse::client
