#include "daemon/coordinator/auto_isolator.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/common/isolation_measure.h"
#include "daemon/common/spec_convert.h"
#include "daemon/coordinator/busy_gpus.h"
#include "daemon/core/log.h"
#include "daemon/core/status_macros.h"

namespace fabricpulse::coordinator {
namespace {

// The parent plan's settings (dtype, iterations, timeout, check) at the
// one op and size; root 0, since a set of two nodes may have fewer ranks.
core::SweepSpec RoundSpec(const core::SweepSpec& parent, const std::string& op,
                          uint64_t bytes, bool in_place) {
  core::SweepSpec spec = parent;
  spec.ops = {op};
  spec.min_bytes = bytes;
  spec.max_bytes = bytes;
  spec.step_bytes = 0;
  spec.max_bytes_auto = core::MaxBytesAuto();
  spec.placement = in_place ? "in_place" : "out_of_place";
  spec.root = 0;
  spec.fresh_comm = false;
  if (op == "pairwise") spec.graph = false;
  return spec;
}

}  // namespace

std::vector<IsolationRoundRecord> RoundRecords(
    const core::IsolationReport& report) {
  std::vector<IsolationRoundRecord> rounds;
  for (const core::IsolationRound& r : report.rounds) {
    rounds.push_back({r.role, r.nodes, r.result.ok, r.result.busbw,
                      r.result.error, r.result.sweep_id});
  }
  return rounds;
}

AutoIsolator::AutoIsolator(const core::CoordinatorConfig* config,
                           SweepLauncher launch, HistoryStore* history,
                           CoordinatorMetrics* metrics, core::Clock* clock,
                           AutoIsolatorOptions options)
    : config_(config),
      launch_(std::move(launch)),
      history_(history),
      metrics_(metrics),
      clock_(clock),
      options_(options) {}

AutoIsolator::~AutoIsolator() { Stop(); }

void AutoIsolator::RequestStop() {
  absl::MutexLock lock(&mu_);
  stopping_ = true;
}

void AutoIsolator::Stop() {
  std::thread thread;
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    thread = std::move(thread_);
  }
  if (thread.joinable()) thread.join();
}

bool AutoIsolator::WaitIdle(absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  auto idle = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !busy_; };
  return mu_.AwaitWithTimeout(absl::Condition(&idle), timeout);
}

void AutoIsolator::Save(const IsolationRecord& record) {
  absl::Status saved = history_->SaveIsolation(record);
  if (!saved.ok()) {
    FP_LOG_ERROR(absl::StrCat("history: isolation of sweep ", record.sweep_id,
                              ": ", saved.message()));
  }
}

void AutoIsolator::OnSweepEnd(const SweepEnd& end) {
  const auto plan = config_->plans.find(end.plan);
  if (plan == config_->plans.end()) return;  // ad hoc: no isolate_on
  std::optional<IsolationStart> start =
      IsolationStartFor(end, plan->second.isolate_on);
  if (!start) return;
  IsolationRecord record;
  record.sweep_id = end.sweep_id;
  record.plan = end.plan;
  record.cause = start->cause;
  record.op = start->step.op;
  record.bytes = start->step.bytes;
  record.started = clock_->Now();
  std::thread finished;
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return;
    if (busy_) {
      record.finished = record.started;
      record.verdict = kIsolationSkipped;
      record.summary =
          absl::StrCat("skipped: the isolation after sweep ", running_parent_,
                       " was running (one at a time)");
    } else {
      busy_ = true;
      running_parent_ = end.sweep_id;
      finished = std::move(thread_);  // ended: busy_ was false
      record.verdict = kIsolationRunning;
      Job job{end, *start, plan->second.spec};
      thread_ = std::thread([this, job] { Run(job); });
    }
  }
  if (finished.joinable()) finished.join();
  if (record.verdict == kIsolationSkipped) {
    Save(record);
    metrics_->IsolationFinished(record.plan, record.verdict);
    FP_LOG_INFO(
        absl::StrCat("sweep ", end.sweep_id, ": isolation ", record.summary));
  }
}

absl::StatusOr<AutoIsolator::Collected> AutoIsolator::Measure(
    const core::SweepSpec& spec, const std::vector<std::string>& nodes,
    const std::string& trigger) {
  v1::SweepRequest request;
  *request.mutable_spec() = common::SpecToProto(spec);
  for (const std::string& n : nodes) request.add_nodes(n);
  const absl::Time give_up = clock_->Now() + options_.busy_wait;
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) {
        return absl::CancelledError("the coordinator is shutting down");
      }
    }
    Collected c;
    absl::Status status =
        launch_(request, trigger, [&c](const v1::SweepEvent& event) {
          if (event.has_started()) c.sweep_id = event.started().sweep_id();
          if (event.has_result()) c.results.push_back(event.result());
          return true;
        });
    // Refused (members or GPUs busy) or yielded to a foreign process.
    const bool busy = (c.sweep_id.empty() &&
                       status.code() == absl::StatusCode::kResourceExhausted) ||
                      IsPreempted(status);
    if (status.code() == absl::StatusCode::kAborted) {
      // An operator's abort (or the shutdown's) is no evidence.
      return absl::AbortedError(
          absl::StrCat("sweep ", c.sweep_id, " aborted: ", status.message()));
    }
    if (!busy) {
      if (c.sweep_id.empty()) {
        return status.ok() ? absl::InternalError("the sweep never started")
                           : status;
      }
      c.status = status;
      return c;
    }
    const absl::Time retry = clock_->Now() + options_.busy_retry;
    if (retry > give_up) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "gave way for ", absl::FormatDuration(options_.busy_wait),
          " and gave up: ", status.message()));
    }
    absl::MutexLock lock(&mu_);
    clock_->AwaitWithDeadline(&mu_, absl::Condition(&stopping_), retry);
  }
}

void AutoIsolator::Run(const Job& job) {
  IsolationRecord record;
  record.sweep_id = job.end.sweep_id;
  record.plan = job.end.plan;
  record.cause = job.start.cause;
  record.op = job.start.step.op;
  record.bytes = job.start.step.bytes;
  record.started = clock_->Now();
  record.verdict = kIsolationRunning;
  Save(record);
  FP_LOG_INFO(absl::StrCat("sweep ", job.end.sweep_id, " (plan ", job.end.plan,
                           "): ", job.start.cause, ", isolating on ",
                           absl::StrJoin(job.end.nodes, ","), " with ",
                           job.start.step.op, " ", job.start.step.bytes, " B"));
  const std::string trigger =
      absl::StrCat(kIsolationTriggerPrefix, job.end.sweep_id);
  const core::SweepSpec collective =
      RoundSpec(job.spec, job.start.step.op, job.start.step.bytes,
                job.start.step.in_place);
  const core::SweepSpec pairwise =
      RoundSpec(job.spec, "pairwise", job.start.step.bytes, false);
  core::IsolationProbe probe;
  probe.collective = [&](const std::vector<std::string>& set)
      -> absl::StatusOr<core::SetMeasurement> {
    FP_ASSIGN_OR_RETURN(Collected c, Measure(collective, set, trigger));
    return common::SetMeasurementOf(c.sweep_id, c.status, c.results);
  };
  probe.pairwise = [&](const std::vector<std::string>& set)
      -> absl::StatusOr<std::vector<core::NodePairMeasurement>> {
    FP_ASSIGN_OR_RETURN(Collected c, Measure(pairwise, set, trigger));
    return common::NodePairsOf(set, c.status, c.results);
  };
  absl::StatusOr<core::IsolationReport> report =
      core::Isolate(job.end.nodes, probe);
  record.finished = clock_->Now();
  if (report.ok()) {
    record.verdict = report->verdict;
    record.culprits = report->culprits;
    record.summary = report->summary;
    record.rounds = RoundRecords(*report);
  } else {
    const absl::StatusCode code = report.status().code();
    record.verdict = code == absl::StatusCode::kCancelled ||
                             code == absl::StatusCode::kAborted
                         ? kIsolationInterrupted
                         : kIsolationGaveUp;
    record.summary = std::string(report.status().message());
  }
  Save(record);
  metrics_->IsolationFinished(record.plan, record.verdict);
  FP_LOG_INFO(absl::StrCat("sweep ", job.end.sweep_id, ": isolation ",
                           record.verdict, ": ", record.summary));
  absl::MutexLock lock(&mu_);
  busy_ = false;
  running_parent_.clear();
}

}  // namespace fabricpulse::coordinator
