#include "daemon/coordinator/diagnose_response.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "daemon/common/spec_convert.h"
#include "daemon/coordinator/history_convert.h"
#include "daemon/core/byte_size.h"

namespace fabricpulse::coordinator {
namespace {

double SecondsOrZero(absl::Duration d) {
  return d == absl::InfiniteDuration() ? 0 : absl::ToDoubleSeconds(d);
}

}  // namespace

core::SweepFacts FactsFromHistory(const SweepWithSteps& sweep) {
  core::SweepFacts facts;
  if (!core::ParseSweepState(sweep.sweep.status, &facts.state)) {
    facts.state = core::SweepState::kFailed;
  }
  facts.started = sweep.sweep.started;
  facts.ended = sweep.sweep.finished;
  facts.error = sweep.sweep.error;
  facts.steps_done = static_cast<int>(sweep.steps.size());
  auto steps =
      core::Expand(common::SpecFromProto(SpecFromJson(sweep.sweep.spec_json)),
                   sweep.sweep.nranks);
  if (steps.ok()) facts.steps = std::move(*steps);
  return facts;
}

absl::StatusOr<core::Diagnosis> ParseStoredDiagnosis(const std::string& json) {
  // The stored document's keys (summary, culprits, evidence) are those of
  // DiagnoseResponse and DiagnoseCulprit.
  v1::DiagnoseResponse parsed;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  auto status =
      google::protobuf::util::JsonStringToMessage(json, &parsed, options);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("stored diagnosis: not a diagnosis document: ",
                     std::string(status.message())));
  }
  core::Diagnosis d;
  for (const v1::DiagnoseCulprit& c : parsed.culprits()) {
    core::Verdict v;
    if (!core::ParseVerdictKind(c.kind(), &v.kind)) {
      return absl::InvalidArgumentError(
          absl::StrCat("stored diagnosis: culprit of rank ", c.rank(),
                       " has unknown kind '", c.kind(), "'"));
    }
    v.rank = c.rank();
    v.node = c.node();
    v.gpu = c.gpu();
    v.seq = c.seq();
    v.op = c.op();
    v.bytes = c.bytes();
    v.stuck_for = absl::Seconds(c.stuck_for_seconds());
    v.low_confidence = c.low_confidence();
    v.explanation = c.explanation();
    d.culprits.push_back(std::move(v));
  }
  d.evidence.assign(parsed.evidence().begin(), parsed.evidence().end());
  return d;
}

v1::DiagnoseResponse ToDiagnoseResponse(const std::string& sweep_id,
                                        const core::SweepDiagnosis& d,
                                        const std::string& json) {
  v1::DiagnoseResponse r;
  r.set_sweep_id(sweep_id);
  r.set_summary(d.Summary());
  r.set_json(json);
  r.set_state(std::string(core::SweepStateName(d.state)));
  r.set_step(static_cast<uint32_t>(std::max(d.step, 0)));
  r.set_steps_total(static_cast<uint32_t>(d.facts.steps.size()));
  r.set_steps_done(static_cast<uint32_t>(std::max(d.facts.steps_done, 0)));
  r.set_step_name(d.StepName());
  r.set_started_unix_seconds(UnixSeconds(d.facts.started));
  r.set_ended_unix_seconds(UnixSeconds(d.facts.ended));
  if (d.state == core::SweepState::kRunning ||
      d.state == core::SweepState::kStalled) {
    r.set_waited_seconds(absl::ToDoubleSeconds(d.waited));
    r.set_stall_after_seconds(SecondsOrZero(d.bound));
    r.set_progress(d.progress);
  }
  for (const core::Verdict& v : d.ranks.culprits) {
    r.add_verdicts(v.Line());
    v1::DiagnoseCulprit* c = r.add_culprits();
    c->set_kind(std::string(core::VerdictKindName(v.kind)));
    c->set_rank(v.rank);
    c->set_node(v.node);
    c->set_gpu(v.gpu);
    c->set_seq(v.seq);
    c->set_op(v.op);
    c->set_bytes(v.bytes);
    c->set_stuck_for_seconds(absl::ToDoubleSeconds(v.stuck_for));
    c->set_low_confidence(v.low_confidence);
    c->set_explanation(v.explanation);
  }
  for (const std::string& e : d.ranks.evidence) r.add_evidence(e);
  return r;
}

void AddWrongData(const SweepWithSteps& sweep, v1::DiagnoseResponse& response) {
  std::map<int, v1::DiagnoseWrongData> by_rank;
  for (const StepRecord& step : sweep.steps) {
    for (const auto& [rank, wrong] : step.wrong_by_rank) {
      v1::DiagnoseWrongData& d = by_rank[rank];
      if (d.steps() == 0) {
        d.set_rank(rank);
        d.set_first_step(absl::StrCat(step.op, " ",
                                      core::HumanByteSize(step.bytes),
                                      step.in_place ? " in-place" : ""));
      }
      d.set_wrong(d.wrong() + wrong);
      d.set_steps(d.steps() + 1);
    }
  }
  for (auto& [rank, d] : by_rank) *response.add_wrong_data() = std::move(d);
}

}  // namespace fabricpulse::coordinator
