#include "tests/integration/history_seed.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace fabricpulse::testing {

void SeedHistoryCopies(const std::string& db, const std::string& id,
                       const std::string& tag, const SeedOptions& options) {
  auto history = coordinator::HistoryStore::Open(db);
  ASSERT_TRUE(history.ok()) << history.status();
  auto real = (*history)->GetSweep(id);
  ASSERT_TRUE(real.ok()) << real.status();
  ASSERT_EQ(real->sweep.status, coordinator::kSweepSucceeded);
  ASSERT_FALSE(real->steps.empty());
  for (int i = 0; i < options.copies; ++i) {
    coordinator::SweepRecord copy = real->sweep;
    copy.id = absl::StrCat(tag, "-", i);
    copy.started = options.first_start + i * options.spacing;
    if (options.edit) options.edit(copy);
    ASSERT_TRUE((*history)->BeginSweep(copy).ok());
    for (coordinator::StepRecord step : real->steps) {
      step.sweep_id = copy.id;
      step.time_seconds *= options.time_factor;
      step.busbw /= options.time_factor;
      step.algbw /= options.time_factor;
      ASSERT_TRUE((*history)->AddStep(step).ok());
    }
    ASSERT_TRUE((*history)
                    ->FinishSweep(copy.id, coordinator::kSweepSucceeded, "", "",
                                  copy.started + absl::Seconds(1))
                    .ok());
  }
}

}  // namespace fabricpulse::testing
