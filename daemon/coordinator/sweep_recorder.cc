#include "daemon/coordinator/sweep_recorder.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "daemon/common/spec_convert.h"
#include "daemon/coordinator/busy_gpus.h"
#include "daemon/coordinator/history_convert.h"
#include "daemon/coordinator/regression_confirm.h"
#include "daemon/coordinator/topology_key.h"
#include "daemon/core/limits.h"
#include "daemon/core/log.h"
#include "daemon/core/measurement_key.h"
#include "daemon/core/regression.h"
#include "daemon/core/straggler.h"

namespace fabricpulse::coordinator {

std::string OutcomeName(const absl::Status& status) {
  if (status.ok()) return kSweepSucceeded;
  if (status.code() == absl::StatusCode::kAborted) return kSweepAborted;
  if (IsPreempted(status)) return kSweepPreempted;
  return kSweepFailed;
}

SweepRecorder::SweepRecorder(const SweepPlan& plan, std::string trigger,
                             const core::CoordinatorConfig* config,
                             HistoryStore* history, CoordinatorMetrics* metrics,
                             core::Clock* clock)
    : plan_(plan),
      trigger_(std::move(trigger)),
      config_(config),
      history_(history),
      metrics_(metrics),
      clock_(clock),
      isolation_(absl::StartsWith(trigger_, kIsolationTriggerPrefix)),
      method_key_(core::MeasurementKey(common::SpecFromProto(plan_.spec))) {}

absl::Status SweepRecorder::Begin() {
  SweepRecord record;
  record.id = plan_.sweep_id;
  record.plan = plan_.plan_name;
  record.trigger = trigger_;
  record.spec_json = SpecToJson(plan_.spec);
  for (const v1::AgentInfo& a : plan_.agents)
    record.nodes.push_back(a.node_name());
  record.nranks = plan_.nranks;
  record.topology = plan_.topology;
  record.backend = plan_.backend;
  record.backend_version = plan_.backend_version;
  record.method_key = method_key_;
  for (const v1::RankPlacement& r : plan_.ranks) {
    record.ranks.push_back(RankRecordFromPlacement(r));
  }
  record.started = clock_->Now();
  record.status = kSweepRunning;
  auto before = history_->NewestBaselineKey(plan_.plan_name, plan_.nranks,
                                            TopologyShape(plan_.topology));
  if (!before.ok()) {
    FP_LOG_ERROR(absl::StrCat("history: ", before.status().message()));
  } else if (before->has_value()) {
    baseline_change_ = FindBaselineChange(
        **before, BaselineKey{plan_.topology, plan_.backend_version});
  }
  if (baseline_change_) {
    record.baseline_change = baseline_change_->note;
    FP_LOG_INFO(absl::StrCat("sweep ", plan_.sweep_id, " (plan ",
                             plan_.plan_name, "): ", baseline_change_->note));
  }
  absl::Status begun = history_->BeginSweep(record);
  if (!begun.ok()) {
    return absl::InternalError(
        absl::StrCat("history: cannot record the sweep: ", begun.message()));
  }
  return absl::OkStatus();
}

void SweepRecorder::Judge(v1::StepResult& result) {
  // Earlier sweeps ran another version or hardware: nothing to judge by.
  if (baseline_change_) return;
  const v1::StepKey& key = result.step();
  auto samples = history_->BaselineSamples(
      plan_.plan_name, key.op(), key.dtype(), key.bytes(), plan_.nranks,
      plan_.topology, plan_.backend_version, key.in_place(),
      config_->baseline_window, method_key_);
  if (!samples.ok()) {
    FP_LOG_ERROR(absl::StrCat("history: ", samples.status().message()));
    return;
  }
  core::RegressionRule rule;
  rule.min_sweeps = config_->baseline_min_sweeps;
  rule.threshold = config_->regression_threshold;
  const core::RegressionVerdict verdict =
      core::JudgeStep(rule, key.bytes(), result.time_seconds(),
                      result.busbw_bytes_per_second(), *samples);
  if (verdict.sweeps == 0) return;  // no baseline yet
  result.set_baseline_sweeps(verdict.sweeps);
  result.set_baseline_time_seconds(verdict.median_time_seconds);
  result.set_baseline_busbw_bytes_per_second(verdict.median_busbw);
  result.set_regression(verdict.regression);
  result.set_baseline_noisy(verdict.noisy);
}

void SweepRecorder::RecordResult(v1::StepResult& result) {
  // A round of the pairwise matrix is judged per pair (flagged) and
  // exported per node pair: a round's slowest pair is neither a
  // collective's time, nor comparable with another round's, nor a sign of a
  // straggler (a rank of a slow pair enters its next op late).
  const bool pairwise = result.step().has_round();
  if (pairwise) {
    for (const v1::PairResult& pair : result.pairs()) {
      AddPair(pair, result.step().bytes(), node_pairs_);
    }
  } else if (!isolation_) {
    Judge(result);
    metrics_->RecordStep(plan_.plan_name, result, plan_.nranks);
    // The verdicts go out only once the sweep succeeded (Finish).
    if (plan_.plan_name != kAdhocPlan) judged_.push_back(result);
    if (result.regression() && !first_regression_) {
      first_regression_ = IsolationStep{
          result.step().op(), result.step().bytes(), result.step().in_place()};
    }
  }
  for (const auto& [rank, wrong] : result.wrong_by_rank()) {
    if (rank >= 0 && rank < static_cast<int>(plan_.rank_nodes.size())) {
      metrics_->WrongElements(plan_.rank_nodes[rank], rank, wrong);
    }
  }
  if (!pairwise) {
    core::MergedStep m;
    m.time_seconds = result.time_seconds();
    if (result.has_last_arrival_rank()) {
      m.last_arrival_rank = result.last_arrival_rank();
    }
    if (result.has_arrival_lateness_seconds()) {
      m.arrival_lateness_seconds = result.arrival_lateness_seconds();
    }
    const std::optional<int> late = core::LateRank(m);
    if (late && *late >= 0 &&
        *late < static_cast<int>(plan_.rank_nodes.size())) {
      metrics_->LateArrival(plan_.rank_nodes[*late], *late);
    }
    merged_.push_back(m);
  }
  absl::Status stored =
      history_->AddStep(StepRecordFromResult(plan_.sweep_id, result));
  if (!stored.ok()) {
    FP_LOG_ERROR(absl::StrCat("history: ", stored.message()));
  }
}

void SweepRecorder::OnEvent(v1::SweepEvent& event) {
  if (event.has_result()) {
    results_++;
    RecordResult(*event.mutable_result());
  } else if (event.has_comm_ready()) {
    history_
        ->RecordComm(plan_.sweep_id, event.comm_ready().init_seconds(),
                     event.comm_ready().reused())
        .IgnoreError();
    if (!event.comm_ready().reused()) {
      metrics_->CommInit(plan_.nranks, event.comm_ready().init_seconds());
    }
  }
}

v1::SweepEvent SweepRecorder::Finish(
    absl::Status& status, const std::optional<core::Diagnosis>& diagnosis,
    absl::Duration duration) {
  const std::string outcome = OutcomeName(status);
  std::string diagnosis_json;
  if (diagnosis) {
    diagnosis_json = diagnosis->ToJson();
    if (!diagnosis->culprits.empty()) {
      const core::Verdict& culprit = diagnosis->culprits.front();
      metrics_->HangCulprit(culprit.node, culprit.gpu, culprit.rank);
      // The CLI's one line names the culprit first.
      status = absl::Status(status.code(),
                            absl::StrCat(diagnosis->Summary(),
                                         "; first error: ", status.message()));
    } else {
      metrics_->ClearHangCulprit();
    }
  }
  std::string straggler;  // recorded before the sweep is finished
  // A preempted sweep's last steps shared their GPUs: no verdict on it.
  std::optional<core::Straggler> found;
  if (outcome != kSweepPreempted) found = core::FindStraggler(merged_);
  if (found) {
    straggler = found->Describe();
    if (found->rank < static_cast<int>(plan_.rank_nodes.size())) {
      absl::StrAppend(&straggler, " (node ", plan_.rank_nodes[found->rank],
                      ")");
    }
    FP_LOG_INFO(
        absl::StrCat("sweep ", plan_.sweep_id, " straggler: ", straggler));
    history_->RecordStraggler(plan_.sweep_id, straggler).IgnoreError();
  }
  // The stored error is bounded (an agent's message is its own to make).
  absl::string_view error = status.message();
  std::string cut;
  if (error.size() > core::kMaxStoredErrorLength) {
    cut = absl::StrCat(error.substr(0, core::kMaxStoredErrorLength), "... (",
                       error.size() - core::kMaxStoredErrorLength,
                       " more bytes)");
    error = cut;
  }
  absl::Status finished_ok = history_->FinishSweep(
      plan_.sweep_id, outcome, error, diagnosis_json, clock_->Now());
  if (!finished_ok.ok()) {
    FP_LOG_ERROR(absl::StrCat("history: ", finished_ok.message()));
  }
  if (!node_pairs_.empty()) metrics_->NodePairs(node_pairs_);
  if (outcome == kSweepSucceeded) {
    // Read before any is set: whether each step regressed in the plan's
    // previous succeeded sweep.
    const std::vector<bool> confirmed =
        ConfirmedRegressions(judged_, [this](const v1::StepResult& r) {
          return metrics_->WasRegressed(plan_.plan_name, r, plan_.nranks);
        });
    for (size_t i = 0; i < judged_.size(); ++i) {
      metrics_->RecordVerdict(plan_.plan_name, judged_[i], plan_.nranks,
                              confirmed[i]);
    }
    // Once per change: the next sweep finds this one as the newest good.
    if (baseline_change_) {
      metrics_->BaselineChanged(plan_.plan_name,
                                baseline_change_->backend_version,
                                baseline_change_->topology);
    }
  }
  metrics_->SweepFinished(plan_.plan_name,
                          absl::StartsWith(trigger_, "schedule")    ? "schedule"
                          : absl::StartsWith(trigger_, "campaign:") ? "campaign"
                          : isolation_ ? "isolation"
                                       : "cli",
                          outcome, absl::ToDoubleSeconds(duration),
                          clock_->Now());
  v1::SweepEvent finished;
  finished.mutable_finished()->set_sweep_id(plan_.sweep_id);
  finished.mutable_finished()->set_status(outcome);
  finished.mutable_finished()->set_error(std::string(status.message()));
  finished.mutable_finished()->set_duration_seconds(
      absl::ToDoubleSeconds(duration));
  finished.mutable_finished()->set_straggler(straggler);
  return finished;
}

}  // namespace fabricpulse::coordinator
