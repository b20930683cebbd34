#include "daemon/agent/free_memory.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "daemon/core/bounded_file.h"
#include "daemon/core/host_memory.h"
#include "daemon/core/log.h"

namespace fabricpulse::agent {
namespace {

// /proc/meminfo is about 1.5 KB; cgroup files are one number.
constexpr size_t kMaxProcFileBytes = 64 << 10;

std::optional<uint64_t> CgroupFigure(const std::string& path) {
  absl::StatusOr<std::string> text =
      core::ReadBoundedFile(path, kMaxProcFileBytes, "cgroup memory");
  if (!text.ok()) return std::nullopt;
  return core::ParseCgroupBytes(*text);
}

}  // namespace

absl::StatusOr<uint64_t> ReadHostAvailableMemory() {
  absl::StatusOr<std::string> meminfo =
      core::ReadBoundedFile("/proc/meminfo", kMaxProcFileBytes, "host memory");
  if (!meminfo.ok()) return meminfo.status();
  absl::StatusOr<uint64_t> available = core::ParseMemAvailable(*meminfo);
  if (!available.ok()) return available.status();
  // cgroup v2 first; a v1 hierarchy has the memory controller in its own
  // folder.
  std::optional<uint64_t> limit = CgroupFigure("/sys/fs/cgroup/memory.max");
  std::optional<uint64_t> usage;
  if (limit) {
    usage = CgroupFigure("/sys/fs/cgroup/memory.current");
  } else {
    limit = CgroupFigure("/sys/fs/cgroup/memory/memory.limit_in_bytes");
    if (limit)
      usage = CgroupFigure("/sys/fs/cgroup/memory/memory.usage_in_bytes");
  }
  return core::HostAvailableBytes(*available, limit, usage);
}

FreeMemoryReader::FreeMemoryReader(std::shared_ptr<nvml::Nvml> nvml,
                                   HostReader host)
    : nvml_(std::move(nvml)), host_(std::move(host)) {}

void FreeMemoryReader::Annotate(v1::AgentInfo& info) const {
  std::optional<absl::StatusOr<uint64_t>> host;
  for (v1::WorkerInfo& w : *info.mutable_workers()) {
    absl::StatusOr<uint64_t> figure =
        absl::UnavailableError("NVML is not loaded (no NVIDIA driver?)");
    if (w.gpu() < 0) {
      if (!host) host = host_();
      figure = *host;
    } else if (nvml_ != nullptr) {
      figure = nvml_->FreeMemory(w.gpu());
    }
    if (figure.ok()) {
      w.set_free_memory_bytes(*figure);
    } else {
      w.clear_free_memory_bytes();
      FP_LOG_DEBUG(
          absl::StrCat("worker ", w.local_index(),
                       ": free memory unknown: ", figure.status().message()));
    }
  }
}

}  // namespace fabricpulse::agent
