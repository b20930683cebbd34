// The row counts of the MoE probe's routing (core/moe_routing.h), for a
// reference run of the same exchange elsewhere (moe_torch_reference.py):
//   moe_splits NRANKS TOKENS HIDDEN TOPK EXPERTS_PER_RANK SKEW SEED
// prints NRANKS lines of NRANKS numbers: line s, column d is how many of
// rank s's tokens dispatch sends to rank d (combine sends them back).
// Exit 2 on a bad shape, naming the field.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "daemon/core/moe_routing.h"

int main(int argc, char** argv) {
  if (argc != 8) {
    std::fprintf(stderr,
                 "usage: %s NRANKS TOKENS HIDDEN TOPK EXPERTS_PER_RANK SKEW "
                 "SEED\n",
                 argv[0]);
    return 2;
  }
  const int nranks = std::atoi(argv[1]);
  fabricpulse::core::MoeShape shape;
  shape.tokens = std::atoi(argv[2]);
  shape.hidden = std::atoi(argv[3]);
  shape.topk = std::atoi(argv[4]);
  shape.experts_per_rank = std::atoi(argv[5]);
  shape.skew = std::atof(argv[6]);
  shape.seed = std::strtoull(argv[7], nullptr, 10);
  const absl::Status valid = fabricpulse::core::ValidateMoeShape(shape, nranks);
  if (nranks < 1 || !valid.ok()) {
    std::fprintf(stderr, "%s\n",
                 nranks < 1 ? "nranks: must be 1 or more"
                            : std::string(valid.message()).c_str());
    return 2;
  }
  const auto rows = fabricpulse::core::MoeRowMatrix(shape, nranks);
  for (int s = 0; s < nranks; ++s) {
    for (int d = 0; d < nranks; ++d) {
      std::printf(d == 0 ? "%llu" : " %llu",
                  static_cast<unsigned long long>(rows[s * nranks + d]));
    }
    std::printf("\n");
  }
  return 0;
}
