#include "daemon/nvml/nvml_library.h"

#include <dlfcn.h>

#include <cstring>
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

// nvmlPciInfo_t (nvmlDeviceGetPciInfo_v3, nvmlDeviceGetNvLinkRemotePciInfo_v2):
// the legacy 16-byte bus id, domain, bus, device, device and subsystem ids,
// then the 32-byte busId (NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE).
struct NvmlPciInfo {
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];
};
// NVML_ERROR_NOT_SUPPORTED: a GPU without NVLink.
constexpr NvmlReturn kNvmlErrorNotSupported = 3;
// nvmlEnableState_t's NVML_FEATURE_ENABLED: an active link.
constexpr int kNvmlFeatureEnabled = 1;

using InitFn = NvmlReturn (*)();
using ShutdownFn = NvmlReturn (*)();
using ErrorStringFn = const char* (*)(NvmlReturn);
using CountFn = NvmlReturn (*)(unsigned int*);
using UuidFn = NvmlReturn (*)(NvmlDevice, char*, unsigned int);
using HandleByIndexFn = NvmlReturn (*)(unsigned int, NvmlDevice*);
using MemoryInfoFn = NvmlReturn (*)(NvmlDevice, NvmlMemory*);
using NameFn = NvmlReturn (*)(NvmlDevice, char*, unsigned int);
using PciInfoFn = NvmlReturn (*)(NvmlDevice, NvmlPciInfo*);
using NvLinkStateFn = NvmlReturn (*)(NvmlDevice, unsigned int, int*);
using NvLinkRemotePciFn = NvmlReturn (*)(NvmlDevice, unsigned int,
                                         NvmlPciInfo*);
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
  NameFn name = nullptr;          // optional, as are the three below
  PciInfoFn pci_info = nullptr;
  NvLinkStateFn nvlink_state = nullptr;
  NvLinkRemotePciFn nvlink_remote_pci = nullptr;
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

  absl::StatusOr<std::string> DeviceName(int nvml_index) override {
    if (entries_.name == nullptr) {
      return absl::UnavailableError(
          "libnvidia-ml.so.1 lacks nvmlDeviceGetName");
    }
    auto device = Handle(nvml_index);
    if (!device.ok()) return device.status();
    char name[96] = {};  // NVML_DEVICE_NAME_V2_BUFFER_SIZE is 96
    const NvmlReturn r = entries_.name(*device, name, sizeof(name) - 1);
    if (r != kNvmlSuccess) {
      return absl::UnavailableError(absl::StrCat(
          "nvmlDeviceGetName(", nvml_index, "): ", ErrorString(r)));
    }
    return std::string(name);
  }

  absl::StatusOr<std::string> PciBusId(int nvml_index) override {
    if (entries_.pci_info == nullptr) {
      return absl::UnavailableError(
          "libnvidia-ml.so.1 lacks nvmlDeviceGetPciInfo_v3");
    }
    auto device = Handle(nvml_index);
    if (!device.ok()) return device.status();
    NvmlPciInfo pci = {};
    const NvmlReturn r = entries_.pci_info(*device, &pci);
    if (r != kNvmlSuccess) {
      return absl::UnavailableError(absl::StrCat(
          "nvmlDeviceGetPciInfo_v3(", nvml_index, "): ", ErrorString(r)));
    }
    return BusId(pci);
  }

  absl::StatusOr<std::vector<std::string>> NvLinkRemoteBusIds(
      int nvml_index) override {
    if (entries_.nvlink_state == nullptr ||
        entries_.nvlink_remote_pci == nullptr) {
      return absl::UnavailableError(
          "libnvidia-ml.so.1 lacks nvmlDeviceGetNvLinkState or "
          "nvmlDeviceGetNvLinkRemotePciInfo_v2");
    }
    auto device = Handle(nvml_index);
    if (!device.ok()) return device.status();
    std::vector<std::string> remotes;
    for (int link = 0; link < kMaxNvLinks; ++link) {
      int active = 0;
      NvmlReturn r = entries_.nvlink_state(
          *device, static_cast<unsigned int>(link), &active);
      // No NVLink at all, or past the GPU's last link.
      if (r == kNvmlErrorNotSupported || r == kNvmlErrorInvalidArgument) break;
      if (r != kNvmlSuccess) {
        return absl::UnavailableError(absl::StrCat("nvmlDeviceGetNvLinkState(",
                                                   nvml_index, ", link ", link,
                                                   "): ", ErrorString(r)));
      }
      if (active != kNvmlFeatureEnabled) continue;
      NvmlPciInfo pci = {};
      r = entries_.nvlink_remote_pci(*device, static_cast<unsigned int>(link),
                                     &pci);
      if (r != kNvmlSuccess) {
        return absl::UnavailableError(
            absl::StrCat("nvmlDeviceGetNvLinkRemotePciInfo_v2(", nvml_index,
                         ", link ", link, "): ", ErrorString(r)));
      }
      remotes.push_back(BusId(pci));
    }
    return remotes;
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

  // busId, terminated within its buffer whatever the library wrote.
  static std::string BusId(const NvmlPciInfo& pci) {
    const char* end =
        static_cast<const char*>(memchr(pci.busId, '\0', sizeof(pci.busId)));
    return std::string(pci.busId, end != nullptr
                                      ? static_cast<size_t>(end - pci.busId)
                                      : sizeof(pci.busId));
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
  return OpenNvmlAt("libnvidia-ml.so.1");
}

absl::StatusOr<std::unique_ptr<Nvml>> OpenNvmlAt(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return absl::NotFoundError(absl::StrCat(
        "cannot load ", path,
        " (no NVIDIA driver?): ", why != nullptr ? why : "dlopen failed"));
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
  entries.name = Symbol<NameFn>(handle, "nvmlDeviceGetName");
  entries.pci_info = Symbol<PciInfoFn>(handle, "nvmlDeviceGetPciInfo_v3");
  if (entries.pci_info == nullptr) {  // drivers before the v3 entry point
    entries.pci_info = Symbol<PciInfoFn>(handle, "nvmlDeviceGetPciInfo_v2");
  }
  entries.nvlink_state =
      Symbol<NvLinkStateFn>(handle, "nvmlDeviceGetNvLinkState");
  entries.nvlink_remote_pci =
      Symbol<NvLinkRemotePciFn>(handle, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
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
