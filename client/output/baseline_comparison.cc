#include "client/output/baseline_comparison.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/output/units.h"
#include "daemon/core/byte_size.h"
#include "daemon/core/regression.h"

namespace fabricpulse::client {
namespace {

std::string Micros(double seconds) {
  return absl::StrCat(FormatTableMicros(ToMicros(seconds)), " us");
}

std::string Bandwidth(double bytes_per_second, BwUnit unit) {
  return absl::StrFormat("%.2f %s", ToBwUnit(unit, bytes_per_second),
                         BwUnitLabel(unit));
}

}  // namespace

bool JudgedOnTime(const v1::StepResult& result) {
  return core::IsLatencyBound(result.step().bytes(),
                              result.baseline_busbw_bytes_per_second());
}

std::string DescribeComparison(const v1::StepResult& result, BwUnit unit) {
  const v1::StepKey& step = result.step();
  std::string text =
      absl::StrCat(step.op(), " ", core::FormatByteSize(step.bytes()),
                   step.in_place() ? " in-place" : " out-of-place", ": ");
  if (result.baseline_sweeps() <= 0) {
    return absl::StrCat(text, "no baseline yet");
  }
  if (JudgedOnTime(result)) {
    absl::StrAppend(&text, "time ", Micros(result.time_seconds()),
                    " vs baseline ", Micros(result.baseline_time_seconds()));
  } else {
    absl::StrAppend(&text, "busbw ",
                    Bandwidth(result.busbw_bytes_per_second(), unit),
                    " vs baseline ",
                    Bandwidth(result.baseline_busbw_bytes_per_second(), unit));
  }
  absl::StrAppend(&text, " (median of ", result.baseline_sweeps(), " sweeps)");
  return text;
}

}  // namespace fabricpulse::client
