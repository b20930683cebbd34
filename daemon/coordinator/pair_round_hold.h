// The pairwise matrix's results on their way out of a sweep: a pair can be
// judged against its path class only once every round at its size is in,
// so the rounds of one size are held back, then sent together with their
// pairs measured and flagged (core/pair_matrix.h). Other steps pass at once.
#pragma once

#include <vector>

#include "daemon/core/pair_matrix.h"
#include "daemon/core/path_class.h"
#include "daemon/core/step_merge.h"
#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::coordinator {

class PairRoundHold {
 public:
  // `locations`: every rank's place (index = rank).
  PairRoundHold(int nranks, std::vector<core::RankLocation> locations);

  // Takes one merged step (as a result) and its ranks' timings; returns the
  // results to send now, in step order. Holds at most one size's rounds
  // (nranks rounds, nranks / 2 pairs each).
  std::vector<v1::StepResult> Take(
      const core::MergedStep& merged, v1::StepResult result,
      const std::vector<core::RankStepTiming>& timings);

 private:
  const int nranks_;
  const std::vector<core::RankLocation> locations_;
  std::vector<v1::StepResult> held_;
  // The held rounds' pairs, and which held result each belongs to.
  std::vector<core::PairMeasurement> pairs_;
  std::vector<size_t> owner_;
};

// One measured pair as sent and stored, its nodes from `locations`.
v1::PairResult PairToProto(const core::PairMeasurement& pair,
                           const std::vector<core::RankLocation>& locations);

}  // namespace fabricpulse::coordinator
