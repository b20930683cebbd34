// The coordinator's own isolations (issue 15, item 2): an AutoIsolator over
// a fake launch path in which node-2's links are slow, and an in-memory
// history.
#include "daemon/coordinator/auto_isolator.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "daemon/coordinator/coordinator_metrics.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "prometheus/registry.h"
#include "tests/unit/coordinator/metrics_test_util.h"

namespace fabricpulse::coordinator {
namespace {
namespace FP_UNITY_ID {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Sweeps as the orchestrator would run them: busbw 10 GB/s on sets
// without node-2, 1 GB/s with it; pairs with node-2 at 1 GB/s.
class FakeCluster {
 public:
  absl::Status Run(const v1::SweepRequest& request, const std::string& trigger,
                   const SweepSink& sink) {
    std::vector<std::string> nodes(request.nodes().begin(),
                                   request.nodes().end());
    {
      absl::MutexLock lock(&mu_);
      triggers_.push_back(trigger);
      calls_++;
      if (refusals_ > 0) {
        refusals_--;
        return absl::ResourceExhaustedError("node-1 is busy with sweep x");
      }
    }
    if (hold_ != nullptr) hold_->WaitForNotification();
    v1::SweepEvent started;
    const std::string id = absl::StrCat("iso-", next_id_++);
    started.mutable_started()->set_sweep_id(id);
    sink(started);
    const bool slow =
        std::find(nodes.begin(), nodes.end(), "node-2") != nodes.end();
    v1::SweepEvent result;
    v1::StepResult* r = result.mutable_result();
    r->mutable_step()->set_op(request.spec().ops(0));
    if (request.spec().ops(0) == "pairwise") {
      for (size_t i = 0; i < nodes.size(); ++i) {
        for (size_t j = i + 1; j < nodes.size(); ++j) {
          v1::PairResult* p = r->add_pairs();
          p->set_node_a(nodes[i]);
          p->set_node_b(nodes[j]);
          p->set_path("network");
          const bool with2 = nodes[i] == "node-2" || nodes[j] == "node-2";
          p->set_busbw_bytes_per_second(with2 ? 1e9 : 1e10);
        }
      }
    } else {
      r->set_busbw_bytes_per_second(slow ? 1e9 : 1e10);
    }
    sink(result);
    return absl::OkStatus();
  }
  int calls() {
    absl::MutexLock lock(&mu_);
    return calls_;
  }
  std::vector<std::string> triggers() {
    absl::MutexLock lock(&mu_);
    return triggers_;
  }
  void Refuse(int n) {
    absl::MutexLock lock(&mu_);
    refusals_ = n;
  }
  absl::Notification* hold_ = nullptr;

 private:
  absl::Mutex mu_;
  int calls_ ABSL_GUARDED_BY(mu_) = 0;
  int refusals_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<std::string> triggers_ ABSL_GUARDED_BY(mu_);
  std::atomic<int> next_id_{0};
};

class AutoIsolatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = HistoryStore::Open(":memory:");
    ASSERT_TRUE(store.ok()) << store.status();
    history_ = *std::move(store);
    core::PlanConfig plan;
    plan.name = "nightly";
    plan.spec.ops = {"all_reduce"};
    plan.isolate_on.regression = true;
    config_.plans["nightly"] = plan;
    core::PlanConfig quiet;
    quiet.name = "quiet";
    config_.plans["quiet"] = quiet;
  }
  std::unique_ptr<AutoIsolator> Make(AutoIsolatorOptions options = {}) {
    return std::make_unique<AutoIsolator>(
        &config_,
        [this](const v1::SweepRequest& request, const std::string& trigger,
               const SweepSink& sink) {
          return cluster_.Run(request, trigger, sink);
        },
        history_.get(), &metrics_, core::RealClock::Get(), options);
  }
  // A regressed sweep `id` of `plan` on node-0..node-3, in the history.
  SweepEnd Regressed(const std::string& id,
                     const std::string& plan = "nightly") {
    SweepRecord record;
    record.id = id;
    record.plan = plan;
    record.trigger = "cli";
    record.started = absl::Now();
    EXPECT_TRUE(history_->BeginSweep(record).ok());
    SweepEnd end;
    end.sweep_id = id;
    end.plan = plan;
    end.trigger = "cli";
    end.nodes = {"node-0", "node-1", "node-2", "node-3"};
    end.regressed = IsolationStep{"all_reduce", 524288, false};
    return end;
  }
  std::optional<IsolationRecord> Stored(const std::string& id) {
    auto got = history_->GetIsolation(id);
    EXPECT_TRUE(got.ok()) << got.status();
    return got.ok() ? *got : std::nullopt;
  }
  std::string Series(const std::string& verdict) {
    return testing::ValueOf(
        testing::Serialize(registry_),
        absl::StrCat("fabricpulse_isolations_total{plan=\"nightly\",verdict=\"",
                     verdict, "\"}"));
  }

  std::unique_ptr<HistoryStore> history_;
  core::CoordinatorConfig config_;
  prometheus::Registry registry_;
  CoordinatorMetrics metrics_{registry_};
  FakeCluster cluster_;
};

TEST_F(AutoIsolatorTest, ARegressionIsIsolatedAndStoredWithItsSweep) {
  auto isolator = Make();
  isolator->OnSweepEnd(Regressed("parent"));
  ASSERT_TRUE(isolator->WaitIdle(absl::Seconds(30)));
  std::optional<IsolationRecord> got = Stored("parent");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->verdict, "node");
  EXPECT_THAT(got->culprits, ElementsAre("node-2"));
  EXPECT_EQ(got->cause, "regression");
  EXPECT_EQ(got->op, "all_reduce");
  EXPECT_EQ(got->bytes, 524288u);
  EXPECT_GE(got->rounds.size(), 3u);
  EXPECT_EQ(got->rounds.front().role, "all");
  EXPECT_EQ(got->rounds.back().role, "pairwise check");
  EXPECT_NE(got->finished, absl::InfinitePast());
  // Every measurement is marked as the parent's isolation sweep.
  for (const std::string& trigger : cluster_.triggers()) {
    EXPECT_EQ(trigger, "isolation:parent");
  }
  EXPECT_EQ(Series("node"), "1");
}

TEST_F(AutoIsolatorTest, PlansThatDoNotAskAndIsolationSweepsStartNothing) {
  auto isolator = Make();
  isolator->OnSweepEnd(Regressed("q", "quiet"));
  SweepEnd own = Regressed("own");
  own.trigger = "isolation:parent";
  isolator->OnSweepEnd(own);
  SweepEnd adhoc = Regressed("adhoc-1", "adhoc");
  isolator->OnSweepEnd(adhoc);
  ASSERT_TRUE(isolator->WaitIdle(absl::Seconds(30)));
  EXPECT_EQ(cluster_.calls(), 0);
  EXPECT_FALSE(Stored("q").has_value());
  EXPECT_FALSE(Stored("own").has_value());
}

TEST_F(AutoIsolatorTest, OneAtATimeTheSecondIsRecordedSkipped) {
  absl::Notification hold;
  cluster_.hold_ = &hold;
  auto isolator = Make();
  isolator->OnSweepEnd(Regressed("first"));
  isolator->OnSweepEnd(Regressed("second"));
  std::optional<IsolationRecord> second = Stored("second");
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->verdict, kIsolationSkipped);
  EXPECT_THAT(second->summary, HasSubstr("after sweep first was running"));
  hold.Notify();
  ASSERT_TRUE(isolator->WaitIdle(absl::Seconds(30)));
  EXPECT_EQ(Stored("first")->verdict, "node");
  EXPECT_EQ(Series("skipped"), "1");
}

TEST_F(AutoIsolatorTest, BusyMembersAreWaitedForThenGivenUpOn) {
  // Refused twice, then free: waits and isolates.
  cluster_.Refuse(2);
  auto isolator = Make(
      {.busy_wait = absl::Seconds(30), .busy_retry = absl::Milliseconds(1)});
  isolator->OnSweepEnd(Regressed("waited"));
  ASSERT_TRUE(isolator->WaitIdle(absl::Seconds(30)));
  EXPECT_EQ(Stored("waited")->verdict, "node");
  // Busy for longer than busy_wait: gives up, saying why.
  cluster_.Refuse(1000000);
  auto impatient =
      Make({.busy_wait = absl::ZeroDuration(), .busy_retry = absl::Seconds(1)});
  impatient->OnSweepEnd(Regressed("busy"));
  ASSERT_TRUE(impatient->WaitIdle(absl::Seconds(30)));
  std::optional<IsolationRecord> got = Stored("busy");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->verdict, kIsolationGaveUp);
  EXPECT_THAT(got->summary, HasSubstr("node-1 is busy with sweep x"));
  EXPECT_TRUE(got->culprits.empty());
  EXPECT_EQ(Series("gave_up"), "1");
}

TEST_F(AutoIsolatorTest, StoppedIsolatorStartsNothing) {
  auto isolator = Make();
  isolator->Stop();
  isolator->OnSweepEnd(Regressed("late"));
  EXPECT_FALSE(Stored("late").has_value());
  EXPECT_EQ(cluster_.calls(), 0);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::coordinator
