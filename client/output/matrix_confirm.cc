#include "client/output/matrix_confirm.h"

#include <set>
#include <tuple>

namespace fabricpulse::client {

int ConfirmFlagged(PairMatrix& first, const PairMatrix& second) {
  std::set<std::tuple<uint64_t, int, int>> again;
  for (const NodePairGroup& g : second.groups) {
    for (const v1::PairResult& p : g.pairs) {
      if (p.flagged()) again.insert({g.bytes, p.rank_a(), p.rank_b()});
    }
  }
  int cleared = 0;
  for (NodePairGroup& g : first.groups) {
    for (v1::PairResult& p : g.pairs) {
      if (!p.flagged() || again.count({g.bytes, p.rank_a(), p.rank_b()})) {
        continue;
      }
      p.set_flagged(false);
      g.flagged--;
      first.flagged--;
      ++cleared;
    }
  }
  first.confirmed_by = second.sweep_id;
  return cleared;
}

}  // namespace fabricpulse::client
