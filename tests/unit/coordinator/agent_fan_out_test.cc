// DescribeAll at fleet size: at most kDescribeWindow calls in flight, the
// next one started as one answers, each member's timeout its own; every
// answer in the agents' order. Answers come from a thread of the test's,
// as gRPC's would.
#include "daemon/coordinator/agent_fan_out.h"

#include <algorithm>
#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "daemon/core/clock.h"
#include "gtest/gtest.h"

namespace fabricpulse::coordinator {
namespace {

using DescribeDone = std::function<void(absl::StatusOr<v1::AgentInfo>)>;

// Every agent's Describe is held until Answer(); the most calls that were
// ever held at once are counted.
class HeldClients final : public AgentClients {
 public:
  class Client final : public AgentClient {
   public:
    Client(HeldClients* owner, v1::AgentInfo info)
        : owner_(owner), info_(std::move(info)) {}
    void Describe(absl::Duration, DescribeDone done) override {
      owner_->Hold(info_, std::move(done));
    }
    void Abort(const v1::AgentAbortRequest&, common::AbortCause, absl::Duration,
               std::function<void(absl::Status)> done) override {
      done(absl::OkStatus());
    }
    void GetFlightRecords(
        const v1::AgentFlightRecordsRequest&, absl::Duration,
        std::function<void(absl::StatusOr<v1::AgentFlightRecordsResponse>)>
            done) override {
      done(v1::AgentFlightRecordsResponse());
    }
    std::unique_ptr<AgentSweepStream> RunSweep(const v1::AgentSweepRequest&,
                                               AgentSweepCallbacks) override {
      return nullptr;
    }

   private:
    HeldClients* const owner_;
    const v1::AgentInfo info_;
  };

  std::shared_ptr<AgentClient> For(const v1::AgentInfo& agent) override {
    return std::make_shared<Client>(this, agent);
  }

  // Waits until `full` calls are held at once (none answered yet), then
  // answers the held calls, oldest first, until `count` were answered,
  // waiting for calls to arrive. Each answer is the agent's own
  // description.
  void Answer(size_t count, size_t full) {
    {
      absl::MutexLock lock(&mu_);
      auto filled = [this, full]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return held_.size() >= full;
      };
      mu_.Await(absl::Condition(&filled));
    }
    for (size_t i = 0; i < count; ++i) {
      std::pair<v1::AgentInfo, DescribeDone> call;
      {
        absl::MutexLock lock(&mu_);
        mu_.Await(absl::Condition(
            +[](std::deque<std::pair<v1::AgentInfo, DescribeDone>>* held) {
              return !held->empty();
            },
            &held_));
        call = std::move(held_.front());
        held_.pop_front();
      }
      call.second(call.first);
    }
  }
  size_t most_held() {
    absl::MutexLock lock(&mu_);
    return most_held_;
  }

 private:
  void Hold(const v1::AgentInfo& info, DescribeDone done) {
    absl::MutexLock lock(&mu_);
    held_.emplace_back(info, std::move(done));
    most_held_ = std::max(most_held_, held_.size());
  }

  absl::Mutex mu_;
  std::deque<std::pair<v1::AgentInfo, DescribeDone>> held_ ABSL_GUARDED_BY(mu_);
  size_t most_held_ ABSL_GUARDED_BY(mu_) = 0;
};

std::vector<v1::AgentInfo> Fleet(size_t n) {
  std::vector<v1::AgentInfo> agents(n);
  for (size_t i = 0; i < n; ++i) {
    agents[i].set_node_name(absl::StrCat("node-", i));
    agents[i].set_address(absl::StrCat("10.0.0.1:", 1000 + i));
  }
  return agents;
}

TEST(AgentFanOutTest, DescribeKeepsAWindowOfCallsAndAnswersInOrder) {
  const size_t n = 3 * kDescribeWindow + 5;
  const std::vector<v1::AgentInfo> agents = Fleet(n);
  HeldClients clients;
  std::thread agents_answer(
      [&clients, n] { clients.Answer(n, kDescribeWindow); });
  const auto answers =
      DescribeAll(clients, agents, absl::Seconds(30), core::RealClock::Get());
  agents_answer.join();
  EXPECT_EQ(clients.most_held(), kDescribeWindow);
  ASSERT_EQ(answers.size(), n);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_TRUE(answers[i].ok()) << i << ": " << answers[i].status();
    EXPECT_EQ(answers[i]->node_name(), agents[i].node_name());
  }
}

TEST(AgentFanOutTest, AFleetWithinTheWindowIsAskedAtOnce) {
  const std::vector<v1::AgentInfo> agents = Fleet(10);
  HeldClients clients;
  std::thread agents_answer([&clients] { clients.Answer(10, 10); });
  const auto answers =
      DescribeAll(clients, agents, absl::Seconds(30), core::RealClock::Get());
  agents_answer.join();
  EXPECT_EQ(clients.most_held(), 10u);
  for (const auto& a : answers) EXPECT_TRUE(a.ok()) << a.status();
}

}  // namespace
}  // namespace fabricpulse::coordinator
