#include "daemon/core/busbw_thresholds.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/core/byte_size.h"
#include "daemon/core/op_traits.h"

namespace fabricpulse::core {

int MatchThreshold(const std::vector<BusbwThreshold>& thresholds,
                   const JudgedStep& step) {
  int best = -1;
  int best_named = -1;
  for (size_t i = 0; i < thresholds.size(); ++i) {
    const BusbwThreshold& t = thresholds[i];
    if ((!t.op.empty() && t.op != step.op) ||
        (t.bytes != 0 && t.bytes != step.bytes) ||
        (!t.path.empty() && t.path != step.path) ||
        (!t.gpu_model.empty() && t.gpu_model != step.gpu_model)) {
      continue;
    }
    const int named =
        !t.op.empty() + (t.bytes != 0) + !t.path.empty() + !t.gpu_model.empty();
    if (named > best_named) {
      best = static_cast<int>(i);
      best_named = named;
    }
  }
  return best;
}

absl::Status ValidateThreshold(const BusbwThreshold& t) {
  if (!t.op.empty() && !ParseOp(t.op).ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("op: '", t.op.substr(0, 32),
                     "' is not an op; allowed: ", AllOpNames()));
  }
  if (!t.path.empty() && t.path != "nvlink" && t.path != "pcie_shm" &&
      t.path != "network") {
    return absl::InvalidArgumentError(
        absl::StrCat("path: '", t.path.substr(0, 32),
                     "' is not a path; allowed: nvlink, pcie_shm, network"));
  }
  if (!(std::isfinite(t.gbps) && t.gbps > 0 && t.gbps <= 1e6)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "gbps: ", t.gbps,
        " is out of range; allowed: more than 0, up to 1000000 (GB/s)"));
  }
  return absl::OkStatus();
}

absl::Status ValidateThresholds(const std::vector<BusbwThreshold>& thresholds) {
  if (thresholds.size() > kMaxBusbwThresholds) {
    return absl::InvalidArgumentError(
        absl::StrCat("thresholds: ", thresholds.size(),
                     " entries; allowed: at most ", kMaxBusbwThresholds));
  }
  for (size_t i = 0; i < thresholds.size(); ++i) {
    if (absl::Status s = ValidateThreshold(thresholds[i]); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("thresholds[", i, "].", s.message()));
    }
  }
  return absl::OkStatus();
}

std::string DescribeThreshold(const BusbwThreshold& t) {
  std::vector<std::string> named;
  if (!t.op.empty()) named.push_back(t.op);
  if (t.bytes != 0) named.push_back(HumanByteSize(t.bytes));
  if (!t.path.empty()) named.push_back(t.path);
  if (!t.gpu_model.empty()) named.push_back(t.gpu_model);
  return absl::StrCat(named.empty() ? "any step" : absl::StrJoin(named, " "),
                      ": ", t.gbps, " GB/s");
}

}  // namespace fabricpulse::core
