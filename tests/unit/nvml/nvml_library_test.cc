// The real NVML seam (nvml_library.cc: dlopen, entry points, NVML's structs)
// over the stand-in libnvidia-ml of tests/fakes, scripted by its files.
#include "daemon/nvml/nvml_library.h"

#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::nvml {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

class NvmlLibraryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/nvml_library_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    topology_ = dir_ + "/topology";
    setenv("FAKE_NVML_DEVICE_COUNT", "3", 1);
    setenv("FAKE_NVML_TOPOLOGY_FILE", topology_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("FAKE_NVML_DEVICE_COUNT");
    unsetenv("FAKE_NVML_TOPOLOGY_FILE");
    unlink(topology_.c_str());
    rmdir(dir_.c_str());
  }
  void WriteTopology(const std::string& text) {
    std::ofstream(topology_) << text;
  }
  std::unique_ptr<Nvml> Open() {
    auto nvml = OpenNvmlAt(FAKE_NVML_LIBRARY);
    EXPECT_TRUE(nvml.ok()) << nvml.status();
    return nvml.ok() ? std::move(*nvml) : nullptr;
  }

  std::string dir_;
  std::string topology_;
};

TEST_F(NvmlLibraryTest, NamesBusIdsAndActiveLinksFarEnds) {
  WriteTopology(
      "NVIDIA H200|00000000:18:00.0|00000000:2A:00.0 - 00000000:2A:00.0\n"
      "NVIDIA H200|00000000:2A:00.0|00000000:18:00.0\n"
      "NVIDIA L4|00000000:3A:00.0|\n");
  std::unique_ptr<Nvml> nvml = Open();
  ASSERT_NE(nvml, nullptr);
  ASSERT_EQ(*nvml->DeviceCount(), 3);
  EXPECT_EQ(*nvml->DeviceName(0), "NVIDIA H200");
  EXPECT_EQ(*nvml->DeviceName(2), "NVIDIA L4");
  EXPECT_EQ(*nvml->PciBusId(1), "00000000:2A:00.0");
  // Link 1 is inactive: two far ends from three links.
  EXPECT_THAT(*nvml->NvLinkRemoteBusIds(0),
              ElementsAre("00000000:2A:00.0", "00000000:2A:00.0"));
  EXPECT_THAT(*nvml->NvLinkRemoteBusIds(1), ElementsAre("00000000:18:00.0"));
  // No NVLink (NOT_SUPPORTED): none, not an error.
  auto none = nvml->NvLinkRemoteBusIds(2);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_THAT(*none, IsEmpty());
}

TEST_F(NvmlLibraryTest, ErrorsNameTheCallAndUnknownGpusAreNotFound) {
  WriteTopology("NVIDIA H200|00000000:18:00.0|\n");  // GPU 1 has no line
  std::unique_ptr<Nvml> nvml = Open();
  ASSERT_NE(nvml, nullptr);
  auto name = nvml->DeviceName(1);
  EXPECT_EQ(name.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(name.status().message()),
              ::testing::HasSubstr("nvmlDeviceGetName(1)"));
  EXPECT_EQ(nvml->PciBusId(7).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(nvml->NvLinkRemoteBusIds(-1).status().code(),
            absl::StatusCode::kNotFound);
}

TEST(OpenNvmlAtTest, AMissingLibraryIsNotFound) {
  auto nvml = OpenNvmlAt("/nonexistent/libnvidia-ml.so.1");
  EXPECT_EQ(nvml.status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace fabricpulse::nvml
