// The reference a campaign judges a group sweep against when no absolute
// threshold is set: the median busbw of its peers (the campaign's groups of
// the same shape: as many nodes, the same op and size), and their spread,
// so that a node is named only for a deviation beyond what healthy peers
// show among themselves (issue 28).
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <vector>

namespace fabricpulse::core {

// Fewer peers than this give no reference: a median and a spread from 3
// numbers are not a judgement anyone should drain a node on.
inline constexpr size_t kMinPeers = 4;
// A result is low or bad only when it is also more than this many spreads
// below the median (NodeVerdict's Classify).
inline constexpr double kPeerSpreadMultiple = 3;

struct PeerReference {
  size_t peers = 0;   // finite, positive busbw values it was made of
  double median = 0;  // 0: no reference (fewer than kMinPeers)
  double spread = 0;  // ScaledMad of those values (a robust sd)
};

// From every peer's busbw (bytes/s; non-finite or non-positive values are
// failed sweeps' and are left out).
PeerReference PeerReferenceOf(const std::vector<double>& busbw);

}  // namespace fabricpulse::core
