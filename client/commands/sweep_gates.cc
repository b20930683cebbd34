#include "client/commands/sweep_gates.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "client/output/baseline_comparison.h"
#include "client/output/units.h"
#include "daemon/core/op_traits.h"

namespace fabricpulse::client {
namespace {

absl::Status Bad(absl::string_view value, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("--min-busbw: '", value, "': ", why));
}

std::string Bandwidth(double bytes_per_second, BwUnit unit) {
  return absl::StrFormat("%g %s", ToBwUnit(unit, bytes_per_second),
                         BwUnitLabel(unit));
}

}  // namespace

absl::StatusOr<std::vector<MinBusbw>> ParseMinBusbw(
    const std::vector<std::string>& values, BwUnit unit) {
  std::vector<MinBusbw> gates;
  std::set<std::string> seen;
  // The inverse of ToBwUnit: GB/s = 1e9 B/s, Gbit/s = 1e9 / 8 B/s.
  const double divisor = unit == BwUnit::kGbps ? 8 : 1;
  for (const std::string& raw : values) {
    const size_t eq = raw.find('=');
    if (eq == std::string::npos) {
      return Bad(raw, "expected OP=VALUE, e.g. all_reduce=100");
    }
    MinBusbw gate;
    const std::string name(
        absl::StripAsciiWhitespace(absl::string_view(raw).substr(0, eq)));
    const absl::StatusOr<core::Op> op = core::ParseOp(name);
    if (!op.ok()) {
      return Bad(raw, absl::StrCat("unknown op '", name,
                                   "'; allowed: ", core::AllOpNames()));
    }
    gate.op = std::string(core::OpName(*op));  // canonical, as results name it
    const std::string number(
        absl::StripAsciiWhitespace(absl::string_view(raw).substr(eq + 1)));
    if (!absl::SimpleAtod(number, &gate.value) || !std::isfinite(gate.value) ||
        gate.value < 0) {
      return Bad(raw, absl::StrCat("'", number,
                                   "' is not a bandwidth; allowed: a number "
                                   ">= 0 in ",
                                   BwUnitLabel(unit), " (--bw-unit)"));
    }
    if (!seen.insert(gate.op).second) {
      return Bad(raw, absl::StrCat("op '", gate.op, "' is given twice"));
    }
    gate.bytes_per_second = gate.value * 1e9 / divisor;
    gates.push_back(gate);
  }
  return gates;
}

absl::Status CheckGateOps(const std::vector<MinBusbw>& gates,
                          const std::vector<std::string>& ops) {
  std::vector<std::string> canonical;
  for (const std::string& name : ops) {
    const absl::StatusOr<core::Op> op = core::ParseOp(name);
    canonical.push_back(op.ok() ? std::string(core::OpName(*op)) : name);
  }
  for (const MinBusbw& gate : gates) {
    if (std::find(canonical.begin(), canonical.end(), gate.op) ==
        canonical.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--min-busbw: op '", gate.op, "' is not among the sweep's ops (",
          absl::StrJoin(ops, ", "), ")"));
    }
  }
  return absl::OkStatus();
}

std::vector<std::string> FailedMinBusbw(
    const std::vector<MinBusbw>& gates,
    const std::vector<v1::StepResult>& results, BwUnit unit) {
  std::vector<std::string> failed;
  for (const MinBusbw& gate : gates) {
    double sum = 0;
    int count = 0;
    for (const v1::StepResult& r : results) {
      if (r.step().op() != gate.op ||
          !std::isfinite(r.busbw_bytes_per_second())) {
        continue;
      }
      sum += r.busbw_bytes_per_second();
      ++count;
    }
    const std::string required = Bandwidth(gate.bytes_per_second, unit);
    if (count == 0) {
      failed.push_back(absl::StrCat(gate.op, ": no step measured, required ",
                                    required, " (--min-busbw)"));
      continue;
    }
    const double average = sum / count;
    if (average < gate.bytes_per_second * kMinBusbwTolerance) {
      failed.push_back(absl::StrCat(
          gate.op, ": average busbw ", Bandwidth(average, unit), " over ",
          count, " step(s) is below the required ", required,
          " (--min-busbw; fails below 90%, as nccl-tests)"));
    }
  }
  return failed;
}

std::string FailedRegressionGate(const std::vector<v1::StepResult>& results,
                                 BwUnit unit) {
  int regressed = 0;
  const v1::StepResult* first = nullptr;
  for (const v1::StepResult& r : results) {
    if (!r.regression()) continue;
    if (first == nullptr) first = &r;
    ++regressed;
  }
  if (first == nullptr) return "";
  return absl::StrCat(regressed,
                      " step(s) regressed against their baseline "
                      "(--fail-on-regression); first: ",
                      DescribeComparison(*first, unit));
}

}  // namespace fabricpulse::client
