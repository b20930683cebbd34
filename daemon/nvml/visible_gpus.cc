#include "daemon/nvml/visible_gpus.h"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace fabricpulse::nvml {
namespace {

bool IsUuid(absl::string_view entry) {
  return absl::StartsWith(entry, "GPU-") || absl::StartsWith(entry, "MIG-");
}

// An NVML index below `devices`, or nullopt.
std::optional<int> Index(absl::string_view entry, int devices) {
  if (entry.empty() || !std::all_of(entry.begin(), entry.end(), [](char c) {
        return absl::ascii_isdigit(c);
      })) {
    return std::nullopt;
  }
  int index = 0;
  if (!absl::SimpleAtoi(entry, &index) || index >= devices) {
    return std::nullopt;
  }
  return index;
}

}  // namespace

int CudaVisibleCount(int devices,
                     const std::optional<std::string>& cuda_visible_devices) {
  devices = std::max(devices, 0);
  if (!cuda_visible_devices.has_value()) return devices;
  std::vector<absl::string_view> entries =
      absl::StrSplit(*cuda_visible_devices, ',');
  for (absl::string_view& entry : entries) {
    entry = absl::StripAsciiWhitespace(entry);
  }
  const bool uuids = !entries.empty() && IsUuid(entries.front());
  std::set<std::string> seen;  // UUIDs, or indices in decimal
  int count = 0;
  for (absl::string_view entry : entries) {
    std::string key;
    if (uuids) {
      if (!IsUuid(entry)) break;
      key = std::string(entry);
    } else {
      const std::optional<int> index = Index(entry, devices);
      if (!index.has_value()) break;
      key = absl::StrCat(*index);
    }
    // A repeated device hides every device from CUDA.
    if (!seen.insert(key).second) return 0;
    ++count;
  }
  return std::min(count, devices);
}

std::optional<std::string> CudaVisibleDevicesFromEnv() {
  const char* value = std::getenv("CUDA_VISIBLE_DEVICES");
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

int VisibleGpuCount(Nvml* nvml,
                    const std::optional<std::string>& cuda_visible_devices) {
  if (nvml == nullptr) return 0;
  absl::StatusOr<int> devices = nvml->DeviceCount();
  if (!devices.ok()) return 0;
  return CudaVisibleCount(*devices, cuda_visible_devices);
}

}  // namespace fabricpulse::nvml
