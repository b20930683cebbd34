#include "daemon/core/gpu_busy.h"

#include <set>

#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

GpuProcesses Gpu(std::vector<int64_t> nvml, std::vector<int64_t> ours) {
  GpuProcesses g;
  g.gpu = 0;
  g.compute_pids = std::move(nvml);
  g.worker_pids = std::move(ours);
  return g;
}

std::function<bool(int64_t)> Existing(std::set<int64_t> pids) {
  return [pids](int64_t pid) { return pids.count(pid) > 0; };
}

TEST(OtherComputeProcessesTest, IdleGpuIsFree) {
  EXPECT_EQ(OtherComputeProcesses(Gpu({}, {}), true), 0);
  EXPECT_EQ(OtherComputeProcesses(Gpu({}, {100}), true), 0);
  EXPECT_EQ(OtherComputeProcesses(Gpu({}, {100}), false), 0);
}

TEST(OtherComputeProcessesTest, OurWorkerHoldingItsContextIsNotBusy) {
  EXPECT_EQ(OtherComputeProcesses(Gpu({100}, {100}), true), 0);
  // A match proves the pids comparable, whatever the caller thought.
  EXPECT_EQ(OtherComputeProcesses(Gpu({100}, {100}), false), 0);
}

TEST(OtherComputeProcessesTest, OtherProcessBesideOurWorkerIsCountedByPid) {
  EXPECT_EQ(OtherComputeProcesses(Gpu({100, 4242}, {100}), true), 1);
  EXPECT_EQ(OtherComputeProcesses(Gpu({4242, 100, 4343}, {100}), false), 2);
}

TEST(OtherComputeProcessesTest, SamePidNamespaceWorkerWithoutContextYet) {
  // Bare metal, before our worker's first sweep: NVML lists only the other
  // process; the pids are comparable, so it is counted.
  EXPECT_EQ(OtherComputeProcesses(Gpu({4242}, {100}), true), 1);
}

TEST(OtherComputeProcessesTest, ContainerWithoutHostPidSubtractsOurWorkers) {
  // NVML reports host pids (e.g. 812345 for our worker 17): none match.
  EXPECT_EQ(OtherComputeProcesses(Gpu({812345}, {17}), false), 0);
  EXPECT_EQ(OtherComputeProcesses(Gpu({812345, 900001}, {17}), false), 1);
  EXPECT_EQ(OtherComputeProcesses(Gpu({812345, 900001, 900002}, {17}), false),
            2);
  // Two of our workers share the GPU, one other process.
  EXPECT_EQ(
      OtherComputeProcesses(Gpu({812345, 812346, 900001}, {17, 18}), false), 1);
  // Our worker has no context yet: the known blind spot (documented).
  EXPECT_EQ(OtherComputeProcesses(Gpu({900001}, {17}), false), 0);
  // Never negative.
  EXPECT_EQ(OtherComputeProcesses(Gpu({812345}, {17, 18}), false), 0);
}

TEST(OtherComputeProcessesTest, DuplicatePidsCountOnce) {
  EXPECT_EQ(OtherComputeProcesses(Gpu({4242, 4242, 100}, {100}), true), 1);
  EXPECT_EQ(OtherComputeProcesses(Gpu({4242, 4242}, {}), false), 1);
}

TEST(NvmlPidsAreLocalTest, NoProcessesIsLocal) {
  EXPECT_TRUE(NvmlPidsAreLocal({Gpu({}, {100})}, Existing({})));
  EXPECT_TRUE(NvmlPidsAreLocal({}, Existing({})));
}

TEST(NvmlPidsAreLocalTest, AMatchOnAnyGpuProvesLocal) {
  GpuProcesses a = Gpu({812345}, {17});
  GpuProcesses b = Gpu({100}, {100});
  b.gpu = 1;
  EXPECT_TRUE(NvmlPidsAreLocal({a, b}, Existing({})));
}

TEST(NvmlPidsAreLocalTest, EveryPidExistingHereIsLocal) {
  EXPECT_TRUE(
      NvmlPidsAreLocal({Gpu({4242, 4343}, {100})}, Existing({4242, 4343})));
}

TEST(NvmlPidsAreLocalTest, APidUnknownHereMeansHostPids) {
  EXPECT_FALSE(NvmlPidsAreLocal({Gpu({4242, 812345}, {17})}, Existing({4242})));
  EXPECT_FALSE(NvmlPidsAreLocal({Gpu({812345}, {17})}, Existing({17})));
}

TEST(GpuBusyTest, ContainerCaseEndToEnd) {
  // Container without hostPID, our worker (pid 17 here, 812345 on the
  // host) holds its context, a training job (host pid 900001) starts.
  const std::vector<GpuProcesses> idle = {Gpu({812345}, {17})};
  const bool local_idle = NvmlPidsAreLocal(idle, Existing({1, 17}));
  EXPECT_FALSE(local_idle);
  EXPECT_EQ(OtherComputeProcesses(idle[0], local_idle), 0);
  const std::vector<GpuProcesses> busy = {Gpu({812345, 900001}, {17})};
  const bool local_busy = NvmlPidsAreLocal(busy, Existing({1, 17}));
  EXPECT_FALSE(local_busy);
  EXPECT_EQ(OtherComputeProcesses(busy[0], local_busy), 1);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
