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

// The NVML index in `entry`'s leading digits, when below `devices`.
std::optional<int> Index(absl::string_view entry, int devices) {
  size_t digits = 0;
  while (digits < entry.size() && absl::ascii_isdigit(entry[digits])) {
    ++digits;
  }
  int index = 0;
  if (digits == 0 || !absl::SimpleAtoi(entry.substr(0, digits), &index) ||
      index >= devices) {
    return std::nullopt;
  }
  return index;
}

// The one UUID of `uuids` that `entry` is a prefix of, or nullopt (none,
// or more than one).
std::optional<std::string> MatchUuid(absl::string_view entry,
                                     const std::vector<std::string>& uuids) {
  std::optional<std::string> match;
  for (const std::string& uuid : uuids) {
    if (!absl::StartsWith(uuid, entry)) continue;
    if (match.has_value()) return std::nullopt;
    match = uuid;
  }
  return match;
}

}  // namespace

int CudaVisibleCount(int devices,
                     const std::optional<std::string>& cuda_visible_devices) {
  return CudaVisibleCount(devices, {}, cuda_visible_devices);
}

int CudaVisibleCount(int devices, const std::vector<std::string>& uuids,
                     const std::optional<std::string>& cuda_visible_devices) {
  devices = std::max(devices, 0);
  if (!cuda_visible_devices.has_value()) return devices;
  std::vector<absl::string_view> entries =
      absl::StrSplit(*cuda_visible_devices, ',');
  for (absl::string_view& entry : entries) {
    entry = absl::StripAsciiWhitespace(entry);
  }
  const bool uuids_listed = !entries.empty() && IsUuid(entries.front());
  std::set<std::string> seen;  // UUIDs, or indices in decimal
  int count = 0;
  for (absl::string_view entry : entries) {
    std::string key;
    if (uuids_listed) {
      if (!IsUuid(entry)) break;
      key = std::string(entry);
      if (!uuids.empty() && absl::StartsWith(entry, "GPU-")) {
        std::optional<std::string> uuid = MatchUuid(entry, uuids);
        if (!uuid.has_value()) break;  // no such GPU
        key = *uuid;
      }
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
  std::vector<std::string> uuids;
  if (cuda_visible_devices.has_value()) {
    for (int i = 0; i < *devices; ++i) {
      absl::StatusOr<std::string> uuid = nvml->DeviceUuid(i);
      if (!uuid.ok()) {  // not known: GPU- entries count unverified
        uuids.clear();
        break;
      }
      uuids.push_back(*uuid);
    }
  }
  return CudaVisibleCount(*devices, uuids, cuda_visible_devices);
}

}  // namespace fabricpulse::nvml
