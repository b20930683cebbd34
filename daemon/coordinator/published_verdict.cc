#include "daemon/coordinator/published_verdict.h"

#include <string>
#include <utility>

namespace fabricpulse::coordinator {

namespace {

double NoticeSeconds(absl::Time t) {
  return t == absl::InfinitePast() || t == absl::InfiniteFuture()
             ? 0
             : absl::ToDoubleSeconds(t - absl::UnixEpoch());
}

int NoticeSeverity(const v1::NodeVerdictNotice& notice) {
  std::optional<core::NodeVerdict> verdict =
      core::ParseVerdict(notice.verdict());
  return verdict ? PublishSeverity(*verdict) : 0;
}

}  // namespace

int PublishSeverity(core::NodeVerdict verdict) {
  switch (verdict) {
    case core::NodeVerdict::kUntested:
      return 0;
    case core::NodeVerdict::kPass:
      return 1;
    case core::NodeVerdict::kSuspect:
      return 2;
    case core::NodeVerdict::kDegraded:
      return 3;
    case core::NodeVerdict::kFail:
      return 4;
  }
  return 0;
}

v1::NodeVerdictNotice ToNotice(const std::string& plan,
                               const core::NodeStatus& status,
                               absl::Duration validity) {
  v1::NodeVerdictNotice notice;
  notice.set_verdict(std::string(core::VerdictName(status.verdict)));
  notice.set_plan(plan);
  notice.set_tested_unix_seconds(NoticeSeconds(status.last_tested));
  notice.set_since_unix_seconds(NoticeSeconds(status.since));
  if (status.verdict != core::NodeVerdict::kUntested &&
      status.last_tested != absl::InfinitePast()) {
    notice.set_expires_unix_seconds(
        NoticeSeconds(status.last_tested + validity));
  }
  return notice;
}

void KeepWorst(std::optional<v1::NodeVerdictNotice>& worst,
               v1::NodeVerdictNotice candidate) {
  if (!worst) {
    worst = std::move(candidate);
    return;
  }
  const int have = NoticeSeverity(*worst);
  const int next = NoticeSeverity(candidate);
  if (next > have || (next == have && candidate.tested_unix_seconds() >
                                          worst->tested_unix_seconds())) {
    worst = std::move(candidate);
  }
}

}  // namespace fabricpulse::coordinator
