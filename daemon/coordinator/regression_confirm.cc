#include "daemon/coordinator/regression_confirm.h"

#include "absl/strings/str_cat.h"
#include "daemon/core/regression_persistence.h"

namespace fabricpulse::coordinator {

std::vector<bool> ConfirmedRegressions(
    const std::vector<v1::StepResult>& results,
    const std::function<bool(const v1::StepResult&)>& previously_regressed) {
  std::vector<core::StepRegression> steps;
  steps.reserve(results.size());
  for (const v1::StepResult& r : results) {
    const bool regressed = r.regression() && r.baseline_sweeps() > 0;
    steps.push_back({absl::StrCat(r.step().op(), "/", r.step().dtype(), "/",
                                  r.step().in_place() ? "in" : "out"),
                     r.step().bytes(), regressed,
                     regressed && previously_regressed(r)});
  }
  return core::ConfirmRegressions(steps);
}

}  // namespace fabricpulse::coordinator
