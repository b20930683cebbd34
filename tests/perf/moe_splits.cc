// The row counts of the MoE probe's routing (core/moe_routing.h), for a
// reference run of the same exchange elsewhere (moe_torch_reference.py):
//   moe_splits NRANKS TOKENS HIDDEN TOPK EXPERTS_PER_RANK SKEW SEED
//              [PRESET DTYPE]
// prints NRANKS lines of NRANKS numbers: line s, column d is how many rows
// of rank s dispatch sends to rank d (combine sends them back). With a
// PRESET (deepep-ll, deepep-normal; EXPERTS_PER_RANK 0 keeps the preset's
// expert total; one node), then a line
//   # rows DISPATCH_ELEMENTS DISPATCH_DTYPE COMBINE_ELEMENTS COMBINE_DTYPE
// (a dispatch row may carry fp8 scales and a header). Exit 2 on a bad
// shape, naming the field.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "daemon/core/moe_preset.h"
#include "daemon/core/moe_routing.h"

namespace core = fabricpulse::core;

int main(int argc, char** argv) {
  if (argc != 8 && argc != 10) {
    std::fprintf(stderr,
                 "usage: %s NRANKS TOKENS HIDDEN TOPK EXPERTS_PER_RANK SKEW "
                 "SEED [PRESET DTYPE]\n",
                 argv[0]);
    return 2;
  }
  const int nranks = std::atoi(argv[1]);
  core::MoeShape shape;
  shape.tokens = std::atoi(argv[2]);
  shape.hidden = std::atoi(argv[3]);
  shape.topk = std::atoi(argv[4]);
  shape.experts_per_rank = std::atoi(argv[5]);
  shape.skew = std::atof(argv[6]);
  shape.seed = std::strtoull(argv[7], nullptr, 10);
  if (argc == 10) {
    shape.dtype = argv[9];
    std::vector<std::string> given = {"moe_tokens", "moe_hidden", "moe_topk",
                                      "moe_skew",   "moe_seed",   "moe_dtype"};
    if (shape.experts_per_rank > 0) given.push_back("moe_experts");
    const absl::Status preset = core::ApplyMoePreset(argv[8], given, shape);
    if (!preset.ok()) {
      std::fprintf(stderr, "%s\n", std::string(preset.message()).c_str());
      return 2;
    }
    core::ResolveMoeForRanks(shape, nranks, {nranks});
  }
  const absl::Status valid = core::ValidateMoeShape(shape, nranks);
  if (nranks < 1 || !valid.ok()) {
    std::fprintf(stderr, "%s\n",
                 nranks < 1 ? "nranks: must be 1 or more"
                            : std::string(valid.message()).c_str());
    return 2;
  }
  const auto rows = core::MoeRowMatrix(shape, nranks);
  for (int s = 0; s < nranks; ++s) {
    for (int d = 0; d < nranks; ++d) {
      std::printf(d == 0 ? "%llu" : " %llu",
                  static_cast<unsigned long long>(rows[s * nranks + d]));
    }
    std::printf("\n");
  }
  if (argc == 10) {
    std::printf("# rows %llu %s %llu %s\n",
                static_cast<unsigned long long>(
                    core::MoeRowElements(shape, core::Op::kMoeDispatch)),
                std::string(core::DTypeName(core::MoeStepDType(
                                shape, core::Op::kMoeDispatch)))
                    .c_str(),
                static_cast<unsigned long long>(
                    core::MoeRowElements(shape, core::Op::kMoeCombine)),
                std::string(core::DTypeName(core::MoeStepDType(
                                shape, core::Op::kMoeCombine)))
                    .c_str());
  }
  return 0;
}
