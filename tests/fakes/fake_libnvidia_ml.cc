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
//  - FAKE_NVML_TOPOLOGY_FILE set: each GPU's name, PCI bus id and NVLinks,
//    read anew on every call, line i for GPU i: `NAME|BUS_ID|LINKS`, LINKS
//    the far ends' bus ids of links 0, 1, ... separated by spaces, `-` for
//    an inactive link (links past the list are inactive, up to 18; an empty
//    list: the GPU has no NVLink, NVML_ERROR_NOT_SUPPORTED). Without the
//    file, or without a GPU's line, those calls answer NOT_SUPPORTED.
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int kSuccess = 0;
constexpr int kInvalidArgument = 2;
constexpr int kNotSupported = 3;
constexpr int kInsufficientSize = 7;
constexpr unsigned int kMaxLinks = 18;  // NVML_NVLINK_MAX_LINKS

// nvmlPciInfo_t, as nvml_library.cc declares it.
struct PciInfo {
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];
};

struct Topology {
  std::string name;
  std::string bus_id;
  std::vector<std::string> links;  // "-": inactive
};

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

// GPU `index`'s line of FAKE_NVML_TOPOLOGY_FILE; false when there is none.
bool TopologyOf(std::uintptr_t index, Topology* out) {
  const char* path = std::getenv("FAKE_NVML_TOPOLOGY_FILE");
  if (path == nullptr) return false;
  std::ifstream in(path);
  std::string line;
  for (std::uintptr_t i = 0; std::getline(in, line); ++i) {
    if (i != index) continue;
    const size_t first = line.find('|');
    const size_t second =
        first == std::string::npos ? first : line.find('|', first + 1);
    if (second == std::string::npos) return false;
    out->name = line.substr(0, first);
    out->bus_id = line.substr(first + 1, second - first - 1);
    std::istringstream links(line.substr(second + 1));
    std::string token;
    while (links >> token) out->links.push_back(token);
    return true;
  }
  return false;
}

int Index(void* device, std::uintptr_t* index) {
  if (device == nullptr) return kInvalidArgument;
  *index = reinterpret_cast<std::uintptr_t>(device) - 1;
  return *index < Gpus().size() ? kSuccess : kInvalidArgument;
}

void FillPci(const std::string& bus_id, PciInfo* pci) {
  *pci = PciInfo{};
  bus_id.copy(pci->busId, sizeof(pci->busId) - 1);
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

extern "C" {

int nvmlDeviceGetName(void* device, char* name, unsigned int length) {
  std::uintptr_t index = 0;
  if (int r = Index(device, &index); r != kSuccess) return r;
  Topology topology;
  if (!TopologyOf(index, &topology)) return kNotSupported;
  if (name == nullptr || topology.name.size() >= length) {
    return kInsufficientSize;
  }
  topology.name.copy(name, length - 1);
  name[topology.name.size()] = '\0';
  return kSuccess;
}

int nvmlDeviceGetPciInfo_v3(void* device, PciInfo* pci) {
  std::uintptr_t index = 0;
  if (int r = Index(device, &index); r != kSuccess) return r;
  if (pci == nullptr) return kInvalidArgument;
  Topology topology;
  if (!TopologyOf(index, &topology)) return kNotSupported;
  FillPci(topology.bus_id, pci);
  return kSuccess;
}

// isActive: nvmlEnableState_t (NVML_FEATURE_ENABLED is 1).
int nvmlDeviceGetNvLinkState(void* device, unsigned int link, int* is_active) {
  std::uintptr_t index = 0;
  if (int r = Index(device, &index); r != kSuccess) return r;
  Topology topology;
  if (!TopologyOf(index, &topology) || topology.links.empty()) {
    return kNotSupported;
  }
  if (is_active == nullptr || link >= kMaxLinks) return kInvalidArgument;
  *is_active = link < topology.links.size() && topology.links[link] != "-";
  return kSuccess;
}

int nvmlDeviceGetNvLinkRemotePciInfo_v2(void* device, unsigned int link,
                                        PciInfo* pci) {
  std::uintptr_t index = 0;
  if (int r = Index(device, &index); r != kSuccess) return r;
  Topology topology;
  if (!TopologyOf(index, &topology) || topology.links.empty()) {
    return kNotSupported;
  }
  if (pci == nullptr || link >= topology.links.size() ||
      topology.links[link] == "-") {
    return kInvalidArgument;
  }
  FillPci(topology.links[link], pci);
  return kSuccess;
}

}  // extern "C"
