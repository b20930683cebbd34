#include "daemon/agent/free_memory.h"

#include <memory>

#include "gtest/gtest.h"
#include "tests/fakes/fake_nvml.h"

namespace fabricpulse::agent {
namespace {

constexpr uint64_t kGiB = 1ull << 30;

v1::AgentInfo Workers(std::initializer_list<int> gpus) {
  v1::AgentInfo info;
  int index = 0;
  for (int gpu : gpus) {
    v1::WorkerInfo* w = info.add_workers();
    w->set_local_index(index++);
    w->set_gpu(gpu);
  }
  return info;
}

TEST(FreeMemoryReaderTest, GpuRanksFromNvml) {
  auto nvml = std::make_shared<fakes::FakeNvml>();
  nvml->SetFreeMemory(0, 80 * kGiB);
  nvml->SetFreeMemory(1, 70 * kGiB);
  nvml->SetFreeMemory(2, absl::UnavailableError("NVML says no"));
  FreeMemoryReader reader(nvml, [] { return absl::StatusOr<uint64_t>(1); });
  v1::AgentInfo info = Workers({0, 1, 2, 3});
  info.mutable_workers(2)->set_free_memory_bytes(5);  // a stale figure
  reader.Annotate(info);
  EXPECT_EQ(info.workers(0).free_memory_bytes(), 80 * kGiB);
  EXPECT_EQ(info.workers(1).free_memory_bytes(), 70 * kGiB);
  // Unknown: an NVML error, a GPU NVML does not have.
  EXPECT_FALSE(info.workers(2).has_free_memory_bytes());
  EXPECT_FALSE(info.workers(3).has_free_memory_bytes());
}

TEST(FreeMemoryReaderTest, CpuRanksShareOneHostReading) {
  int reads = 0;
  FreeMemoryReader reader(nullptr, [&reads] {
    ++reads;
    return absl::StatusOr<uint64_t>(12 * kGiB);
  });
  v1::AgentInfo info = Workers({-1, -1, -1});
  reader.Annotate(info);
  EXPECT_EQ(reads, 1);
  for (const v1::WorkerInfo& w : info.workers()) {
    EXPECT_EQ(w.free_memory_bytes(), 12 * kGiB);
  }
}

TEST(FreeMemoryReaderTest, UnknownWithoutNvmlOrHostFigure) {
  FreeMemoryReader reader(nullptr, [] {
    return absl::StatusOr<uint64_t>(absl::NotFoundError("no /proc"));
  });
  v1::AgentInfo info = Workers({0, -1});
  reader.Annotate(info);
  EXPECT_FALSE(info.workers(0).has_free_memory_bytes());
  EXPECT_FALSE(info.workers(1).has_free_memory_bytes());
}

TEST(FreeMemoryReaderTest, ThisMachineHasAHostFigure) {
  absl::StatusOr<uint64_t> host = ReadHostAvailableMemory();
  ASSERT_TRUE(host.ok()) << host.status();
  EXPECT_GT(*host, 0u);
}

}  // namespace
}  // namespace fabricpulse::agent
