#include "daemon/core/pair_schedule.h"

#include "daemon/core/pattern_formulas.h"

namespace fabricpulse::core {

int PairRounds(int nranks) {
  if (nranks < 2) return 0;
  return nranks % 2 == 0 ? nranks - 1 : nranks;
}

int PairPartner(int round, int rank, int nranks) {
  return formulas::PairPartnerCode(round, rank, nranks);
}

std::vector<std::pair<int, int>> RoundPairs(int round, int nranks) {
  std::vector<std::pair<int, int>> pairs;
  for (int rank = 0; rank < nranks; ++rank) {
    const int partner = PairPartner(round, rank, nranks);
    if (partner > rank) pairs.emplace_back(rank, partner);
  }
  return pairs;
}

}  // namespace fabricpulse::core
