#include "daemon/agent/nic_reader.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "daemon/core/log.h"
#include "daemon/core/topology_limits.h"

namespace fabricpulse::agent {
namespace {

constexpr int kArphrdEther = 1;
constexpr int kArphrdInfiniband = 32;
constexpr int kArphrdLoopback = 772;
// 10 Tb/s: more is not a link speed.
constexpr int64_t kMaxSpeedMbps = 10'000'000;

// The first line of a sysfs attribute, trimmed; "" when it cannot be read.
std::string Attribute(const std::filesystem::path& dir, const char* name) {
  std::ifstream in(dir / name);
  std::string line;
  if (!std::getline(in, line)) return "";
  return std::string(absl::StripAsciiWhitespace(line));
}

std::string StateName(const std::string& operstate) {
  if (operstate == "up") return "up";
  if (operstate == "down" || operstate == "lowerlayerdown" ||
      operstate == "notpresent") {
    return "down";
  }
  return "unknown";
}

}  // namespace

NicReader::NicReader(std::string root) : root_(std::move(root)) {}

std::vector<v1::NicInfo> NicReader::Read() const {
  std::vector<std::string> names;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(root_, ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name == "lo" || name.size() > core::kMaxNicNameLength ||
        !std::all_of(name.begin(), name.end(),
                     [](char c) { return c > 0x20 && c < 0x7f; })) {
      continue;  // not a name the kernel gives a device
    }
    names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  std::vector<v1::NicInfo> nics;
  int left_out = 0;
  for (const std::string& name : names) {
    const std::filesystem::path dir = std::filesystem::path(root_) / name;
    std::error_code device_ec;
    if (!std::filesystem::exists(dir / "device", device_ec)) continue;
    int type = -1;
    if (!absl::SimpleAtoi(Attribute(dir, "type"), &type)) type = -1;
    if (type == kArphrdLoopback) continue;
    if (nics.size() >= core::kMaxNicsPerAgent) {
      ++left_out;
      continue;
    }
    v1::NicInfo& nic = nics.emplace_back();
    nic.set_name(name);
    nic.set_kind(type == kArphrdInfiniband ? "infiniband"
                 : type == kArphrdEther    ? "ethernet"
                                           : "other");
    nic.set_state(StateName(Attribute(dir, "operstate")));
    int64_t mbps = 0;
    if (absl::SimpleAtoi(Attribute(dir, "speed"), &mbps) && mbps > 0 &&
        mbps <= kMaxSpeedMbps) {
      nic.set_speed_bits_per_second(static_cast<uint64_t>(mbps) * 1'000'000);
    }
  }
  if (left_out > 0 && !told_left_out_.exchange(true)) {
    FP_LOG_WARNING(absl::StrCat(root_, ": ", nics.size() + left_out,
                                " network interfaces; reporting ", "the first ",
                                core::kMaxNicsPerAgent,
                                " by name, leaving out ", left_out));
  }
  return nics;
}

}  // namespace fabricpulse::agent
