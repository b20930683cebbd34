// The seam between FabricPulse and a collective library: GlooBackend (CPU,
// TCP) and NcclBackend (GPU). A worker owns one backend and a few cached
// communicators.
#pragma once

#include <algorithm>
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "daemon/backend/key_value_store.h"
#include "daemon/core/adaptive_iters.h"
#include "daemon/core/sweep_spec.h"

namespace fabricpulse::backend {

struct CommunicatorOptions {
  int rank = 0;
  int nranks = 1;
  // Unique per communicator; every key the rendezvous writes starts with it.
  std::string key_prefix;
  // Bound on the whole rendezvous.
  absl::Duration init_timeout = absl::Seconds(60);
};

// Per-iteration timings of one step on this rank, and the data check.
struct StepOutcome {
  std::vector<double> iteration_seconds;
  // False when the iterations were timed as one batch (CUDA-graph mode, or
  // per-iteration timing turned off): iteration_seconds then holds the mean
  // for each iteration, and percentiles were not measured.
  bool timed_one_by_one = true;
  // Set when the mean comes from a loop timed as a whole (no event between
  // ops, nccl-tests' method) and iteration_seconds from a second loop timed
  // one by one, for the percentiles (short ops, where the events' own cost
  // would show in the mean). Absent: the mean of iteration_seconds.
  std::optional<double> loop_mean_seconds;
  // Mean over the timed iterations of when this rank entered the op, from
  // the step's start the ranks share (the barrier or the warm-ups' last
  // collective completing); absent when there is no shared start.
  std::optional<double> arrival_seconds;
  int64_t wrong = 0;  // wrong output elements (0 when not checked)
  // Timed iterations run: RunOptions::iters, or in adaptive mode what the
  // stop rule chose (the same on every rank). iteration_seconds has one
  // entry per iteration either way.
  int iterations = 0;
};

// What one step run needs besides the step itself.
struct RunOptions {
  int warmup_iters = 0;
  int iters = 1;  // ignored when adaptive.enabled
  // Adaptive iteration counts: after the warm-ups, batches of timed
  // iterations until core::DecideNextBatch stops, agreed between the ranks
  // with AgreeMax after each batch (core::RunAdaptiveBatches). Not with
  // graph (core::ValidateAdaptive refuses the pair).
  core::AdaptiveIters adaptive;
  bool check = false;
  bool graph = false;
  // Deadline for each op (warmups and timed iterations alike).
  absl::Duration op_timeout = absl::Seconds(30);
  // Set from another thread to abort; checked between ops, and by backends
  // that poll, while an op runs.
  const std::atomic<bool>* cancelled = nullptr;
  // Fault injection (worker::LateRankFault): wait `late_entry` before
  // entering every `late_every`-th timed op (the 1st, 1 + late_every-th,
  // ...; 1: each). Zero in production.
  absl::Duration late_entry = absl::ZeroDuration();
  int late_every = 1;
};

// Most values one AgreeMax takes.
inline constexpr int kMaxAgreeValues = 16;

// One communicator: a fixed set of ranks. Not thread-safe except Abort().
class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int nranks() const = 0;
  // Allocates buffers able to hold every step of a sweep (`max_bytes` from
  // core::MaxBufferBytes). Errors: RESOURCE_EXHAUSTED too large.
  virtual absl::Status Reserve(uint64_t max_bytes) = 0;
  // Runs warmups then timed iterations of `step`, then checks the data if
  // asked. Every rank of the communicator must call it with the same step.
  // Errors: DEADLINE_EXCEEDED an op passed its deadline; UNAVAILABLE a peer
  // was lost; ABORTED cancelled; INVALID_ARGUMENT the step is not
  // supported. After any error the communicator is unusable (broken()).
  //
  // In adaptive mode (options.adaptive.enabled) the timed iterations run in
  // batches, each followed by one AgreeMax on this communicator, until the
  // stop rule stops all ranks at once; the warm-ups, the shared start of
  // the arrival stamps and the data check (once, at the end) are as in
  // fixed mode.
  virtual absl::StatusOr<StepOutcome> RunStep(const core::Step& step,
                                              const RunOptions& options) = 0;
  // Frees the sweep buffers unless they hold at most `keep_bytes` (the
  // worker's buffer budget); the next step allocates them again.
  virtual void TrimBuffers(uint64_t keep_bytes) = 0;
  // Bytes of sweep buffers held now.
  virtual uint64_t buffer_bytes() const = 0;
  // The element-wise maximum of `values` over every rank (an all-reduce MAX
  // of doubles): how the ranks agree on a decision each makes from its own
  // measurements. Every rank must call it with the same number of values
  // (1 to kMaxAgreeValues), in the same order relative to its other
  // collectives. Bounded by options.op_timeout; ends early on Abort() or
  // options.cancelled. Errors: INVALID_ARGUMENT a bad count (the
  // communicator stays usable); DEADLINE_EXCEEDED, UNAVAILABLE, ABORTED and
  // FAILED_PRECONDITION as RunStep (and it then is broken()).
  virtual absl::StatusOr<std::vector<double>> AgreeMax(
      const std::vector<double>& values, const RunOptions& options) = 0;
  // True once an error or abort made the communicator unusable.
  virtual bool broken() const = 0;
  // Aborts outstanding work from any thread; never blocks long.
  virtual void Abort() = 0;
};

// AgreeMax's argument checks, shared by the backends. Errors:
// INVALID_ARGUMENT naming the bad count or timeout.
inline absl::Status CheckAgreeMaxArgs(const std::vector<double>& values,
                                      const RunOptions& options) {
  if (values.empty() || values.size() > kMaxAgreeValues) {
    return absl::InvalidArgumentError(absl::StrCat("AgreeMax: ", values.size(),
                                                   " values; allowed: 1 to ",
                                                   kMaxAgreeValues));
  }
  if (options.op_timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("AgreeMax: op_timeout must be positive; got ",
                     absl::FormatDuration(options.op_timeout)));
  }
  return absl::OkStatus();
}

// Whether RunOptions' fault injection delays timed iteration `i`.
inline bool EntersLate(const RunOptions& options, int i) {
  return options.late_entry > absl::ZeroDuration() &&
         i % std::max(options.late_every, 1) == 0;
}

class CollectiveBackend {
 public:
  virtual ~CollectiveBackend() = default;
  // "gloo" or "nccl".
  virtual std::string name() const = 0;
  // Library version, e.g. "gloo 0.5.0" or "nccl 2.28.9".
  virtual std::string version() const = 0;
  // Rendezvous with the other ranks through `store` and build a
  // communicator. Errors: DEADLINE_EXCEEDED peers did not arrive within
  // options.init_timeout; UNAVAILABLE transport failure.
  virtual absl::StatusOr<std::unique_ptr<Communicator>> CreateCommunicator(
      const CommunicatorOptions& options, KeyValueStore* store) = 0;
  // Drops what the backend holds on its device once no communicator is
  // alive (NCCL: the CUDA context, so that the process holds no GPU
  // memory); the next CreateCommunicator builds it again. Not thread-safe
  // with CreateCommunicator. Default: nothing is held.
  virtual absl::Status ReleaseDevice() { return absl::OkStatus(); }
};

}  // namespace fabricpulse::backend
