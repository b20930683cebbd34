#include "daemon/coordinator/group_outcome.h"

#include <limits>

#include "daemon/coordinator/busy_gpus.h"

namespace fabricpulse::coordinator {

bool GroupOutcome::Take(const v1::SweepEvent& event) {
  if (event.has_started()) sweep_id_ = event.started().sweep_id();
  if (!event.has_result()) return true;
  const v1::StepResult& r = event.result();
  if (r.has_wrong() && r.wrong() > 0) data_wrong_ = true;
  const v1::StepKey& k = r.step();
  if (k.op() != judge_op_) return true;
  const bool better = !found_ || k.bytes() > bytes_ ||
                      (k.bytes() == bytes_ && in_place_ && !k.in_place());
  if (better) {
    found_ = true;
    bytes_ = k.bytes();
    in_place_ = k.in_place();
    busbw_ = r.busbw_bytes_per_second();
  }
  return true;
}

bool GroupOutcome::HeldBack(const absl::Status& status) {
  return status.code() == absl::StatusCode::kResourceExhausted ||
         IsPreempted(status);
}

core::GroupMeasurement GroupOutcome::Measurement(const absl::Status& status,
                                                 absl::Time at) const {
  core::GroupMeasurement m;
  m.ok = status.ok();
  m.data_wrong = data_wrong_;
  m.busbw = found_ ? busbw_ : std::numeric_limits<double>::quiet_NaN();
  m.sweep_id = sweep_id_;
  m.error = std::string(status.message());
  m.at = at;
  return m;
}

}  // namespace fabricpulse::coordinator
