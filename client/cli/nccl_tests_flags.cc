#include "client/cli/nccl_tests_flags.h"

#include <utility>
#include <vector>

namespace fabricpulse::client {
namespace {

struct MissingFlag {
  absl::string_view flag;
  absl::string_view why;
};
constexpr MissingFlag kMissing[] = {
    {"-t",
     "nccl-tests' threads per process: each agent runs one worker "
     "process per GPU (or --ranks CPU ranks)"},
    {"-g",
     "nccl-tests' GPUs per thread: each agent runs one worker process "
     "per GPU (or --ranks CPU ranks)"},
    {"-m",
     "nccl-tests' ops per timed iteration: every op is timed (short "
     "ops in a loop of at least 20, docs/gpus.md 'Timing')"},
    {"-N", "nccl-tests' run cycles: repeat with a schedule or a plan"},
    {"-p",
     "nccl-tests' parallel init: communicators persist between sweeps "
     "(--fresh-comm measures an init)"},
    {"-z", "nccl-tests' blocking collectives: ops are timed on the device"},
    {"-C", "nccl-tests' CPU time: the time reported is the ops' time"},
    {"-R", "nccl-tests' buffer registration: not offered"},
};

}  // namespace

std::vector<CLI::Option*> AddNcclTestsNumericFlags(CLI::App* sweep,
                                                   SweepFlags& f) {
  CLI::Option* check =
      sweep
          ->add_option_function<int>(
              "-c", [&f](const int& n) { f.check = n > 0; },
              "nccl-tests' -c N: N > 0 checks every output element "
              "(--check), 0 skips the check (--no-check)")
          ->check(CLI::NonNegativeNumber);
  check->excludes(sweep->get_option("--check"));
  check->excludes(sweep->get_option("--no-check"));
  CLI::Option* graph =
      sweep
          ->add_option_function<int>(
              "-G", [&f](const int& n) { f.graph = n > 0; },
              "nccl-tests' -G N: N > 0 is CUDA-graph mode (--graph), 0 off")
          ->check(CLI::NonNegativeNumber);
  graph->excludes(sweep->get_option("--graph"));
  CLI::Option* average =
      sweep
          ->add_option_function<int>(
              "-a",
              [&f](const int& n) {
                f.time_across_ranks = n == 2 ? "min" : n == 3 ? "max" : "avg";
              },
              "nccl-tests' -a N: 1 avg, 2 min, 3 max (--time-across-ranks; "
              "0, rank 0's time, is not offered)")
          ->check(CLI::Range(1, 3));
  average->excludes(sweep->get_option("--time-across-ranks"));
  return {check, graph};
}

std::optional<std::string> NcclTestsFlagWithoutEquivalent(
    absl::string_view flag) {
  for (const MissingFlag& m : kMissing) {
    if (m.flag == flag) return std::string(m.why);
  }
  return std::nullopt;
}

}  // namespace fabricpulse::client
