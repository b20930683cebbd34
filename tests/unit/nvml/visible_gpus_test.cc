#include "daemon/nvml/visible_gpus.h"

#include <cstdlib>

#include "gtest/gtest.h"
#include "tests/fakes/fake_nvml.h"

namespace fabricpulse::nvml {
namespace {

TEST(CudaVisibleCountTest, UnsetShowsEveryGpu) {
  EXPECT_EQ(CudaVisibleCount(4, std::nullopt), 4);
  EXPECT_EQ(CudaVisibleCount(0, std::nullopt), 0);
}

TEST(CudaVisibleCountTest, EmptyShowsNone) {
  EXPECT_EQ(CudaVisibleCount(4, ""), 0);
  EXPECT_EQ(CudaVisibleCount(4, " "), 0);
}

TEST(CudaVisibleCountTest, CountsValidIndicesInAnyOrder) {
  EXPECT_EQ(CudaVisibleCount(4, "0"), 1);
  EXPECT_EQ(CudaVisibleCount(4, "3"), 1);
  EXPECT_EQ(CudaVisibleCount(4, "2,1"), 2);
  EXPECT_EQ(CudaVisibleCount(4, "0,1,2,3"), 4);
  EXPECT_EQ(CudaVisibleCount(4, " 0 , 1 "), 2);
}

TEST(CudaVisibleCountTest, StopsAtTheFirstInvalidEntry) {
  // CUDA's own example: devices 0 and 2 visible, 1 hidden.
  EXPECT_EQ(CudaVisibleCount(4, "0,2,-1,1"), 2);
  EXPECT_EQ(CudaVisibleCount(2, "0,7,1"), 1);  // 7 does not exist
  EXPECT_EQ(CudaVisibleCount(2, "7"), 0);
  EXPECT_EQ(CudaVisibleCount(2, "1,x"), 1);
  EXPECT_EQ(CudaVisibleCount(2, "x1"), 0);
  EXPECT_EQ(CudaVisibleCount(2, "0,,1"), 1);
  EXPECT_EQ(CudaVisibleCount(2, ",0"), 0);
  EXPECT_EQ(CudaVisibleCount(2, "99999999999999999999"), 0);
  EXPECT_EQ(CudaVisibleCount(0, "0"), 0);  // no GPU at all
}

TEST(CudaVisibleCountTest, ARepeatedDeviceHidesAll) {
  EXPECT_EQ(CudaVisibleCount(4, "0,1,0"), 0);
  EXPECT_EQ(CudaVisibleCount(4, "1,01"), 0);  // the same index
  EXPECT_EQ(CudaVisibleCount(4, "GPU-aa,GPU-aa"), 0);
  // A repeat after the list ended is not looked at.
  EXPECT_EQ(CudaVisibleCount(4, "0,-1,0"), 1);
}

TEST(CudaVisibleCountTest, CountsUuidEntries) {
  EXPECT_EQ(CudaVisibleCount(4, "GPU-8f6c2e1a"), 1);
  EXPECT_EQ(CudaVisibleCount(4, "GPU-8f6c2e1a,GPU-0b1d"), 2);
  EXPECT_EQ(CudaVisibleCount(4, "MIG-5c3a/1/0"), 1);
  EXPECT_EQ(CudaVisibleCount(4, "GPU-aa,MIG-bb"), 2);
  // Never more than NVML's devices.
  EXPECT_EQ(CudaVisibleCount(2, "GPU-aa,GPU-bb,GPU-cc"), 2);
  EXPECT_EQ(CudaVisibleCount(0, "GPU-aa"), 0);
}

// As CUDA read CUDA_VISIBLE_DEVICES on an H200 (driver 580): an index is
// its leading digits, and a GPU UUID must name a GPU there.
TEST(CudaVisibleCountTest, ReadsLikeCudaOnAnH200) {
  const std::vector<std::string> uuids = {
      "GPU-cfa60c87-c516-b55b-33cc-572c0bbfb07d"};
  EXPECT_EQ(CudaVisibleCount(1, uuids, "0x"), 1);
  EXPECT_EQ(CudaVisibleCount(1, uuids, "00"), 1);
  EXPECT_EQ(CudaVisibleCount(1, uuids, "0,-1"), 1);
  EXPECT_EQ(CudaVisibleCount(1, uuids, "1"), 0);
  EXPECT_EQ(CudaVisibleCount(1, uuids, "0,0"), 0);
  EXPECT_EQ(CudaVisibleCount(1, uuids, uuids[0]), 1);
  EXPECT_EQ(CudaVisibleCount(1, uuids, "GPU-cfa60c"), 1);
  EXPECT_EQ(CudaVisibleCount(1, uuids, "GPU-bogus"), 0);
  EXPECT_EQ(CudaVisibleCount(1, uuids, uuids[0] + ",GPU-bogus"), 1);
  EXPECT_EQ(CudaVisibleCount(1, uuids, uuids[0] + "," + uuids[0]), 0);
  EXPECT_EQ(CudaVisibleCount(1, uuids, "0," + uuids[0]), 1);
  EXPECT_EQ(CudaVisibleCount(1, uuids, uuids[0] + ",0"), 1);
}

TEST(CudaVisibleCountTest, AnAmbiguousUuidPrefixNamesNoGpu) {
  EXPECT_EQ(CudaVisibleCount(2, {"GPU-aa11", "GPU-aa22"}, "GPU-aa"), 0);
  EXPECT_EQ(CudaVisibleCount(2, {"GPU-aa11", "GPU-aa22"}, "GPU-aa2"), 1);
}

TEST(CudaVisibleCountTest, IndicesAndUuidsDoNotMix) {
  EXPECT_EQ(CudaVisibleCount(4, "GPU-aa,1"), 1);
  EXPECT_EQ(CudaVisibleCount(4, "0,GPU-aa"), 1);
}

TEST(VisibleGpuCountTest, NoNvmlIsNoGpu) {
  EXPECT_EQ(VisibleGpuCount(nullptr, std::nullopt), 0);
  EXPECT_EQ(VisibleGpuCount(nullptr, "0,1"), 0);
}

TEST(VisibleGpuCountTest, NvmlCountNarrowedByCudaVisibleDevices) {
  fakes::FakeNvml nvml;
  nvml.SetDeviceCount(4);
  EXPECT_EQ(VisibleGpuCount(&nvml, std::nullopt), 4);
  EXPECT_EQ(VisibleGpuCount(&nvml, "3,1"), 2);
  EXPECT_EQ(VisibleGpuCount(&nvml, ""), 0);
  nvml.SetDeviceCount(0);
  EXPECT_EQ(VisibleGpuCount(&nvml, std::nullopt), 0);
}

TEST(VisibleGpuCountTest, LooksUpUuidsWhenNvmlHasThem) {
  fakes::FakeNvml nvml;
  nvml.SetDeviceCount(2);
  EXPECT_EQ(VisibleGpuCount(&nvml, "GPU-bogus"), 1);  // UUIDs unknown
  nvml.SetUuids({"GPU-0000", "GPU-1111"});
  EXPECT_EQ(VisibleGpuCount(&nvml, "GPU-bogus"), 0);
  EXPECT_EQ(VisibleGpuCount(&nvml, "GPU-1111,GPU-0"), 2);
}

TEST(VisibleGpuCountTest, NvmlErrorIsNoGpu) {
  fakes::FakeNvml nvml;
  nvml.SetDeviceCount(absl::UnavailableError("nvmlDeviceGetCount_v2: boom"));
  EXPECT_EQ(VisibleGpuCount(&nvml, std::nullopt), 0);
}

TEST(CudaVisibleDevicesFromEnvTest, ReadsTheVariable) {
  const char* saved = std::getenv("CUDA_VISIBLE_DEVICES");
  const std::optional<std::string> restore =
      saved != nullptr ? std::optional<std::string>(saved) : std::nullopt;
  unsetenv("CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(CudaVisibleDevicesFromEnv(), std::nullopt);
  setenv("CUDA_VISIBLE_DEVICES", "", 1);
  EXPECT_EQ(CudaVisibleDevicesFromEnv(), std::optional<std::string>(""));
  setenv("CUDA_VISIBLE_DEVICES", "1,0", 1);
  EXPECT_EQ(CudaVisibleDevicesFromEnv(), std::optional<std::string>("1,0"));
  if (restore.has_value()) {
    setenv("CUDA_VISIBLE_DEVICES", restore->c_str(), 1);
  } else {
    unsetenv("CUDA_VISIBLE_DEVICES");
  }
}

}  // namespace
}  // namespace fabricpulse::nvml
