// IdleRelease and the cache's last-use bookkeeping: what is dropped when,
// with real time (short quiet periods, waits on conditions with deadlines).
#include "daemon/worker/idle_release.h"

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "daemon/worker/communicator_cache.h"

namespace fabricpulse::worker {
namespace {

// Stands in for a communicator (only broken() is used by the cache).
class StubComm : public backend::Communicator {
 public:
  int rank() const override { return 0; }
  int nranks() const override { return 1; }
  absl::Status Reserve(uint64_t) override { return absl::OkStatus(); }
  absl::StatusOr<backend::StepOutcome> RunStep(
      const core::Step&, const backend::RunOptions&) override {
    return backend::StepOutcome{};
  }
  void TrimBuffers(uint64_t) override {}
  uint64_t buffer_bytes() const override { return 0; }
  absl::StatusOr<std::vector<double>> AgreeMax(
      const std::vector<double>& values, const backend::RunOptions&) override {
    return values;
  }
  bool broken() const override { return false; }
  void Abort() override {}
};

bool WaitFor(const std::function<bool()>& condition, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  absl::Mutex mu;
  absl::MutexLock lock(&mu);
  while (!condition()) {
    if (absl::Now() >= deadline) return false;
    mu.AwaitWithTimeout(absl::Condition::kTrue, absl::Milliseconds(5));
  }
  return true;
}

TEST(CommunicatorCacheTest, TakesOnlyWhatWasUsedBeforeTheCutoff) {
  CommunicatorCache cache(4);
  const absl::Time t0 = absl::FromUnixSeconds(1000);
  cache.Put("a", std::make_shared<StubComm>(), t0);
  cache.Put("b", std::make_shared<StubComm>(), t0 + absl::Seconds(5));
  cache.Touch("a", t0 + absl::Seconds(10));
  EXPECT_EQ(cache.OldestUse(), t0 + absl::Seconds(5));
  EXPECT_EQ(cache.TakeUsedBefore(t0 + absl::Seconds(6)).size(), 1u);
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_NE(cache.Find("a"), nullptr);
  EXPECT_EQ(cache.Find("b"), nullptr);
  EXPECT_TRUE(cache.TakeUsedBefore(t0 + absl::Seconds(10)).empty());
  EXPECT_EQ(cache.TakeUsedBefore(t0 + absl::Seconds(11)).size(), 1u);
  EXPECT_FALSE(cache.OldestUse().has_value());
}

struct Harness {
  CommunicatorCache cache{4};
  std::atomic<int> device_releases{0};
  IdleReleaseHooks Hooks() {
    return IdleReleaseHooks{
        [this](absl::Time cutoff) { cache.TakeUsedBefore(cutoff); },
        [this] { return cache.OldestUse(); },
        [this] {
          ++device_releases;
          return absl::OkStatus();
        }};
  }
};

TEST(IdleReleaseTest, QuietWorkerDropsItsCommunicatorsThenItsDevice) {
  Harness h;
  IdleRelease idle(absl::Milliseconds(200), h.Hooks());
  idle.SweepStarted();
  h.cache.Put("a", std::make_shared<StubComm>());
  const absl::Time ended = absl::Now();
  idle.SweepEnded();
  ASSERT_TRUE(
      WaitFor([&] { return idle.device_releases() == 1; }, absl::Seconds(10)));
  EXPECT_GE(absl::Now() - ended, absl::Milliseconds(200));
  EXPECT_EQ(h.cache.size(), 0u);
  EXPECT_EQ(h.device_releases.load(), 1);
}

TEST(IdleReleaseTest, NothingIsReleasedWhileASweepRuns) {
  Harness h;
  IdleRelease idle(absl::Milliseconds(100), h.Hooks());
  idle.SweepStarted();
  // Cached only once the sweep runs: a pass of the release thread that
  // comes before SweepStarted (this thread descheduled for the quiet
  // period, seen once under load) must find nothing to drop.
  h.cache.Put("a", std::make_shared<StubComm>(), absl::Now() - absl::Hours(1));
  // Five quiet periods with a sweep running: nothing may go.
  EXPECT_FALSE(
      WaitFor([&] { return h.cache.size() == 0; }, absl::Milliseconds(500)));
  EXPECT_EQ(idle.device_releases(), 0);
  h.cache.Touch("a");
  idle.SweepEnded();
  EXPECT_TRUE(
      WaitFor([&] { return idle.device_releases() == 1; }, absl::Seconds(10)));
  EXPECT_EQ(h.cache.size(), 0u);
}

TEST(IdleReleaseTest, ZeroKeepsEverything) {
  Harness h;
  IdleRelease idle(absl::ZeroDuration(), h.Hooks());
  idle.SweepStarted();
  h.cache.Put("a", std::make_shared<StubComm>(), absl::Now() - absl::Hours(1));
  idle.SweepEnded();
  EXPECT_FALSE(
      WaitFor([&] { return h.cache.size() == 0; }, absl::Milliseconds(100)));
  EXPECT_EQ(idle.device_releases(), 0);
}

TEST(IdleReleaseTest, AFailedDeviceReleaseIsRetriedAfterAnotherQuietPeriod) {
  CommunicatorCache cache(4);
  std::atomic<int> attempts{0};
  IdleRelease idle(
      absl::Milliseconds(100),
      IdleReleaseHooks{[&](absl::Time cutoff) { cache.TakeUsedBefore(cutoff); },
                       [&] { return cache.OldestUse(); },
                       [&]() -> absl::Status {
                         if (++attempts == 1) {
                           return absl::FailedPreconditionError("busy");
                         }
                         return absl::OkStatus();
                       }});
  idle.SweepStarted();
  idle.SweepEnded();
  ASSERT_TRUE(
      WaitFor([&] { return idle.device_releases() == 1; }, absl::Seconds(10)));
  EXPECT_EQ(attempts.load(), 2);
}

}  // namespace
}  // namespace fabricpulse::worker
