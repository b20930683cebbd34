#include "daemon/agent/nvml_library.h"

#include <dlfcn.h>

#include <string>

#include "absl/strings/str_cat.h"

namespace fabricpulse::agent {
namespace {

// The few NVML declarations this file needs, from NVIDIA's nvml.h (NVML API
// version 12; there is no nvml.h on the build machines). ABI notes:
//  - nvmlReturn_t is a C enum (int); NVML_SUCCESS is 0 and
//    NVML_ERROR_INSUFFICIENT_SIZE is 7.
//  - nvmlDevice_t is an opaque pointer (struct nvmlDevice_st*).
//  - nvmlProcessInfo_t (= nvmlProcessInfo_v2_t) is the struct below; both
//    nvmlDeviceGetComputeRunningProcesses_v3 and _v2 fill it (_v1 takes a
//    two-field struct and is not used).
using NvmlReturn = int;
using NvmlDevice = struct NvmlDeviceOpaque*;
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr NvmlReturn kNvmlErrorNotFound = 6;
constexpr NvmlReturn kNvmlErrorInsufficientSize = 7;
constexpr NvmlReturn kNvmlErrorInvalidArgument = 2;

struct NvmlProcessInfo {
  unsigned int pid;
  unsigned long long usedGpuMemory;  // NOLINT(runtime/int): NVML's ABI
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};

using InitFn = NvmlReturn (*)();
using ShutdownFn = NvmlReturn (*)();
using ErrorStringFn = const char* (*)(NvmlReturn);
using HandleByIndexFn = NvmlReturn (*)(unsigned int, NvmlDevice*);
using ComputeProcessesFn = NvmlReturn (*)(NvmlDevice, unsigned int*,
                                          NvmlProcessInfo*);

// Processes can start between the sizing call and the filling call; a few
// attempts with headroom cover it.
constexpr int kAttempts = 4;
constexpr unsigned int kHeadroom = 8;

class NvmlLibrary final : public GpuProcessLister {
 public:
  NvmlLibrary(void* handle, ShutdownFn shutdown, ErrorStringFn error_string,
              HandleByIndexFn handle_by_index, ComputeProcessesFn processes)
      : handle_(handle),
        shutdown_(shutdown),
        error_string_(error_string),
        handle_by_index_(handle_by_index),
        processes_(processes) {}

  ~NvmlLibrary() override {
    shutdown_();
    dlclose(handle_);
  }

  absl::StatusOr<std::vector<int64_t>> ComputePids(int nvml_index) override {
    if (nvml_index < 0) {
      return absl::NotFoundError(
          absl::StrCat("GPU ", nvml_index, ": not an NVML index"));
    }
    NvmlDevice device = nullptr;
    NvmlReturn r =
        handle_by_index_(static_cast<unsigned int>(nvml_index), &device);
    if (r != kNvmlSuccess) {
      const std::string message = absl::StrCat(
          "nvmlDeviceGetHandleByIndex(", nvml_index, "): ", ErrorString(r));
      if (r == kNvmlErrorInvalidArgument || r == kNvmlErrorNotFound) {
        return absl::NotFoundError(message);
      }
      return absl::UnavailableError(message);
    }
    std::vector<NvmlProcessInfo> infos;
    unsigned int count = 0;
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
      infos.resize(count);
      unsigned int capacity = count;
      r = processes_(device, &capacity, infos.empty() ? nullptr : infos.data());
      if (r == kNvmlSuccess) {
        infos.resize(capacity);
        std::vector<int64_t> pids;
        pids.reserve(infos.size());
        for (const NvmlProcessInfo& info : infos) pids.push_back(info.pid);
        return pids;
      }
      if (r != kNvmlErrorInsufficientSize) break;
      count = capacity + kHeadroom;
    }
    return absl::UnavailableError(
        absl::StrCat("nvmlDeviceGetComputeRunningProcesses(GPU ", nvml_index,
                     "): ", ErrorString(r)));
  }

 private:
  std::string ErrorString(NvmlReturn r) const {
    const char* s = error_string_(r);
    return absl::StrCat(s != nullptr ? s : "unknown error", " (", r, ")");
  }

  void* const handle_;
  const ShutdownFn shutdown_;
  const ErrorStringFn error_string_;
  const HandleByIndexFn handle_by_index_;
  const ComputeProcessesFn processes_;
};

template <typename Fn>
Fn Symbol(void* handle, const char* name) {
  return reinterpret_cast<Fn>(dlsym(handle, name));
}

}  // namespace

absl::StatusOr<std::unique_ptr<GpuProcessLister>> OpenNvml() {
  void* handle = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return absl::NotFoundError(
        absl::StrCat("cannot load libnvidia-ml.so.1 (no NVIDIA driver?): ",
                     why != nullptr ? why : "dlopen failed"));
  }
  auto init = Symbol<InitFn>(handle, "nvmlInit_v2");
  auto shutdown = Symbol<ShutdownFn>(handle, "nvmlShutdown");
  auto error_string = Symbol<ErrorStringFn>(handle, "nvmlErrorString");
  auto handle_by_index =
      Symbol<HandleByIndexFn>(handle, "nvmlDeviceGetHandleByIndex_v2");
  auto processes = Symbol<ComputeProcessesFn>(
      handle, "nvmlDeviceGetComputeRunningProcesses_v3");
  if (processes == nullptr) {  // drivers before the v3 entry point
    processes = Symbol<ComputeProcessesFn>(
        handle, "nvmlDeviceGetComputeRunningProcesses_v2");
  }
  if (init == nullptr || shutdown == nullptr || error_string == nullptr ||
      handle_by_index == nullptr || processes == nullptr) {
    dlclose(handle);
    return absl::UnavailableError(
        "libnvidia-ml.so.1 lacks nvmlInit_v2, nvmlShutdown, nvmlErrorString, "
        "nvmlDeviceGetHandleByIndex_v2 or "
        "nvmlDeviceGetComputeRunningProcesses_v3/_v2 (driver too old?)");
  }
  const NvmlReturn r = init();
  if (r != kNvmlSuccess) {
    const char* s = error_string(r);
    const std::string message = absl::StrCat(
        "nvmlInit_v2: ", s != nullptr ? s : "unknown error", " (", r, ")");
    dlclose(handle);
    return absl::UnavailableError(message);
  }
  return std::unique_ptr<GpuProcessLister>(new NvmlLibrary(
      handle, shutdown, error_string, handle_by_index, processes));
}

}  // namespace fabricpulse::agent
