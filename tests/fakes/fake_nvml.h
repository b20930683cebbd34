// An Nvml for unit tests: the device count, the compute processes and free
// memory of each GPU are whatever the test sets, and each can be made to
// fail.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "daemon/nvml/nvml_library.h"

namespace fabricpulse::fakes {

// Thread-safe.
class FakeNvml : public nvml::Nvml {
 public:
  // The count DeviceCount() answers (default 0), or its error.
  void SetDeviceCount(absl::StatusOr<int> count) {
    absl::MutexLock lock(&mu_);
    count_ = std::move(count);
  }
  // The GPU's compute processes, with no memory figure.
  void SetPids(int gpu, const std::vector<int64_t>& pids) {
    std::vector<nvml::ComputeProcess> processes;
    for (int64_t pid : pids) processes.push_back({pid, std::nullopt});
    SetProcesses(gpu, std::move(processes));
  }
  void SetProcesses(int gpu, std::vector<nvml::ComputeProcess> processes) {
    absl::MutexLock lock(&mu_);
    processes_[gpu] = std::move(processes);
    errors_.erase(gpu);
  }
  void SetError(int gpu, absl::Status error) {
    absl::MutexLock lock(&mu_);
    errors_[gpu] = std::move(error);
  }

  // The UUIDs DeviceUuid() answers, by NVML index (none: NOT_FOUND).
  void SetUuids(std::vector<std::string> uuids) {
    absl::MutexLock lock(&mu_);
    uuids_ = std::move(uuids);
  }
  absl::StatusOr<std::string> DeviceUuid(int nvml_index) override {
    absl::MutexLock lock(&mu_);
    if (nvml_index < 0 || nvml_index >= static_cast<int>(uuids_.size())) {
      return absl::NotFoundError(absl::StrCat("no GPU ", nvml_index));
    }
    return uuids_[nvml_index];
  }

  // The free memory FreeMemory() answers, by NVML index (none: NOT_FOUND),
  // or its error.
  void SetFreeMemory(int gpu, absl::StatusOr<uint64_t> bytes) {
    absl::MutexLock lock(&mu_);
    free_.insert_or_assign(gpu, std::move(bytes));
  }
  absl::StatusOr<uint64_t> FreeMemory(int nvml_index) override {
    absl::MutexLock lock(&mu_);
    auto it = free_.find(nvml_index);
    if (it == free_.end()) {
      return absl::NotFoundError(absl::StrCat("no GPU ", nvml_index));
    }
    return it->second;
  }

  // What DeviceName, PciBusId and NvLinkRemoteBusIds answer for a GPU
  // (none set: NOT_FOUND).
  struct Topology {
    absl::StatusOr<std::string> name;
    absl::StatusOr<std::string> bus_id;
    absl::StatusOr<std::vector<std::string>> nvlink_remotes;
  };
  void SetTopology(int gpu, Topology topology) {
    absl::MutexLock lock(&mu_);
    topology_.insert_or_assign(gpu, std::move(topology));
  }
  absl::StatusOr<std::string> DeviceName(int nvml_index) override {
    absl::MutexLock lock(&mu_);
    auto it = topology_.find(nvml_index);
    if (it == topology_.end()) return NoGpu(nvml_index);
    return it->second.name;
  }
  absl::StatusOr<std::string> PciBusId(int nvml_index) override {
    absl::MutexLock lock(&mu_);
    auto it = topology_.find(nvml_index);
    if (it == topology_.end()) return NoGpu(nvml_index);
    return it->second.bus_id;
  }
  absl::StatusOr<std::vector<std::string>> NvLinkRemoteBusIds(
      int nvml_index) override {
    absl::MutexLock lock(&mu_);
    auto it = topology_.find(nvml_index);
    if (it == topology_.end()) return NoGpu(nvml_index);
    return it->second.nvlink_remotes;
  }

  absl::StatusOr<int> DeviceCount() override {
    absl::MutexLock lock(&mu_);
    return count_;
  }

  absl::StatusOr<std::vector<nvml::ComputeProcess>> ComputeProcesses(
      int nvml_index) override {
    absl::MutexLock lock(&mu_);
    auto error = errors_.find(nvml_index);
    if (error != errors_.end()) return error->second;
    auto it = processes_.find(nvml_index);
    if (it == processes_.end()) {
      return absl::NotFoundError(absl::StrCat("no GPU ", nvml_index));
    }
    return it->second;
  }

 private:
  static absl::Status NoGpu(int gpu) {
    return absl::NotFoundError(absl::StrCat("no GPU ", gpu));
  }

  absl::Mutex mu_;
  std::map<int, Topology> topology_ ABSL_GUARDED_BY(mu_);
  absl::StatusOr<int> count_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<int, std::vector<nvml::ComputeProcess>> processes_
      ABSL_GUARDED_BY(mu_);
  std::map<int, absl::Status> errors_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> uuids_ ABSL_GUARDED_BY(mu_);
  std::map<int, absl::StatusOr<uint64_t>> free_ ABSL_GUARDED_BY(mu_);
};

}  // namespace fabricpulse::fakes
