#include "client/cli/moe_options.h"

#include <algorithm>
#include <string>

#include "client/cli/option_choices.h"
#include "daemon/core/moe_preset.h"

namespace fabricpulse::client {

std::vector<CLI::Option*> AddMoeOptions(
    CLI::App* sweep, core::MoeShape& moe, std::string& preset,
    std::vector<std::string>& explicit_keys) {
  const std::string with = "moe ops: ";
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
  for (CLI::Option* option : options) {
    // "--moe-tokens" -> "moe_tokens", the plan key ApplyMoePreset knows.
    std::string key = option->get_name().substr(2);
    std::replace(key.begin(), key.end(), '-', '_');
    option->each([&explicit_keys, key](const std::string&) {
      explicit_keys.push_back(key);
    });
  }
  options.push_back(WithChoices(
      sweep->add_option(
          "--moe-preset", preset,
          with + "DeepEP's test shape: deepep-ll (128 tokens x 7168, "
                 "top-8 of 288 experts, 10 masked, a row per selection, "
                 "fp8 dispatch with scales, bf16 combine) or "
                 "deepep-normal (4096 tokens, top-8 of 256 experts within "
                 "min(nodes, 4) node groups, fp8 dispatch with scales, "
                 "bf16 combine); the --moe-* flags given override it"),
      core::MoePresetNames()));
  return options;
}

}  // namespace fabricpulse::client
