#include "daemon/core/regression_persistence.h"

#include <algorithm>
#include <map>

namespace fabricpulse::core {

std::vector<bool> ConfirmRegressions(const std::vector<StepRegression>& steps) {
  std::vector<bool> confirmed(steps.size(), false);
  // Each curve's steps by size, to find runs of regressed neighbours.
  std::map<std::string, std::vector<size_t>> curves;
  for (size_t i = 0; i < steps.size(); ++i) {
    curves[steps[i].series].push_back(i);
    confirmed[i] = steps[i].regression && steps[i].previously_regressed;
  }
  for (auto& [series, indexes] : curves) {
    std::stable_sort(indexes.begin(), indexes.end(), [&](size_t a, size_t b) {
      return steps[a].bytes < steps[b].bytes;
    });
    size_t run_start = 0;
    for (size_t j = 0; j <= indexes.size(); ++j) {
      if (j < indexes.size() && steps[indexes[j]].regression) continue;
      if (static_cast<int>(j - run_start) >= kNeighbourRun) {
        for (size_t k = run_start; k < j; ++k) confirmed[indexes[k]] = true;
      }
      run_start = j + 1;
    }
  }
  return confirmed;
}

}  // namespace fabricpulse::core
