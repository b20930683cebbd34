// Which nodes have fewer links up than their peers (issue 29, item 4): a GPU
// with fewer active NVLinks than the GPUs of its model elsewhere, or a
// machine with less NIC bandwidth up than the machines with its GPU model.
// A degraded topology is named instead of becoming the new normal.
//
// The rule, per figure (a GPU's active NVLinks; a node's NIC bandwidth up:
// the sum of the speeds of its InfiniBand and Ethernet interfaces that are
// up, where they report a speed):
//  - peers: the same figure on every alive node with the same GPU model
//    (NICs: the node's first GPU's model; "" for CPU-only nodes, which are
//    peers of one another), the node itself included; at least
//    kMinLinkPeerNodes nodes must report it, else nothing is judged;
//  - below: the figure is under the peers' median by more than 3 spreads
//    (the median absolute deviation x 1.4826) and by more than nothing, so
//    a figure that varies among healthy peers is judged only beyond its
//    spread, and a fleet where every node has the same links (spread 0)
//    names any link missing.
// A model listed in the config's `link_expectations`
// (core/link_expectations.h) is judged against the figure given there
// instead: below it is below, with any number of nodes.
// The facts judged are confirmed on the agent (two reads in a row agree,
// agent/machine_topology.h). Unknown figures (NVML could not say, no NIC
// listed, no speed) are not judged and not counted.
//
// Cost: O(agents x GPUs) per call, one pass per GPU model.
// Thread-safety: pure functions.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "daemon/core/link_expectations.h"
#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::coordinator {

inline constexpr int kMinLinkPeerNodes = 3;

// Per node below its peers, its findings, one line each ("gpu 3 (NVIDIA
// H200): 12 NVLinks active, the model's median 18 over 24 GPUs of 3
// nodes", or "..., expected 18 (link_expectations)"); nodes with none are
// absent. Lost agents are neither judged nor peers.
std::map<std::string, std::vector<std::string>> LinksBelowPeers(
    const std::vector<v1::AgentInfo>& agents,
    const core::LinkExpectations& expectations = {});

}  // namespace fabricpulse::coordinator
