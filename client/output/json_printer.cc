#include "client/output/json_printer.h"

#include "client/output/sweep_json.h"

namespace fabricpulse::client {

JsonPrinter::JsonPrinter(const OutputOptions& options, std::ostream& out)
    : options_(options), out_(out) {}

void JsonPrinter::Describe(const SweepContext& context) { context_ = context; }

void JsonPrinter::Begin(const v1::SweepSpec& spec,
                        const v1::SweepStarted& started) {
  spec_ = spec;
  started_ = started;
}

void JsonPrinter::CommReady(const v1::SweepCommReady& ready) { ready_ = ready; }

void JsonPrinter::Add(const v1::StepResult& result) {
  results_.push_back(result);
}

void JsonPrinter::Finish(const v1::SweepFinished& finished) {
  SweepDocument doc;
  if (context_.summary) doc.sweep = *context_.summary;
  v1::SweepSummary& s = doc.sweep;
  // What the stream said wins over the history's copy of it.
  s.set_sweep_id(finished.sweep_id().empty() ? started_.sweep_id()
                                             : finished.sweep_id());
  s.set_status(finished.status());
  s.set_error(finished.error());
  s.set_straggler(finished.straggler());
  s.set_nranks(started_.nranks());
  s.mutable_nodes()->CopyFrom(started_.nodes());
  s.set_backend(started_.backend());
  if (!started_.plan().empty()) s.set_plan(started_.plan());
  *s.mutable_spec() = spec_;
  if (started_.ranks_size() > 0) s.mutable_ranks()->CopyFrom(started_.ranks());
  s.set_comm_reused(ready_ && ready_->reused());
  s.set_comm_init_seconds(ready_ ? ready_->init_seconds() : 0);
  s.set_steps(static_cast<int>(results_.size()));
  int regressions = 0;
  for (const v1::StepResult& r : results_) regressions += r.regression();
  s.set_regressions(regressions);
  if (finished.duration_seconds() > 0) {
    doc.duration_seconds = finished.duration_seconds();
  }
  doc.pids = context_.pids;
  doc.steps = results_;
  out_ << SweepsJson({doc}, options_);
  out_.flush();
}

}  // namespace fabricpulse::client
