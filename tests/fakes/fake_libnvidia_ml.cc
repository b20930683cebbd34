// A stand-in libnvidia-ml.so.1 for the integration tests: lets the real
// agent and CLI load "NVML" (dlopen, as on a GPU node) on machines without
// an NVIDIA driver. It has FAKE_NVML_DEVICE_COUNT GPUs (default 2), each
// with no compute process. Only the entry points daemon/nvml uses exist;
// their signatures follow NVIDIA's nvml.h (see nvml_library.cc).
#include <cstdint>
#include <cstdlib>

namespace {

constexpr int kSuccess = 0;
constexpr int kInvalidArgument = 2;

unsigned int DeviceCount() {
  const char* count = std::getenv("FAKE_NVML_DEVICE_COUNT");
  return count != nullptr ? static_cast<unsigned int>(std::atoi(count)) : 2;
}

}  // namespace

extern "C" {

int nvmlInit_v2() { return kSuccess; }
int nvmlShutdown() { return kSuccess; }
const char* nvmlErrorString(int result) {
  return result == kSuccess ? "Success" : "Fake NVML error";
}
int nvmlDeviceGetCount_v2(unsigned int* count) {
  if (count == nullptr) return kInvalidArgument;
  *count = DeviceCount();
  return kSuccess;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void** device) {
  if (device == nullptr || index >= DeviceCount()) return kInvalidArgument;
  *device = reinterpret_cast<void*>(static_cast<std::uintptr_t>(index) + 1);
  return kSuccess;
}
int nvmlDeviceGetComputeRunningProcesses_v3(void* device, unsigned int* count,
                                            void* infos) {
  if (count == nullptr) return kInvalidArgument;
  *count = 0;
  return kSuccess;
}

}  // extern "C"
