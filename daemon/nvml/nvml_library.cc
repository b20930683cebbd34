#include "daemon/nvml/nvml_library.h"

#include <dlfcn.h>

#include <string>

#include "absl/strings/str_cat.h"

namespace fabricpulse::nvml {
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
// NVML_VALUE_NOT_AVAILABLE: usedGpuMemory when NVML cannot tell.
constexpr unsigned long long kNvmlValueNotAvailable =  // NOLINT(runtime/int)
    ~0ULL;

struct NvmlProcessInfo {
  unsigned int pid;
  unsigned long long usedGpuMemory;  // NOLINT(runtime/int): NVML's ABI
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};

// nvmlMemory_t (version 1 of nvmlDeviceGetMemoryInfo): total, free, used.
struct NvmlMemory {
  unsigned long long total;  // NOLINT(runtime/int): NVML's ABI
  unsigned long long free;   // NOLINT(runtime/int)
  unsigned long long used;   // NOLINT(runtime/int)
};

using InitFn = NvmlReturn (*)();
using ShutdownFn = NvmlReturn (*)();
using ErrorStringFn = const char* (*)(NvmlReturn);
using CountFn = NvmlReturn (*)(unsigned int*);
using UuidFn = NvmlReturn (*)(NvmlDevice, char*, unsigned int);
using HandleByIndexFn = NvmlReturn (*)(unsigned int, NvmlDevice*);
using MemoryInfoFn = NvmlReturn (*)(NvmlDevice, NvmlMemory*);
using ComputeProcessesFn = NvmlReturn (*)(NvmlDevice, unsigned int*,
                                          NvmlProcessInfo*);

// Processes can start between the sizing call and the filling call; a few
// attempts with headroom cover it.
constexpr int kAttempts = 4;
constexpr unsigned int kHeadroom = 8;

// The entry points, resolved once; `processes` may be null (a driver
// without them: ComputeProcesses answers UNAVAILABLE).
struct Entries {
  ShutdownFn shutdown = nullptr;
  ErrorStringFn error_string = nullptr;
  CountFn count = nullptr;
  HandleByIndexFn handle_by_index = nullptr;
  ComputeProcessesFn processes = nullptr;
  UuidFn uuid = nullptr;          // optional
  MemoryInfoFn memory = nullptr;  // optional
};

class NvmlLibrary final : public Nvml {
 public:
  NvmlLibrary(void* handle, Entries entries)
      : handle_(handle), entries_(entries) {}

  ~NvmlLibrary() override {
    entries_.shutdown();
    dlclose(handle_);
  }

  absl::StatusOr<int> DeviceCount() override {
    unsigned int count = 0;
    const NvmlReturn r = entries_.count(&count);
    if (r != kNvmlSuccess) {
      return absl::UnavailableError(
          absl::StrCat("nvmlDeviceGetCount_v2: ", ErrorString(r)));
    }
    return static_cast<int>(count);
  }

  absl::StatusOr<std::string> DeviceUuid(int nvml_index) override {
    if (entries_.uuid == nullptr) {
      return absl::UnavailableError(
          "libnvidia-ml.so.1 lacks nvmlDeviceGetUUID");
    }
    auto device = Handle(nvml_index);
    if (!device.ok()) return device.status();
    char uuid[96] = {};  // NVML_DEVICE_UUID_V2_BUFFER_SIZE is 96
    const NvmlReturn r = entries_.uuid(*device, uuid, sizeof(uuid));
    if (r != kNvmlSuccess) {
      return absl::UnavailableError(absl::StrCat(
          "nvmlDeviceGetUUID(", nvml_index, "): ", ErrorString(r)));
    }
    return std::string(uuid);
  }

  absl::StatusOr<uint64_t> FreeMemory(int nvml_index) override {
    if (entries_.memory == nullptr) {
      return absl::UnavailableError(
          "libnvidia-ml.so.1 lacks nvmlDeviceGetMemoryInfo");
    }
    auto device = Handle(nvml_index);
    if (!device.ok()) return device.status();
    NvmlMemory memory = {};
    const NvmlReturn r = entries_.memory(*device, &memory);
    if (r != kNvmlSuccess) {
      return absl::UnavailableError(absl::StrCat(
          "nvmlDeviceGetMemoryInfo(", nvml_index, "): ", ErrorString(r)));
    }
    return static_cast<uint64_t>(memory.free);
  }

  absl::StatusOr<std::vector<ComputeProcess>> ComputeProcesses(
      int nvml_index) override {
    if (entries_.processes == nullptr) {
      return absl::UnavailableError(
          "libnvidia-ml.so.1 lacks nvmlDeviceGetComputeRunningProcesses_v3 "
          "and _v2 (driver too old?)");
    }
    auto handle = Handle(nvml_index);
    if (!handle.ok()) return handle.status();
    NvmlDevice device = *handle;
    NvmlReturn r = kNvmlSuccess;
    std::vector<NvmlProcessInfo> infos;
    unsigned int count = 0;
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
      infos.resize(count);
      unsigned int capacity = count;
      r = entries_.processes(device, &capacity,
                             infos.empty() ? nullptr : infos.data());
      if (r == kNvmlSuccess) {
        infos.resize(capacity);
        std::vector<ComputeProcess> processes;
        processes.reserve(infos.size());
        for (const NvmlProcessInfo& info : infos) {
          ComputeProcess process;
          process.pid = info.pid;
          if (info.usedGpuMemory != kNvmlValueNotAvailable) {
            process.used_bytes = static_cast<uint64_t>(info.usedGpuMemory);
          }
          processes.push_back(process);
        }
        return processes;
      }
      if (r != kNvmlErrorInsufficientSize) break;
      count = capacity + kHeadroom;
    }
    return absl::UnavailableError(
        absl::StrCat("nvmlDeviceGetComputeRunningProcesses(GPU ", nvml_index,
                     "): ", ErrorString(r)));
  }

 private:
  // Errors: NOT_FOUND no such GPU; UNAVAILABLE NVML's other errors.
  absl::StatusOr<NvmlDevice> Handle(int nvml_index) const {
    if (nvml_index < 0) {
      return absl::NotFoundError(
          absl::StrCat("GPU ", nvml_index, ": not an NVML index"));
    }
    NvmlDevice device = nullptr;
    const NvmlReturn r = entries_.handle_by_index(
        static_cast<unsigned int>(nvml_index), &device);
    if (r != kNvmlSuccess) {
      const std::string message = absl::StrCat(
          "nvmlDeviceGetHandleByIndex(", nvml_index, "): ", ErrorString(r));
      if (r == kNvmlErrorInvalidArgument || r == kNvmlErrorNotFound) {
        return absl::NotFoundError(message);
      }
      return absl::UnavailableError(message);
    }
    return device;
  }

  std::string ErrorString(NvmlReturn r) const {
    const char* s = entries_.error_string(r);
    return absl::StrCat(s != nullptr ? s : "unknown error", " (", r, ")");
  }

  void* const handle_;
  const Entries entries_;
};

template <typename Fn>
Fn Symbol(void* handle, const char* name) {
  return reinterpret_cast<Fn>(dlsym(handle, name));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Nvml>> OpenNvml() {
  void* handle = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return absl::NotFoundError(
        absl::StrCat("cannot load libnvidia-ml.so.1 (no NVIDIA driver?): ",
                     why != nullptr ? why : "dlopen failed"));
  }
  auto init = Symbol<InitFn>(handle, "nvmlInit_v2");
  Entries entries;
  entries.shutdown = Symbol<ShutdownFn>(handle, "nvmlShutdown");
  entries.error_string = Symbol<ErrorStringFn>(handle, "nvmlErrorString");
  entries.count = Symbol<CountFn>(handle, "nvmlDeviceGetCount_v2");
  entries.handle_by_index =
      Symbol<HandleByIndexFn>(handle, "nvmlDeviceGetHandleByIndex_v2");
  entries.processes = Symbol<ComputeProcessesFn>(
      handle, "nvmlDeviceGetComputeRunningProcesses_v3");
  entries.uuid = Symbol<UuidFn>(handle, "nvmlDeviceGetUUID");
  entries.memory = Symbol<MemoryInfoFn>(handle, "nvmlDeviceGetMemoryInfo");
  if (entries.processes == nullptr) {  // drivers before the v3 entry point
    entries.processes = Symbol<ComputeProcessesFn>(
        handle, "nvmlDeviceGetComputeRunningProcesses_v2");
  }
  if (init == nullptr || entries.shutdown == nullptr ||
      entries.error_string == nullptr || entries.count == nullptr ||
      entries.handle_by_index == nullptr) {
    dlclose(handle);
    return absl::UnavailableError(
        "libnvidia-ml.so.1 lacks nvmlInit_v2, nvmlShutdown, nvmlErrorString, "
        "nvmlDeviceGetCount_v2 or nvmlDeviceGetHandleByIndex_v2 (driver too "
        "old?)");
  }
  const NvmlReturn r = init();
  if (r != kNvmlSuccess) {
    const char* s = entries.error_string(r);
    const std::string message = absl::StrCat(
        "nvmlInit_v2: ", s != nullptr ? s : "unknown error", " (", r, ")");
    dlclose(handle);
    return absl::UnavailableError(message);
  }
  return std::unique_ptr<Nvml>(new NvmlLibrary(handle, entries));
}

}  // namespace fabricpulse::nvml
