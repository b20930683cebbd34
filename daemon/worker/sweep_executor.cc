#include "daemon/worker/sweep_executor.h"

#include "absl/strings/str_cat.h"
#include "daemon/common/spec_convert.h"
#include "daemon/core/byte_size.h"
#include "daemon/core/stats.h"

namespace fabricpulse::worker {

absl::Status ExecuteSteps(backend::Communicator& comm,
                          const std::vector<core::Step>& steps,
                          const core::SweepSpec& spec,
                          const std::atomic<bool>& cancelled,
                          const StepSink& sink, const StepRecording& recording,
                          const LateRankFault& fault) {
  absl::Status reserved =
      comm.Reserve(core::MaxBufferBytes(steps, comm.nranks()));
  if (!reserved.ok()) return reserved;
  backend::RunOptions options;
  options.warmup_iters = spec.warmup_iters;
  options.iters = spec.iters;
  options.adaptive = spec.adaptive;
  options.check = spec.check;
  options.graph = spec.graph;
  options.op_timeout = spec.timeout;
  options.cancelled = &cancelled;
  if (fault.rank == comm.rank()) {
    options.late_entry = fault.delay;
    options.late_every = fault.every;
  }
  for (const core::Step& step : steps) {
    if (cancelled.load()) {
      comm.Abort();
      return absl::AbortedError("sweep aborted");
    }
    uint64_t record = 0;
    if (recording.recorder != nullptr) {
      record = recording.recorder->Begin(
          recording.sweep_id, recording.comm_id, comm.rank(), step.index + 1,
          std::string(core::OpName(step.op)), step.bytes,
          std::string(core::DTypeName(step.dtype)));
    }
    auto outcome = comm.RunStep(step, options);
    if (recording.recorder != nullptr) {
      recording.recorder->Finish(record, outcome.status());
    }
    if (!outcome.ok()) {
      return absl::Status(outcome.status().code(),
                          absl::StrCat("rank ", comm.rank(), " step ",
                                       step.index, " (", core::OpName(step.op),
                                       " ", core::FormatByteSize(step.bytes),
                                       step.in_place ? " in-place" : "",
                                       "): ", outcome.status().message()));
    }
    core::IterationStats stats = core::ComputeStats(outcome->iteration_seconds);
    v1::StepRankEvent result;
    result.set_step_index(step.index);
    *result.mutable_key() = common::StepToProto(step);
    v1::RankTiming* timing = result.mutable_timing();
    timing->set_rank(comm.rank());
    timing->set_mean_seconds(outcome->loop_mean_seconds.value_or(stats.mean));
    timing->set_min_seconds(stats.min);
    timing->set_max_seconds(stats.max);
    if (outcome->timed_one_by_one) {
      timing->set_p50_seconds(stats.p50);
      timing->set_p99_seconds(stats.p99);
    }
    if (outcome->arrival_seconds) {
      timing->set_arrival_seconds(*outcome->arrival_seconds);
    }
    if (options.check) timing->set_wrong(outcome->wrong);
    timing->set_iterations(outcome->iterations);
    if (!sink(result)) return absl::CancelledError("receiver went away");
  }
  return absl::OkStatus();
}

}  // namespace fabricpulse::worker
