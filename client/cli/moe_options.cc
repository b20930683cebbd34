#include "client/cli/moe_options.h"

#include <string>

#include "client/cli/option_choices.h"

namespace fabricpulse::client {

std::vector<CLI::Option*> AddMoeOptions(CLI::App* sweep, core::MoeShape& moe) {
  const std::string with = "moe_dispatch and moe_combine: ";
  std::vector<CLI::Option*> options = {
      sweep
          ->add_option("--moe-tokens", moe.tokens,
                       with + "tokens per rank (1 to 65536)")
          ->capture_default_str(),
      sweep
          ->add_option("--moe-hidden", moe.hidden,
                       with + "elements per token (1 to 65536)")
          ->capture_default_str(),
      sweep
          ->add_option("--moe-topk", moe.topk,
                       with + "experts per token (1 to 32)")
          ->capture_default_str(),
      sweep
          ->add_option("--moe-experts", moe.experts_per_rank,
                       with + "experts per rank (1 to 256)")
          ->capture_default_str(),
      sweep
          ->add_option("--moe-skew", moe.skew,
                       with + "routing skew, the Zipf exponent of the experts' "
                              "popularity (0 uniform, up to 4)")
          ->capture_default_str(),
      sweep
          ->add_option("--moe-seed", moe.seed,
                       with + "seed of the routing every rank computes")
          ->capture_default_str(),
      WithChoices(sweep
                      ->add_option("--moe-dtype", moe.dtype,
                                   with + "bfloat16 or fp8_e4m3")
                      ->capture_default_str(),
                  std::vector<std::string>{"bfloat16", "fp8_e4m3"}),
  };
  return options;
}

}  // namespace fabricpulse::client
