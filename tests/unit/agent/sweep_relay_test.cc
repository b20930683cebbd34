// The agent's sweep relay over fake workers and fake time: events passed on
// unchanged, a worker that is not ready, a failing rank, the sweep lease,
// a stopped worker killed after the grace, the coordinator's cancellation;
// and the agent's abort and flight-record fan-outs.
#include "daemon/agent/sweep_relay.h"

#include <atomic>
#include <optional>
#include <thread>

#include "absl/synchronization/notification.h"
#include "daemon/agent/worker_fan_out.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_clock.h"
#include "tests/fakes/fake_workers.h"

namespace fabricpulse::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Mode = fakes::FakeWorkerClient::Mode;

class SweepRelayTest : public ::testing::Test {
 protected:
  SweepRelayTest() : workers_(2) {
    request_.set_sweep_id("s1");
    request_.set_comm_id("c1");
    request_.set_nranks(4);
    request_.set_coordinator("coordinator:1");
    request_.set_lease_seconds(5);
    for (int i = 0; i < 2; ++i) {
      v1::RankAssignment* a = request_.add_ranks();
      a->set_local_index(i);
      a->set_rank(2 + i);
    }
    // The coordinator answered a heartbeat listing the sweep just now.
    contact_.HeartbeatAnswered(clock_.Now(), 1, "s1");
  }

  // Runs the relay on its own thread; its events and status are kept.
  void Start(std::function<StopCause()> stop = [] {
    return StopCause::kNone;
  }) {
    thread_ = std::thread([this, stop] {
      SweepRelay relay(request_, "node-a", &workers_, &contact_, &clock_);
      if (yield_) relay.YieldWhen(yield_);
      status_ = relay.Run(
          [this](const v1::RankEvent& e) {
            events_.push_back(e);
            return true;
          },
          stop);
      done_.Notify();
    });
  }
  // Moves fake time from one awaited deadline to the next (the relay looks
  // every 100 ms) while the relay runs, until `limit` of fake time has
  // passed; whether it ended.
  bool AdvanceUntilDone(absl::Duration limit) {
    const absl::Time real_deadline = absl::Now() + absl::Seconds(30);
    const absl::Time start = clock_.Now();
    while (!done_.HasBeenNotified() && clock_.Now() - start <= limit &&
           absl::Now() < real_deadline) {
      if (!clock_.AdvanceToNextDeadline()) std::this_thread::yield();
    }
    const bool done = done_.WaitForNotificationWithTimeout(absl::Seconds(10));
    if (thread_.joinable()) thread_.join();
    return done;
  }

  v1::AgentSweepRequest request_;
  fakes::FakeClock clock_;
  fakes::FakeLocalWorkers workers_;
  CoordinatorContact contact_;
  std::thread thread_;
  absl::Notification done_;
  absl::Status status_;
  std::vector<v1::RankEvent> events_;
  // Set before Start(): the relay's yield check (SweepRelay::YieldWhen).
  std::function<std::optional<v1::PreemptedEvent>()> yield_;
};

TEST_F(SweepRelayTest, PassesEveryRanksEventsOnUnchanged) {
  Start();
  ASSERT_TRUE(AdvanceUntilDone(absl::Seconds(1)));
  ASSERT_TRUE(status_.ok()) << status_;
  ASSERT_EQ(events_.size(), 8u);  // 2 ranks x (comm_ready + 3 steps)
  EXPECT_EQ(events_[0].comm_ready().rank(), 2);
  EXPECT_EQ(events_[1].step().timing().rank(), 2);
  EXPECT_EQ(events_[4].comm_ready().rank(), 3);
  const auto sent = workers_.worker(1).sweeps();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].rank(), 3);
  EXPECT_EQ(sent[0].nranks(), 4);
  EXPECT_EQ(sent[0].comm_id(), "c1");
  EXPECT_EQ(sent[0].coordinator(), "coordinator:1");
  EXPECT_EQ(workers_.worker(0).abort_calls(), 0);
}

TEST_F(SweepRelayTest, RefusesWhenAListedWorkerIsNotReady) {
  workers_.SetReady(1, false);
  SweepRelay relay(request_, "node-a", &workers_, &contact_, &clock_);
  absl::Status status = relay.Run([](const v1::RankEvent&) { return true; },
                                  [] { return StopCause::kNone; });
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(status.message(),
              HasSubstr("node node-a worker 1 (rank 3) is not ready"));
  EXPECT_TRUE(workers_.worker(0).sweeps().empty());  // nothing started
}

TEST_F(SweepRelayTest, AbortsTheOtherRanksWhenOneDies) {
  workers_.worker(0).Set(Mode::kHang);
  workers_.worker(1).Set(Mode::kFail, 0, absl::UnavailableError("EOF"));
  Start();
  ASSERT_TRUE(AdvanceUntilDone(absl::Seconds(5)));
  EXPECT_EQ(status_.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(status_.message(),
              HasSubstr("rank 3 on node node-a: worker unreachable or died: "
                        "EOF"));
  EXPECT_EQ(workers_.worker(0).abort_calls(), 1);
  EXPECT_FALSE(workers_.worker(0).streaming());
  EXPECT_TRUE(workers_.kills().empty());  // it answered the abort
}

TEST_F(SweepRelayTest, AbortsWhenTheSweepLeaseRunsOut) {
  workers_.worker(0).Set(Mode::kHang);
  workers_.worker(1).Set(Mode::kHang);
  Start();
  // No heartbeat is answered after the first: the 5 s lease runs out.
  ASSERT_TRUE(AdvanceUntilDone(absl::Seconds(8)));
  EXPECT_EQ(status_.code(), absl::StatusCode::kUnavailable) << status_;
  EXPECT_EQ(workers_.worker(0).abort_calls(), 1);
  EXPECT_EQ(workers_.worker(1).abort_calls(), 1);
  EXPECT_TRUE(workers_.kills().empty());
}

TEST_F(SweepRelayTest, HoldsTheLeaseWhileHeartbeatsListTheSweep) {
  workers_.worker(0).Set(Mode::kHang);
  workers_.worker(1).Set(Mode::kComplete);
  Start();
  // 20 s of fake time with a heartbeat answered every second.
  for (int s = 1; s <= 20; ++s) {
    ASSERT_TRUE(clock_.WaitForWaiter());
    clock_.Advance(absl::Seconds(1));
    contact_.HeartbeatAnswered(clock_.Now(), 1, "s1");
  }
  EXPECT_FALSE(done_.HasBeenNotified());
  EXPECT_EQ(workers_.worker(0).abort_calls(), 0);
  workers_.worker(0).Die();
  ASSERT_TRUE(AdvanceUntilDone(absl::Seconds(1)));
  EXPECT_EQ(status_.code(), absl::StatusCode::kUnavailable);
}

TEST_F(SweepRelayTest, KillsAStoppedWorkerAfterTheGrace) {
  workers_.worker(0).Set(Mode::kStopped);
  workers_.worker(1).Set(Mode::kFail, 0, absl::InternalError("nccl error"));
  Start();
  ASSERT_TRUE(AdvanceUntilDone(absl::Seconds(5)));
  EXPECT_EQ(status_.code(), absl::StatusCode::kInternal) << status_;
  const auto kills = workers_.kills();
  ASSERT_EQ(kills.size(), 1u);
  EXPECT_THAT(kills[0], HasSubstr("rank 2 did not return within 2s of the "
                                  "abort (stopped or stuck)"));
  // A local failure caused the abort: the kill is a fault.
  EXPECT_THAT(workers_.kill_causes(), ElementsAre(KillCause::kFault));
  EXPECT_FALSE(workers_.worker(0).streaming());
}

// Issue 29, item 1: one rank, its worker stopped mid-step (it answers
// nothing, and no peer's error will come). --timeout bounds one op, so the
// relay fails the sweep once the worker has answered no ping for the op
// timeout plus one call's bound, and kills it after the grace: 5 s + 1 s +
// 2 s (+ the 0.5 s ping period), not timeout x iterations.
TEST_F(SweepRelayTest, AStoppedWorkerFailsTheSweepWithinTheOpTimeout) {
  request_.mutable_ranks()->RemoveLast();
  request_.mutable_spec()->set_timeout_seconds(5);
  request_.mutable_spec()->set_iters(100000);
  request_.set_lease_seconds(3600);  // the lease is not what ends it
  workers_.worker(0).Set(Mode::kStopped);
  const absl::Time start = clock_.Now();
  Start();
  ASSERT_TRUE(AdvanceUntilDone(absl::Seconds(20)));
  EXPECT_LE(clock_.Now() - start, absl::Seconds(9));
  EXPECT_EQ(status_.code(), absl::StatusCode::kDeadlineExceeded) << status_;
  EXPECT_THAT(status_.message(),
              HasSubstr("rank 2 on node node-a: worker 0 answered nothing "
                        "for 6."));
  EXPECT_THAT(status_.message(), HasSubstr("per-op timeout 5 s"));
  EXPECT_THAT(workers_.kill_causes(), ElementsAre(KillCause::kFault));
  EXPECT_GE(workers_.worker(0).ping_calls(), 1);
}

// Its healthy opposite: a step far longer than the op timeout (a worker
// that answers its pings, never finishing within the 60 s watched) is left
// alone.
TEST_F(SweepRelayTest, ALongStepOfAWorkerThatAnswersIsNotHung) {
  request_.mutable_spec()->set_timeout_seconds(5);
  request_.set_lease_seconds(3600);
  workers_.worker(0).Set(Mode::kHang);
  workers_.worker(1).Set(Mode::kHang);
  Start();
  const absl::Time start = clock_.Now();
  while (clock_.Now() - start < absl::Seconds(60)) {
    ASSERT_TRUE(clock_.WaitForWaiter());
    clock_.Advance(absl::Milliseconds(100));
  }
  EXPECT_FALSE(done_.HasBeenNotified());
  EXPECT_EQ(workers_.worker(0).abort_calls(), 0);
  EXPECT_GE(workers_.worker(0).ping_calls(), 100);
  workers_.worker(0).Die();
  ASSERT_TRUE(AdvanceUntilDone(absl::Seconds(5)));
  EXPECT_EQ(status_.code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(workers_.kills().empty());
}

// The same stuck worker after an operator's abort: killed, but not as a
// fault (its respawn is no restart).
TEST_F(SweepRelayTest, AWorkerKilledAfterARequestedAbortIsNoFault) {
  workers_.worker(0).Set(Mode::kStopped);
  workers_.worker(1).Set(Mode::kHang);
  std::atomic<bool> asked{false};
  Start([&asked] {
    return asked.load() ? StopCause::kRequest : StopCause::kNone;
  });
  ASSERT_TRUE(clock_.WaitForWaiter());  // streams started, relay waiting
  asked = true;
  ASSERT_TRUE(AdvanceUntilDone(absl::Seconds(5)));
  EXPECT_FALSE(status_.ok());
  const auto kills = workers_.kills();
  ASSERT_EQ(kills.size(), 1u);
  EXPECT_THAT(kills[0], HasSubstr("the abort was requested: not counted"));
  EXPECT_THAT(workers_.kill_causes(), ElementsAre(KillCause::kAbortRequested));
}

// The coordinator's requested abort reaches a worker before the relay sees
// the request: that rank ends ABORTED, which is no failure of its own.
TEST_F(SweepRelayTest, ARankAbortedByTheRequestIsNoLocalFault) {
  workers_.worker(0).Set(Mode::kStopped);
  workers_.worker(1).Set(Mode::kFail, 0, absl::AbortedError("aborted"));
  Start([] { return StopCause::kRequest; });
  ASSERT_TRUE(AdvanceUntilDone(absl::Seconds(5)));
  EXPECT_THAT(workers_.kill_causes(), ElementsAre(KillCause::kAbortRequested));
}

// A rank that really failed here makes the kill a fault, even when the
// operator's abort request comes too.
TEST_F(SweepRelayTest, ALocalFailureKeepsTheKillAFault) {
  workers_.worker(0).Set(Mode::kStopped);
  workers_.worker(1).Set(Mode::kFail, 0, absl::InternalError("nccl error"));
  std::atomic<bool> asked{false};
  Start([&asked] {
    return asked.load() ? StopCause::kRequest : StopCause::kNone;
  });
  ASSERT_TRUE(clock_.WaitForWaiter());  // the failure is in, the abort sent
  asked = true;
  ASSERT_TRUE(AdvanceUntilDone(absl::Seconds(5)));
  EXPECT_THAT(workers_.kill_causes(), ElementsAre(KillCause::kFault));
}

// The coordinator's abort after a failure elsewhere (a stopped rank on
// this node made its peers time out): the kill stays a fault.
TEST_F(SweepRelayTest, AWorkerKilledAfterAFailureAbortIsAFault) {
  workers_.worker(0).Set(Mode::kStopped);
  workers_.worker(1).Set(Mode::kHang);
  std::atomic<bool> asked{false};
  Start([&asked] {
    return asked.load() ? StopCause::kFailure : StopCause::kNone;
  });
  ASSERT_TRUE(clock_.WaitForWaiter());
  asked = true;
  ASSERT_TRUE(AdvanceUntilDone(absl::Seconds(5)));
  EXPECT_THAT(workers_.kill_causes(), ElementsAre(KillCause::kFault));
}

TEST_F(SweepRelayTest, EndsOnTheCoordinatorsCancellation) {
  workers_.worker(0).Set(Mode::kHang);
  workers_.worker(1).Set(Mode::kHang);
  std::atomic<bool> cancelled{false};
  Start([&cancelled] {
    return cancelled.load() ? StopCause::kFailure : StopCause::kNone;
  });
  ASSERT_TRUE(clock_.WaitForWaiter());  // streams started, relay waiting
  cancelled = true;
  ASSERT_TRUE(AdvanceUntilDone(absl::Seconds(1)));
  EXPECT_EQ(status_.code(), absl::StatusCode::kAborted) << status_;
  EXPECT_EQ(workers_.worker(0).abort_calls(), 1);
  EXPECT_TRUE(workers_.kills().empty());
}

// A foreign process appears on GPU 1 mid-sweep: the coordinator hears it
// first (a `preempted` event, then nothing more), the ranks are aborted as
// on an operator's request (a stuck one is killed, no fault), and the
// relay ends RESOURCE_EXHAUSTED.
TEST_F(SweepRelayTest, YieldsToAForeignProcessTellingTheCoordinatorFirst) {
  workers_.worker(0).Set(Mode::kStopped);
  workers_.worker(1).Set(Mode::kHang);
  std::atomic<bool> appeared{false};
  yield_ = [&appeared]() -> std::optional<v1::PreemptedEvent> {
    if (!appeared) return std::nullopt;
    v1::PreemptedEvent event;
    event.set_gpu(1);
    event.set_other_processes(2);
    event.set_local_index(1);
    return event;
  };
  Start();
  ASSERT_TRUE(clock_.WaitForWaiter());  // streams started, relay waiting
  appeared = true;
  ASSERT_TRUE(AdvanceUntilDone(absl::Seconds(5)));
  EXPECT_EQ(status_.code(), absl::StatusCode::kResourceExhausted) << status_;
  EXPECT_THAT(status_.message(), HasSubstr("preempted: node node-a GPU 1: 2"));
  ASSERT_FALSE(events_.empty());
  EXPECT_TRUE(events_.back().has_preempted());
  EXPECT_EQ(events_.back().preempted().gpu(), 1);
  int preempted = 0;
  for (const v1::RankEvent& e : events_) preempted += e.has_preempted();
  EXPECT_EQ(preempted, 1);
  EXPECT_EQ(workers_.worker(1).abort_calls(), 1);
  EXPECT_THAT(workers_.kill_causes(), ElementsAre(KillCause::kAbortRequested));
}

TEST_F(SweepRelayTest, NoForeignProcessNoYield) {
  yield_ = []() -> std::optional<v1::PreemptedEvent> { return std::nullopt; };
  Start();
  ASSERT_TRUE(AdvanceUntilDone(absl::Seconds(1)));
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_EQ(events_.size(), 8u);
  for (const v1::RankEvent& e : events_) EXPECT_FALSE(e.has_preempted());
  EXPECT_EQ(workers_.worker(0).abort_calls(), 0);
}

TEST(WorkerFanOutTest, NamesWorkersThatCannotAnswer) {
  fakes::FakeClock clock;
  fakes::FakeLocalWorkers workers(3);
  workers.SetReady(1, false);
  workers.worker(2).Set(Mode::kStopped);
  std::vector<v1::RankFlightRecords> out;
  absl::Notification done;
  std::thread t([&] {
    out = CollectFlightRecords(workers, {{0, 4}, {1, 5}, {2, 6}}, "s1",
                               absl::Seconds(1), &clock);
    done.Notify();
  });
  ASSERT_TRUE(clock.WaitForWaiter());
  clock.Advance(absl::Seconds(1));
  ASSERT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  t.join();
  ASSERT_EQ(out.size(), 3u);
  EXPECT_TRUE(out[0].reachable());
  EXPECT_EQ(out[0].rank(), 4);
  EXPECT_EQ(out[0].records_size(), 1);
  EXPECT_FALSE(out[1].reachable());
  EXPECT_THAT(out[1].unreachable_reason(), HasSubstr("not running"));
  EXPECT_FALSE(out[2].reachable());
  EXPECT_THAT(out[2].unreachable_reason(),
              HasSubstr("worker 2 did not answer within 1s (stopped or hung)"));
}

}  // namespace
}  // namespace fabricpulse::agent
