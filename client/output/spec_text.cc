#include "client/output/spec_text.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "daemon/core/byte_size.h"

namespace fabricpulse::client {

std::string IterationsText(const core::SweepSpec& spec) {
  if (!spec.adaptive.enabled) return absl::StrCat(spec.iters, " iters");
  const core::AdaptiveIters& a = spec.adaptive;
  return absl::StrFormat(
      "iters auto (%g %% tolerance, %d to %d, %s cap per size)",
      a.tolerance * 100, a.min_iters, a.max_iters,
      absl::FormatDuration(a.step_time_cap));
}

std::string SizesText(const core::SweepSpec& spec) {
  const std::string top =
      spec.max_bytes_auto.fraction > 0
          ? absl::StrCat("auto:", spec.max_bytes_auto.fraction,
                         " of free memory")
          : core::FormatByteSize(spec.max_bytes);
  const std::string step =
      spec.step_bytes > 0
          ? absl::StrCat("step ", core::FormatByteSize(spec.step_bytes))
          : absl::StrCat("factor ", spec.factor);
  return absl::StrCat(core::FormatByteSize(spec.min_bytes), " to ", top, " (",
                      step, ")");
}

}  // namespace fabricpulse::client
