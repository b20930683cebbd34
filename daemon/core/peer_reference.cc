#include "daemon/core/peer_reference.h"

#include <cmath>

#include "daemon/core/regression.h"

namespace fabricpulse::core {

PeerReference PeerReferenceOf(const std::vector<double>& busbw) {
  std::vector<double> values;
  values.reserve(busbw.size());
  for (double v : busbw) {
    if (std::isfinite(v) && v > 0) values.push_back(v);
  }
  PeerReference ref;
  ref.peers = values.size();
  if (values.size() < kMinPeers) return ref;
  ref.median = Median(values);
  ref.spread = ScaledMad(values);
  return ref;
}

}  // namespace fabricpulse::core
