#include "daemon/core/adaptive_loop.h"

#include <numeric>

#include "absl/strings/str_cat.h"

namespace fabricpulse::core {

absl::StatusOr<AdaptiveRun> RunAdaptiveBatches(
    const AdaptiveIters& adaptive, bool batch_means, double resolution_seconds,
    const TimedBatch& batch, const AgreeMaxFn& agree, Clock& clock) {
  AdaptiveRun run;
  std::vector<double> means;  // one per batch
  // Every iteration but the first of each batch: the first op of a timed
  // loop starts on a drained stream, which can offset it systematically
  // (on a GPU: the host's launch where nothing covers it, or a kernel's
  // faster start after an idle GPU), not the ops' own spread; left in the
  // interval, it alone can keep a 1 % tolerance out of reach at min_iters.
  // The mean and the percentiles keep every iteration.
  std::vector<double> steady;
  std::vector<double> seconds;
  const absl::Time start = clock.Now();
  int next = adaptive.min_iters;
  while (true) {
    absl::Status ran = batch(next, &seconds);
    if (!ran.ok()) return ran;
    if (static_cast<int>(seconds.size()) != next) {
      return absl::InternalError(absl::StrCat(
          "adaptive batch of ", next, " iterations timed ", seconds.size()));
    }
    run.seconds.insert(run.seconds.end(), seconds.begin(), seconds.end());
    steady.insert(steady.end(), seconds.begin() + (next >= 2 ? 1 : 0),
                  seconds.end());
    means.push_back(std::accumulate(seconds.begin(), seconds.end(), 0.0) /
                    next);
    run.iterations += next;
    run.batches++;

    BatchProposal mine;
    mine.relative_half_width =
        RelativeHalfWidth(batch_means ? means : steady, resolution_seconds);
    mine.elapsed_seconds = absl::ToDoubleSeconds(clock.Now() - start);
    mine.seconds_per_iteration = mine.elapsed_seconds / run.iterations;
    absl::StatusOr<std::vector<double>> agreed = agree(ProposalToValues(mine));
    if (!agreed.ok()) return agreed.status();
    const BatchDecision decision = DecideNextBatch(
        adaptive, run.iterations, batch_means, ProposalFromValues(*agreed));
    if (decision.reason != StopReason::kContinue) {
      run.reason = decision.reason;
      return run;
    }
    next = decision.next_batch;
  }
}

}  // namespace fabricpulse::core
