#include "daemon/agent/gpu_busy_probe.h"

#include <atomic>
#include <cmath>
#include <optional>
#include <set>
#include <thread>

#include "gtest/gtest.h"
#include "prometheus/registry.h"
#include "tests/fakes/fake_nvml.h"
#include "tests/unit/coordinator/metrics_test_util.h"

namespace fabricpulse::agent {
namespace {

using ::fabricpulse::testing::Serialize;
using ::fabricpulse::testing::ValueOf;

v1::WorkerInfo Worker(int index, int gpu, int pid) {
  v1::WorkerInfo w;
  w.set_local_index(index);
  w.set_gpu(gpu);
  w.set_pid(pid);
  w.set_ready(true);
  return w;
}

class GpuBusyProbeTest : public ::testing::Test {
 protected:
  // Builds the probe over `workers_` and the fake; pids in `local_pids`
  // exist in the agent's namespace.
  void Make(std::set<int64_t> local_pids) {
    auto fake = std::make_unique<fakes::FakeNvml>();
    nvml_ = fake.get();
    GpuBusyProbeOptions options;
    options.workers = [this] { return workers_; };
    options.metrics = &metrics_;
    options.pid_exists = [local_pids](int64_t pid) {
      return local_pids.count(pid) > 0;
    };
    options.on_change = [this] { changes_++; };
    probe_ = std::make_unique<GpuBusyProbe>(std::move(fake), options);
  }

  std::string Busy(int gpu) {
    return ValueOf(Serialize(registry_),
                   absl::StrCat("fabricpulse_agent_gpu_busy{gpu=\"", gpu,
                                "\",node=\"node-a\"}"));
  }

  // The worker's memory series, or "" when it is absent.
  std::string Memory(int worker, int gpu) {
    return ValueOf(
        Serialize(registry_),
        absl::StrCat("fabricpulse_agent_worker_gpu_memory_bytes{", "gpu=\"",
                     gpu, "\",node=\"node-a\",worker=\"", worker, "\"}"));
  }

  // The series' value; NaN when it is absent.
  double MemoryBytes(int worker, int gpu) {
    const std::string text = Memory(worker, gpu);
    return text.empty() ? std::nan("") : std::stod(text);
  }

  v1::AgentInfo Annotated() {
    v1::AgentInfo info;
    for (const v1::WorkerInfo& w : workers_) *info.add_workers() = w;
    probe_->Annotate(info);
    return info;
  }

  prometheus::Registry registry_;
  AgentMetrics metrics_{registry_, "node-a"};
  std::vector<v1::WorkerInfo> workers_ = {Worker(0, 0, 100), Worker(1, 1, 101)};
  fakes::FakeNvml* nvml_ = nullptr;
  std::unique_ptr<GpuBusyProbe> probe_;
  int changes_ = 0;
};

TEST_F(GpuBusyProbeTest, OwnWorkersAreNotBusyOtherProcessIs) {
  Make({1, 100, 101, 4242});
  nvml_->SetPids(0, {100});
  nvml_->SetPids(1, {101});
  probe_->PollOnce();
  EXPECT_EQ(Busy(0), "0");
  EXPECT_EQ(Busy(1), "0");
  EXPECT_EQ(changes_, 0);
  EXPECT_FALSE(Annotated().workers(0).gpu_busy());

  nvml_->SetPids(1, {101, 4242});
  probe_->PollOnce();
  EXPECT_EQ(Busy(0), "0");
  EXPECT_EQ(Busy(1), "1");
  EXPECT_EQ(changes_, 1);
  v1::AgentInfo info = Annotated();
  EXPECT_FALSE(info.workers(0).gpu_busy());
  EXPECT_TRUE(info.workers(1).gpu_busy());
  EXPECT_EQ(info.workers(1).gpu_other_processes(), 1);

  probe_->PollOnce();  // unchanged: no new notification
  EXPECT_EQ(changes_, 1);

  nvml_->SetPids(1, {101});
  probe_->PollOnce();
  EXPECT_EQ(Busy(1), "0");
  EXPECT_EQ(changes_, 2);
  EXPECT_FALSE(Annotated().workers(1).gpu_busy());
}

TEST_F(GpuBusyProbeTest, ContainerHostPidsAreCountedNotMatched) {
  // No hostPID: NVML's pids (host namespace) do not exist here.
  Make({1, 100, 101});
  nvml_->SetPids(0, {812345});          // our worker's context
  nvml_->SetPids(1, {812346, 900001});  // ours + a training job
  probe_->PollOnce();
  EXPECT_EQ(Busy(0), "0");
  EXPECT_EQ(Busy(1), "1");
  EXPECT_EQ(Annotated().workers(1).gpu_other_processes(), 1);
}

TEST_F(GpuBusyProbeTest, BeforeOurFirstSweepAnOtherProcessIsSeenByPid) {
  // Same pid namespace, our worker has no CUDA context yet.
  Make({1, 100, 101, 4242});
  nvml_->SetPids(0, {4242});
  nvml_->SetPids(1, {});
  probe_->PollOnce();
  EXPECT_EQ(Busy(0), "1");
  EXPECT_EQ(Busy(1), "0");
}

TEST_F(GpuBusyProbeTest, NvmlErrorCountsFreeAndRecovers) {
  Make({1, 100, 101, 4242});
  nvml_->SetPids(0, {100, 4242});
  nvml_->SetPids(1, {101});
  probe_->PollOnce();
  EXPECT_EQ(Busy(0), "1");
  nvml_->SetError(0, absl::UnavailableError("GPU is lost"));
  probe_->PollOnce();
  EXPECT_EQ(Busy(0), "0");
  EXPECT_FALSE(Annotated().workers(0).gpu_busy());
  nvml_->SetPids(0, {100, 4242});
  probe_->PollOnce();
  EXPECT_EQ(Busy(0), "1");
}

TEST_F(GpuBusyProbeTest, EachWorkersGpuMemoryIsExported) {
  Make({1, 100, 101, 4242});
  constexpr uint64_t kMiB = 1 << 20;
  nvml_->SetProcesses(0, {{100, 1098 * kMiB}, {4242, 8000 * kMiB}});
  nvml_->SetProcesses(1, {});  // worker 1: no CUDA context (released)
  probe_->PollOnce();
  EXPECT_DOUBLE_EQ(MemoryBytes(0, 0), 1098 * kMiB);  // not the foreign one
  EXPECT_DOUBLE_EQ(MemoryBytes(1, 1), 0);
  nvml_->SetProcesses(1, {{101, 600 * kMiB}});
  probe_->PollOnce();
  EXPECT_DOUBLE_EQ(MemoryBytes(1, 1), 600 * kMiB);
}

TEST_F(GpuBusyProbeTest, WorkerMemoryNotMeasuredIsAbsent) {
  Make({1, 100, 101});
  nvml_->SetProcesses(0, {{100, 1 << 30}});
  nvml_->SetProcesses(1, {{101, 1 << 30}});
  probe_->PollOnce();
  ASSERT_DOUBLE_EQ(MemoryBytes(0, 0), 1 << 30);
  // NVML gives no figure for the process, or cannot answer: no series.
  nvml_->SetProcesses(0, {{100, std::nullopt}});
  nvml_->SetError(1, absl::UnavailableError("GPU is lost"));
  probe_->PollOnce();
  EXPECT_EQ(Memory(0, 0), "");
  EXPECT_EQ(Memory(1, 1), "");
}

TEST_F(GpuBusyProbeTest, HostPidsGiveNoWorkerMemory) {
  // A container without hostPID: NVML's pids cannot be matched to ours.
  Make({1, 100, 101});
  nvml_->SetProcesses(0, {{812345, 1 << 30}});
  nvml_->SetProcesses(1, {{812346, 1 << 30}});
  probe_->PollOnce();
  EXPECT_EQ(Memory(0, 0), "");
  EXPECT_EQ(Memory(1, 1), "");
}

TEST_F(GpuBusyProbeTest, CpuRanksHaveNoGpuSeries) {
  workers_ = {Worker(0, -1, 100), Worker(1, -1, 101)};
  Make({1, 100, 101});
  probe_->PollOnce();
  EXPECT_EQ(Serialize(registry_).find("fabricpulse_agent_gpu_busy{"),
            std::string::npos);
  EXPECT_EQ(Serialize(registry_).find("fabricpulse_agent_worker_gpu_memory"),
            std::string::npos);
  EXPECT_FALSE(Annotated().workers(0).gpu_busy());
}

TEST_F(GpuBusyProbeTest, NothingPolledYetIsFree) {
  Make({});
  v1::AgentInfo info = Annotated();
  EXPECT_FALSE(info.workers(0).gpu_busy());
  EXPECT_EQ(info.workers(0).gpu_other_processes(), 0);
  EXPECT_EQ(Serialize(registry_).find("fabricpulse_agent_gpu_busy{"),
            std::string::npos);
  EXPECT_EQ(Serialize(registry_).find("fabricpulse_agent_worker_gpu_memory"),
            std::string::npos);
}

TEST_F(GpuBusyProbeTest, ForeignProcessNamesTheSweepsFirstBusyGpu) {
  workers_.push_back(Worker(2, -1, 102));  // a CPU rank: never busy
  Make({1, 100, 101, 102, 4242});
  nvml_->SetPids(0, {100});
  nvml_->SetPids(1, {101, 4242});
  EXPECT_FALSE(probe_->ForeignProcess(workers_));  // nothing polled yet
  probe_->PollOnce();
  std::optional<v1::PreemptedEvent> foreign = probe_->ForeignProcess(workers_);
  ASSERT_TRUE(foreign.has_value());
  EXPECT_EQ(foreign->gpu(), 1);
  EXPECT_EQ(foreign->other_processes(), 1);
  EXPECT_EQ(foreign->local_index(), 1);
  // A sweep on GPU 0 alone (our own worker there) does not yield.
  EXPECT_FALSE(probe_->ForeignProcess({workers_[0], workers_[2]}));
  nvml_->SetPids(1, {101});
  probe_->PollOnce();
  EXPECT_FALSE(probe_->ForeignProcess(workers_));
}

// While a sweep watches, the probe polls at sweep_interval; idle, at
// interval (here an hour: the fast polls can only come from the watch).
TEST(GpuBusyProbeWatchTest, PollsAtTheSweepIntervalWhileASweepWatches) {
  auto fake = std::make_unique<fakes::FakeNvml>();
  fake->SetPids(0, {});
  std::atomic<int> polls{0};
  GpuBusyProbeOptions options;
  options.workers = [&polls] {
    polls++;
    return std::vector<v1::WorkerInfo>{Worker(0, 0, 100)};
  };
  options.pid_exists = [](int64_t) { return true; };
  options.interval = absl::Hours(1);
  options.sweep_interval = absl::Milliseconds(1);
  GpuBusyProbe probe(std::move(fake), options);
  probe.Start();
  auto wait_for = [&polls](int n) {
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    while (polls < n && absl::Now() < deadline) std::this_thread::yield();
    return polls >= n;
  };
  ASSERT_TRUE(wait_for(1));  // the first poll, at Start
  {
    GpuBusyProbe::SweepWatch watch(&probe);
    GpuBusyProbe::SweepWatch second(&probe);  // two sweeps: still fast
    EXPECT_TRUE(wait_for(polls + 20));
  }
  GpuBusyProbe::SweepWatch none(nullptr);  // no probe: nothing happens
  probe.Stop();
}

}  // namespace
}  // namespace fabricpulse::agent
