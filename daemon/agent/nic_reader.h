// The machine's network interfaces as the agent reports them
// (AgentInfo.nics), from sysfs (/sys/class/net/<name>/):
//  - kind from `type` (ARPHRD): 32 infiniband, 1 ethernet, else other;
//  - state from `operstate`: up; down, lowerlayerdown and notpresent as
//    down; anything else (unknown, dormant, testing) as unknown;
//  - speed from `speed` (Mb/s): absent when the file cannot be read (the
//    kernel refuses it while the link is down), says -1 or is not a
//    positive number.
// Left out: loopback (`lo`, type 772) and virtual interfaces, i.e. those
// without a `device` entry (veth, bridges, bonds, VLANs, tunnels,
// docker0...): only interfaces backed by a device are fabric. Inside a
// container without the host's network namespace that leaves none.
// Bound: the first core::kMaxNicsPerAgent (core/topology_limits.h) interfaces
// by name; the rest are left out, and how many is logged once.
//
// Cost: a directory listing and three small reads per interface. The agent
// reads them anew at every scrape of its metrics, so a link going down
// shows in the next scrape, and every time it describes itself in full
// (registration, Describe); not at heartbeats, which do not carry them.
//
// Thread-safety: Read may be called from any thread.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::agent {

class NicReader {
 public:
  // `root`: the sysfs folder of the interfaces (/sys/class/net; a
  // temporary tree in tests, the agent's --sys-class-net).
  explicit NicReader(std::string root = "/sys/class/net");

  // The interfaces now, sorted by name. A root that cannot be listed gives
  // none.
  std::vector<v1::NicInfo> Read() const;

 private:
  const std::string root_;
  mutable std::atomic<bool> told_left_out_{false};
};

}  // namespace fabricpulse::agent
