// The pairwise matrix's schedule: every pair of ranks meets once, in rounds
// of disjoint pairs (the circle method of round-robin tournaments), so that
// each round measures up to nranks / 2 pairs at once and the whole matrix
// takes nranks - 1 rounds (nranks when odd, one rank sitting each round out).
#pragma once

#include <utility>
#include <vector>

namespace fabricpulse::core {

// Rounds of the matrix: nranks - 1 for even nranks, nranks for odd; 0 below
// 2 ranks.
int PairRounds(int nranks);

// The rank that `rank` meets in `round`, or -1 when it sits the round out
// (odd nranks) or the arguments are out of range.
int PairPartner(int round, int rank, int nranks);

// The pairs of `round`, each as (lower rank, higher rank), by lower rank.
std::vector<std::pair<int, int>> RoundPairs(int round, int nranks);

}  // namespace fabricpulse::core
