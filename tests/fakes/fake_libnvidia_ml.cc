// A stand-in libnvidia-ml.so.1 for the integration tests: lets the real
// agent and CLI load "NVML" (dlopen, as on a GPU node) on machines without
// an NVIDIA driver. Only the entry points daemon/nvml uses exist; their
// signatures follow NVIDIA's nvml.h (see nvml_library.cc).
//
// What it shows:
//  - FAKE_NVML_STATE_FILE set: that file, read anew on every call, one
//    line per GPU (line i is GPU i), each line the pids of the GPU's
//    compute processes separated by spaces (an empty line: none), each
//    `PID` (no memory figure: NVML_VALUE_NOT_AVAILABLE) or `PID:BYTES` (its
//    usedGpuMemory). A test
//    rewrites it (write a temporary file, then rename it over this one) to
//    make processes appear and go. A file that cannot be read shows no GPU.
//  - Otherwise FAKE_NVML_DEVICE_COUNT GPUs (default 2), each with no
//    compute process.
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int kSuccess = 0;
constexpr int kInvalidArgument = 2;
constexpr int kInsufficientSize = 7;

// nvmlProcessInfo_t (v2), as nvml_library.cc declares it.
struct ProcessInfo {
  unsigned int pid;
  unsigned long long usedGpuMemory;  // NOLINT(runtime/int): NVML's ABI
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};

constexpr unsigned long long kValueNotAvailable = ~0ULL;  // NOLINT

// Each GPU's compute processes.
std::vector<std::vector<ProcessInfo>> Gpus() {
  std::vector<std::vector<ProcessInfo>> gpus;
  if (const char* path = std::getenv("FAKE_NVML_STATE_FILE")) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::vector<ProcessInfo> processes;
      std::string token;
      while (fields >> token) {
        ProcessInfo info = {0, kValueNotAvailable, 0, 0};
        const size_t colon = token.find(':');
        info.pid =
            static_cast<unsigned int>(std::stoul(token.substr(0, colon)));
        if (colon != std::string::npos) {
          info.usedGpuMemory = std::stoull(token.substr(colon + 1));
        }
        processes.push_back(info);
      }
      gpus.push_back(std::move(processes));
    }
    return gpus;
  }
  const char* count = std::getenv("FAKE_NVML_DEVICE_COUNT");
  gpus.resize(count != nullptr ? std::atoi(count) : 2);
  return gpus;
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
  *count = static_cast<unsigned int>(Gpus().size());
  return kSuccess;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void** device) {
  if (device == nullptr || index >= Gpus().size()) return kInvalidArgument;
  *device = reinterpret_cast<void*>(static_cast<std::uintptr_t>(index) + 1);
  return kSuccess;
}
int nvmlDeviceGetComputeRunningProcesses_v3(void* device, unsigned int* count,
                                            ProcessInfo* infos) {
  if (count == nullptr || device == nullptr) return kInvalidArgument;
  const auto index = reinterpret_cast<std::uintptr_t>(device) - 1;
  const std::vector<std::vector<ProcessInfo>> gpus = Gpus();
  if (index >= gpus.size()) return kInvalidArgument;
  const std::vector<ProcessInfo>& processes = gpus[index];
  if (*count < processes.size() || (infos == nullptr && !processes.empty())) {
    *count = static_cast<unsigned int>(processes.size());
    return kInsufficientSize;
  }
  for (size_t i = 0; i < processes.size(); ++i) infos[i] = processes[i];
  *count = static_cast<unsigned int>(processes.size());
  return kSuccess;
}

}  // extern "C"
