// The agent's registration over a fake coordinator and fake time: register,
// heartbeat at the coordinator's interval, register again when forgotten,
// retry while the coordinator is down, and report to the sweep lease.
#include "daemon/agent/registration.h"

#include <atomic>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tests/fakes/fake_clock.h"
#include "tests/fakes/fake_coordinator_client.h"

namespace fabricpulse::agent {
namespace {

class RegistrationTest : public ::testing::Test {
 protected:
  RegistrationTest() {
    auto client = std::make_unique<fakes::FakeCoordinatorClient>();
    coordinator_ = client.get();
    registration_ = std::make_unique<Registration>(
        std::move(client),
        [this] {
          describes_++;
          v1::AgentInfo info;
          info.set_node_name("node-a");
          return info;
        },
        [this](v1::HeartbeatRequest& request) {
          v1::WorkerInfo* w = request.add_workers();
          w->set_local_index(0);
          w->set_incarnation(incarnation_.load());
          w->set_ready(true);
        },
        &contact_, &clock_);
  }
  ~RegistrationTest() override { registration_->Stop(); }

  // Advances fake time by `by` once the registration thread waits on it.
  void Tick(absl::Duration by) {
    ASSERT_TRUE(clock_.WaitForWaiter()) << "registration never waited";
    clock_.Advance(by);
  }

  fakes::FakeClock clock_;
  CoordinatorContact contact_;
  // Full descriptions asked for (registrations).
  std::atomic<int> describes_{0};
  // What the next heartbeat's worker says.
  std::atomic<const char*> incarnation_{"inc-1"};
  fakes::FakeCoordinatorClient* coordinator_;
  std::unique_ptr<Registration> registration_;
};

TEST_F(RegistrationTest, RegistersThenHeartbeatsAtTheInterval) {
  registration_->Start();
  ASSERT_TRUE(coordinator_->WaitForHeartbeats(1));
  EXPECT_TRUE(registration_->registered());
  EXPECT_EQ(coordinator_->registers(), 1);
  for (int i = 0; i < 5; ++i) Tick(absl::Seconds(1));
  ASSERT_TRUE(coordinator_->WaitForHeartbeats(6));
  EXPECT_EQ(coordinator_->registers(), 1);
}

// A heartbeat carries the workers as they are at that beat, without a
// full description (that reads the NICs): one per registration only.
TEST_F(RegistrationTest, HeartbeatsCarryTheWorkersNowWithoutAFullDescription) {
  registration_->Start();
  ASSERT_TRUE(coordinator_->WaitForHeartbeats(1));
  ASSERT_EQ(coordinator_->last_heartbeat().workers_size(), 1);
  EXPECT_EQ(coordinator_->last_heartbeat().workers(0).incarnation(), "inc-1");
  incarnation_ = "inc-2";  // e.g. the worker was restarted
  Tick(absl::Seconds(1));
  ASSERT_TRUE(coordinator_->WaitForHeartbeats(2));
  EXPECT_EQ(coordinator_->last_heartbeat().workers(0).incarnation(), "inc-2");
  for (int i = 0; i < 3; ++i) Tick(absl::Seconds(1));
  ASSERT_TRUE(coordinator_->WaitForHeartbeats(5));
  EXPECT_EQ(describes_, 1);
  EXPECT_EQ(coordinator_->registers(), 1);
}

TEST_F(RegistrationTest, RegistersAgainWhenTheCoordinatorForgetsIt) {
  registration_->Start();
  ASSERT_TRUE(coordinator_->WaitForHeartbeats(1));
  coordinator_->Forget();
  Tick(absl::Seconds(1));  // the heartbeat is refused
  Tick(absl::Seconds(1));  // an interval later: registered again
  ASSERT_TRUE(coordinator_->WaitForHeartbeats(2));
  EXPECT_EQ(coordinator_->registers(), 2);
}

TEST_F(RegistrationTest, RetriesWhileTheCoordinatorIsDown) {
  coordinator_->SetDown(true);
  registration_->Start();
  Tick(absl::Milliseconds(500));
  Tick(absl::Milliseconds(500));
  EXPECT_FALSE(registration_->registered());
  EXPECT_EQ(coordinator_->registers(), 0);
  coordinator_->SetDown(false);
  Tick(absl::Milliseconds(500));
  ASSERT_TRUE(coordinator_->WaitForHeartbeats(1));
  EXPECT_TRUE(registration_->registered());
}

// The verdict publisher hears every exchange: the answer with the node's
// verdict, and nothing while the coordinator is down (so that it can let an
// expired verdict go).
TEST_F(RegistrationTest, TheExchangeObserverSeesEachAnswerAndEachSilence) {
  absl::Mutex mu;
  std::vector<std::string> seen;  // the verdict, "-" none, "down" no answer
  registration_->SetExchangeObserver([&](const v1::HeartbeatResponse* answer) {
    absl::MutexLock lock(&mu);
    seen.push_back(answer == nullptr ? "down"
                   : answer->has_node_verdict()
                       ? answer->node_verdict().verdict()
                       : "-");
  });
  auto seen_now = [&] {
    absl::MutexLock lock(&mu);
    return seen;
  };
  registration_->Start();
  ASSERT_TRUE(coordinator_->WaitForHeartbeats(1));
  v1::NodeVerdictNotice fail;
  fail.set_verdict("fail");
  coordinator_->SetVerdict(fail);
  Tick(absl::Seconds(1));
  ASSERT_TRUE(coordinator_->WaitForHeartbeats(2));
  coordinator_->SetDown(true);
  Tick(absl::Seconds(1));
  ASSERT_TRUE(clock_.WaitForWaiter());
  // The registration itself (no answer to carry a verdict), the first
  // heartbeat, the one with the verdict, the unanswered one.
  EXPECT_EQ(seen_now(),
            (std::vector<std::string>{"down", "-", "fail", "down"}));
}

TEST_F(RegistrationTest, HeartbeatsLessOftenWhenTheCoordinatorAsks) {
  registration_->Start();
  ASSERT_TRUE(coordinator_->WaitForHeartbeats(1));
  coordinator_->SetInterval(3);  // the fleet grew
  Tick(absl::Seconds(1));        // this heartbeat carries the new interval
  ASSERT_TRUE(coordinator_->WaitForHeartbeats(2));
  Tick(absl::Seconds(2));
  EXPECT_EQ(coordinator_->heartbeats(), 2);  // not yet: 3 s apart now
  Tick(absl::Seconds(1));
  ASSERT_TRUE(coordinator_->WaitForHeartbeats(3));
}

TEST_F(RegistrationTest, AnsweredHeartbeatsHoldTheSweepLease) {
  coordinator_->SetSweep("s1");
  const absl::Time arrived = clock_.Now();
  registration_->Start();
  ASSERT_TRUE(coordinator_->WaitForHeartbeats(1));
  for (int i = 0; i < 8; ++i) Tick(absl::Seconds(1));
  ASSERT_TRUE(coordinator_->WaitForHeartbeats(9));
  EXPECT_TRUE(
      contact_.CheckLease("s1", arrived, absl::Seconds(5), clock_.Now()).ok());
  coordinator_->SetDown(true);  // heartbeats go unanswered from now
  for (int i = 0; i < 6; ++i) Tick(absl::Seconds(1));
  EXPECT_EQ(
      contact_.CheckLease("s1", arrived, absl::Seconds(5), clock_.Now()).code(),
      absl::StatusCode::kUnavailable);
}

TEST_F(RegistrationTest,
       ARefusedRegistrationIsLoggedOnceAndRetriedWithBackoff) {
  coordinator_->RefuseRegistrations(absl::AlreadyExistsError(
      "node_name: node node-a is held by a live agent at 10.0.0.1:7071"));
  ::testing::internal::CaptureStderr();
  registration_->Start();
  ASSERT_TRUE(coordinator_->WaitForAttempts(1));
  // 1 s, 2 s, 4 s, then the 5 s lease between attempts.
  for (const int seconds : {1, 2, 4, 5, 5}) {
    const int before = coordinator_->register_attempts();
    if (seconds > 1) {
      Tick(absl::Seconds(seconds - 1));
      EXPECT_EQ(coordinator_->register_attempts(), before) << seconds;
      Tick(absl::Seconds(1));
    } else {
      Tick(absl::Seconds(1));
    }
    ASSERT_TRUE(coordinator_->WaitForAttempts(before + 1)) << seconds;
  }
  EXPECT_FALSE(registration_->registered());
  coordinator_->RefuseRegistrations(absl::OkStatus());
  Tick(absl::Seconds(5));
  ASSERT_TRUE(coordinator_->WaitForHeartbeats(1));
  registration_->Stop();
  const std::string log = ::testing::internal::GetCapturedStderr();
  int refusals = 0;
  for (size_t at = log.find("refuses to register"); at != std::string::npos;
       at = log.find("refuses to register", at + 1)) {
    refusals++;
  }
  EXPECT_EQ(refusals, 1) << log;
  EXPECT_NE(log.find("ALREADY_EXISTS"), std::string::npos) << log;
  EXPECT_NE(log.find("held by a live agent at 10.0.0.1:7071"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("registration accepted after 6 refusal(s)"),
            std::string::npos)
      << log;
}

TEST_F(RegistrationTest, EveryRegistrationCarriesThisProcesssInstance) {
  registration_->Start();
  ASSERT_TRUE(coordinator_->WaitForHeartbeats(1));
  const v1::AgentInfo first = coordinator_->last_register().agent();
  EXPECT_EQ(first.instance_id().size(), 32u);
  EXPECT_EQ(first.instance_id(), registration_->instance().instance_id);
  EXPECT_EQ(first.boot_id(), registration_->instance().boot_id);
  coordinator_->Forget();
  Tick(absl::Seconds(1));
  Tick(absl::Seconds(1));
  ASSERT_TRUE(coordinator_->WaitForHeartbeats(2));
  EXPECT_EQ(coordinator_->last_register().agent().instance_id(),
            first.instance_id());
  // Another process gets another instance; this machine's boot id.
  const AgentInstance other = AgentInstance::ThisProcess();
  EXPECT_NE(other.instance_id, first.instance_id());
  EXPECT_EQ(other.boot_id, first.boot_id());
  EXPECT_FALSE(other.boot_id.empty());  // Linux has /proc
}

}  // namespace
}  // namespace fabricpulse::agent
