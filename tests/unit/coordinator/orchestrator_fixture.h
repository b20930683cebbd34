// A SweepOrchestrator over fake agents, a fake clock, a real history in a
// temporary folder and a real metrics registry: the coordinator's sweep
// paths without a process or a socket.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "daemon/coordinator/coordinator_metrics.h"
#include "daemon/coordinator/store/history_store.h"
#include "daemon/coordinator/sweep_orchestrator.h"
#include "gtest/gtest.h"
#include "prometheus/registry.h"
#include "tests/fakes/fake_agent_client.h"
#include "tests/fakes/fake_clock.h"

namespace fabricpulse::testing {

class OrchestratorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = ::testing::TempDir() + "orchestrator_test.XXXXXX";
    ASSERT_NE(mkdtemp(templ.data()), nullptr) << templ;
    dir_ = templ;
    auto history = coordinator::HistoryStore::Open(dir_ + "/history.db");
    ASSERT_TRUE(history.ok()) << history.status();
    history_ = std::move(*history);
    metrics_ = std::make_unique<coordinator::CoordinatorMetrics>(registry_);
    orchestrator_ = std::make_unique<coordinator::SweepOrchestrator>(
        core::CoordinatorConfig{}, history_.get(), metrics_.get(), &agents_,
        &clock_);
    orchestrator_->SetAdvertisedAddress("coordinator:1");
  }
  void TearDown() override {
    orchestrator_.reset();
    history_.reset();
    std::filesystem::remove_all(dir_);
  }

  // Node `name` with `ranks` ready CPU workers, at "fake:<name>".
  static v1::AgentInfo CpuAgent(const std::string& name, int ranks) {
    v1::AgentInfo info;
    info.set_node_name(name);
    info.set_address("fake:" + name);
    info.set_backend("gloo");
    info.set_backend_version("gloo");
    for (int i = 0; i < ranks; ++i) {
      v1::WorkerInfo* w = info.add_workers();
      w->set_local_index(i);
      w->set_incarnation(absl::StrCat(name, "-", i));
      w->set_ready(true);
      w->set_gpu(-1);
    }
    return info;
  }
  // Registers `info`, reachable through a fake at its address.
  std::shared_ptr<fakes::FakeAgentClient> AddAgent(const v1::AgentInfo& info) {
    auto registered = orchestrator_->membership().Register(info);
    EXPECT_TRUE(registered.ok()) << registered.status();
    return agents_.Add(info);
  }
  // Registers node `name` with `ranks` CPU workers (CpuAgent).
  std::shared_ptr<fakes::FakeAgentClient> AddAgent(const std::string& name,
                                                   int ranks) {
    return AddAgent(CpuAgent(name, ranks));
  }

  // all_reduce at 1, 2 and 4 KiB, one placement: 3 steps.
  static v1::SweepRequest ThreeSteps() {
    v1::SweepRequest request;
    request.mutable_spec()->add_ops("all_reduce");
    request.mutable_spec()->set_min_bytes(1024);
    request.mutable_spec()->set_max_bytes(4096);
    request.mutable_spec()->set_placement("out_of_place");
    request.mutable_spec()->set_iters(1);
    request.mutable_spec()->set_warmup_iters(0);
    request.mutable_spec()->set_timeout_seconds(1);
    return request;
  }

  // A sweep run on its own thread, its events kept.
  struct Background {
    absl::Notification done;
    absl::Status status;
    std::vector<v1::SweepEvent> events;
    std::thread thread;
    ~Background() {
      if (thread.joinable()) thread.join();
    }
  };
  std::unique_ptr<Background> Start(const v1::SweepRequest& request) {
    auto bg = std::make_unique<Background>();
    Background* b = bg.get();
    b->thread = std::thread([this, b, request] {
      b->status = orchestrator_->Execute(request, "cli",
                                         [b](const v1::SweepEvent& event) {
                                           b->events.push_back(event);
                                           return true;
                                         });
      b->done.Notify();
    });
    return bg;
  }
  // Moves fake time from one awaited deadline to the next while `bg` runs,
  // at most `max_steps` times; whether the sweep ended.
  bool AdvanceUntilDone(Background& bg, int max_steps = 50) {
    const absl::Time real_deadline = absl::Now() + absl::Seconds(30);
    int steps = 0;
    while (!bg.done.HasBeenNotified() && steps < max_steps &&
           absl::Now() < real_deadline) {
      if (clock_.AdvanceToNextDeadline()) {
        ++steps;
      } else {
        std::this_thread::yield();
      }
    }
    return bg.done.WaitForNotificationWithTimeout(absl::Seconds(10));
  }
  // Waits (real time, bounded) until `agent` has a stream open.
  static bool WaitForOpenStream(fakes::FakeAgentClient& agent) {
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    while (agent.open_streams() == 0 && absl::Now() < deadline) {
      std::this_thread::yield();
    }
    return agent.open_streams() > 0;
  }

  std::string dir_;
  fakes::FakeClock clock_;
  fakes::FakeAgentClients agents_;
  prometheus::Registry registry_;
  std::unique_ptr<coordinator::HistoryStore> history_;
  std::unique_ptr<coordinator::CoordinatorMetrics> metrics_;
  std::unique_ptr<coordinator::SweepOrchestrator> orchestrator_;
};

}  // namespace fabricpulse::testing
