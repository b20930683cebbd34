// The flags of the coordinator commands (command_set.h).
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/cli/command_set.h"
#include "client/cli/help_text.h"
#include "client/cli/moe_options.h"
#include "client/cli/nccl_tests_flags.h"
#include "client/cli/option_choices.h"
#include "client/report/report_loader.h"
#include "daemon/core/dtype.h"
#include "daemon/core/op_traits.h"
#include "daemon/core/redop.h"

namespace fabricpulse::client {
namespace {

void AddIsolateCommand(CLI::App& app, CommandSet& set) {
  IsolateFlags& f = set.isolate_flags;
  set.isolate = app.add_subcommand(
      "isolate",
      "Find the node or link behind a slow or failing collective: bisect "
      "the nodes, measuring OP on each half --repeats times, then measure "
      "the suspects' pairs --repeats times; names only what every repeat "
      "confirms beyond the noise; prints every round; exit 1 when it names "
      "one");
  set.isolate
      ->add_option("--op", f.op,
                   WithAllowed("The collective", core::AllOpNames()))
      ->capture_default_str();
  set.isolate->add_option("--bytes", f.bytes, "Its size (B, K, M, G)")
      ->capture_default_str();
  set.isolate
      ->add_option("--nodes", f.nodes,
                   "The nodes to search (comma-separated; default: every "
                   "alive agent)")
      ->delimiter(',');
  set.isolate->add_option("--iters", f.iters, "Timed iterations per set")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  set.isolate->add_option("--warmup", f.warmup, "Warm-up iterations per set")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  set.isolate->add_option("--timeout", f.timeout, "Per-op deadline, e.g. 30s")
      ->capture_default_str();
  set.isolate
      ->add_option("--repeats", f.repeats,
                   "Measurements of each node set and runs of the pairwise "
                   "check (2 to 9; more: surer under noise, slower)")
      ->capture_default_str();
  set.isolate->add_option("-o,--output", f.output, "table or json")
      ->capture_default_str();
  set.isolate
      ->add_option("--progress", f.progress,
                   "Progress on stderr: auto, always or never (as sweep)")
      ->capture_default_str();
}

void AddMatrixCommand(CLI::App& app, CommandSet& set) {
  MatrixFlags& f = set.matrix_flags;
  set.matrix = app.add_subcommand(
      "matrix",
      "Measure every pair of ranks (both ways at once, in rounds of "
      "disjoint pairs), grouped by node pair and labelled by path (nvlink, "
      "pcie_shm, network); pairs below half their path class's median "
      "busbw are flagged SLOW");
  set.matrix
      ->add_option("--bytes", f.bytes,
                   "Bytes each rank of a pair sends the other (B, K, M, G)")
      ->capture_default_str();
  set.matrix
      ->add_option("--nodes", f.nodes,
                   "Only these nodes (comma-separated; default: all)")
      ->delimiter(',');
  set.matrix->add_option("--iters", f.iters, "Timed iterations per round")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  set.matrix->add_option("--warmup", f.warmup, "Warm-up iterations per round")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  set.matrix->add_option("--timeout", f.timeout, "Per-op deadline, e.g. 30s")
      ->capture_default_str();
  set.matrix->add_option("-o,--output", f.output, "table, json or csv")
      ->capture_default_str();
  set.matrix
      ->add_option("--bw-unit", f.bw_unit,
                   "GBps (1e9 bytes/s) or Gbps (1e9 bits/s)")
      ->capture_default_str();
  set.matrix->add_option(
      "--sweep", f.sweep_id,
      "Print the matrix of this stored sweep instead of running one");
  set.matrix->add_flag("--confirm,!--no-confirm", f.confirm,
                       "When pairs are flagged, measure the matrix again and "
                       "keep only those flagged both times (default on)");
  set.matrix->add_flag("--fail-on-flagged", f.fail_on_flagged,
                       "Exit 5 when a pair is flagged SLOW");
  set.matrix
      ->add_option("--progress", f.progress,
                   "Progress on stderr: auto, always or never (as sweep)")
      ->capture_default_str();
}

// Shared by sweep and results (output_options.h, docs/json.md).
constexpr char kOutputHelp[] =
    "table (nccl-tests' layout), json (one document of schema "
    "fabricpulse.sweeps/v1: docs/json.md) or csv (the same step columns)";
constexpr char kBwUnitHelp[] =
    "GBps (1e9 bytes/s) or Gbps (1e9 bits/s). Default: GB/s in the table; "
    "bytes per second in JSON and CSV, whose keys name the unit "
    "(busbw_bytes_per_second; with --bw-unit busbw_gigabytes_per_second or "
    "busbw_gigabits_per_second)";
constexpr char kRawHelp[] =
    "Plain numbers in base units (seconds, bytes per second) in every "
    "format; the table loses its unit rows; overrides --bw-unit";
constexpr char kTimeAcrossRanksHelp[] =
    "Which rank time the table's time and bandwidth columns use: avg (the "
    "ranks' mean, nccl-tests' -a default), min or max (the slowest rank, "
    "what the coordinator's busbw, baselines, regressions and gates always "
    "use). JSON and CSV carry all three (min_/mean_/max_rank_time_seconds)";

void AddSweepFlags(CLI::App* sweep, SweepFlags& f) {
  auto* plan = sweep->add_option(
      "--plan", f.plan,
      "Run this plan from the coordinator's config (its spec and nodes)");
  WithChoices(
      sweep
          ->add_option("--ops", f.ops,
                       WithAllowed("Ops, comma-separated", core::AllOpNames()))
          ->delimiter(',')
          ->capture_default_str(),
      core::AllOpNames());
  sweep
      ->add_option("-b,--min-bytes", f.min_bytes,
                   "Smallest size (B, K, M, G suffixes)")
      ->capture_default_str();
  sweep
      ->add_option("-e,--max-bytes", f.max_bytes,
                   "Largest size, or auto[:FRACTION]: per op, the largest "
                   "power of two whose buffers fit FRACTION (0 < F <= 1, "
                   "default 0.25) of the least free memory of any rank (GPU "
                   "memory; host memory on CPU ranks)")
      ->capture_default_str();
  auto* factor =
      sweep->add_option("-f,--factor", f.factor, "Geometric size factor (>= 2)")
          ->capture_default_str();
  sweep
      ->add_option("-i,--step", f.step,
                   "Arithmetic size step instead of factor")
      ->excludes(factor);
  WithChoices(
      sweep
          ->add_option("-d,--dtype", f.dtype,
                       WithAllowed("Element type", core::AllDTypeNames()))
          ->capture_default_str(),
      core::AllDTypeNames());
  WithChoices(sweep
                  ->add_option("--redop", f.redop,
                               WithAllowed("Reduction of all_reduce, reduce "
                                           "and reduce_scatter",
                                           core::AllRedOpNames()))
                  ->capture_default_str(),
              core::AllRedOpNames());
  sweep->add_option("-r,--root", f.root, "Root rank of rooted ops")
      ->capture_default_str();
  sweep
      ->add_option("-n,--iters", f.iters.iters,
                   "Timed iterations per size, or auto: iterate until the 95% "
                   "confidence interval of the mean is within --tolerance "
                   "(in batches, the first of --min-iters, at most "
                   "--max-iters or --step-time-cap per size; the iterations "
                   "used are reported)")
      ->capture_default_str();
  sweep->add_option("--tolerance", f.iters.tolerance,
                    "With --iters auto: relative half-width of the 95% "
                    "confidence interval that ends a size (default 0.01)");
  sweep->add_option("--min-iters", f.iters.min_iters,
                    "With --iters auto: the first batch (default 5, >= 2)");
  sweep->add_option("--max-iters", f.iters.max_iters,
                    "With --iters auto: most iterations per size (default "
                    "100)");
  sweep->add_option("--step-time-cap", f.iters.step_time_cap,
                    "With --iters auto: time cap per size on the timed "
                    "batches, e.g. 2s (default)");
  sweep->add_option("-w,--warmup", f.warmup, "Warm-up iterations per size")
      ->capture_default_str();
  // Two flags, not "--check,!--no-check": CLI11 would show that as
  // "--check,--no-check{false}", as if the check were off.
  auto* check = sweep->add_flag(
      "--check", f.check, "Verify every output element (the default: on)");
  sweep
      ->add_flag_callback(
          "--no-check", [&f] { f.check = false; }, "Skip the data check")
      ->excludes(check);
  sweep->add_flag_callback(
      "--in-place", [&f] { f.placement = "in_place"; }, "In-place only");
  sweep->add_flag_callback(
      "--out-of-place", [&f] { f.placement = "out_of_place"; },
      "Out-of-place only");
  sweep->add_flag_callback(
      "--both", [&f] { f.placement = "both"; },
      "Both in-place and out-of-place (default)");
  sweep->add_flag("--graph", f.graph, "CUDA-graph mode (nccl)");
  sweep->add_option("-T,--timeout", f.timeout, "Per-op deadline, e.g. 30s")
      ->capture_default_str();
  sweep->add_option("--nodes", f.nodes, "Nodes to run on (default: all)")
      ->delimiter(',');
  WithChoices(sweep->add_option("-o,--output", f.output, kOutputHelp)
                  ->capture_default_str(),
              kFormats);
  WithChoices(sweep->add_option("--bw-unit", f.bw_unit, kBwUnitHelp), kBwUnits);
  sweep->add_flag("--raw", f.raw, kRawHelp);
  WithChoices(sweep
                  ->add_option("--time-across-ranks", f.time_across_ranks,
                               kTimeAcrossRanksHelp)
                  ->capture_default_str(),
              std::vector<std::string>{"avg", "min", "max"});
  sweep->add_flag("--fresh-comm", f.fresh_comm,
                  "Build a new communicator (measures its init time)");
  sweep->add_flag("--fail-on-regression", f.fail_on_regression,
                  "Exit 5 when a step regressed against its baseline (the "
                  "median of the coordinator's last succeeded sweeps of the "
                  "same plan, op, size, ranks and topology)");
  sweep
      ->add_option("--min-busbw", f.min_busbw,
                   "OP=VALUE: exit 5 when OP's average busbw over this "
                   "sweep's sizes is below 90% of VALUE (nccl-tests' "
                   "NCCL_TESTS_MIN_BW), VALUE in --bw-unit; repeatable or "
                   "comma-separated")
      ->delimiter(',');
  sweep->add_flag("--allow-busy", f.allow_busy,
                  "Run even when NVML shows a compute process that is not a "
                  "FabricPulse worker on a member GPU, and do not yield to "
                  "one that appears mid-sweep (default: refused, exit 4; a "
                  "running sweep ends 'preempted', exit 4)");
  sweep
      ->add_option("--wait", f.wait,
                   "While the members run another sweep (a schedule's or "
                   "another operator's), retry until they are free or this "
                   "long has passed (0 to 24h, e.g. 10m); 0 refuses at once "
                   "(exit 4). A busy GPU is not waited for")
      ->capture_default_str();
  WithChoices(
      sweep
          ->add_option("--progress", f.progress,
                       "Progress on stderr: auto (a line redrawn on a "
                       "terminal, else a plain line at most every 10 s), "
                       "always (a plain line after every step when not a "
                       "terminal) or never")
          ->capture_default_str(),
      std::vector<std::string>{"auto", "always", "never"});
  // A plan carries its own spec: spec flags cannot be combined with it.
  for (const char* name :
       {"--ops",           "--min-bytes",    "--max-bytes", "--factor",
        "--step",          "--dtype",        "--redop",     "--root",
        "--iters",         "--tolerance",    "--min-iters", "--max-iters",
        "--step-time-cap", "--warmup",       "--check",     "--no-check",
        "--in-place",      "--out-of-place", "--both",      "--graph",
        "--timeout"}) {
    sweep->get_option(name)->excludes(plan);
  }
  for (CLI::Option* moe :
       AddMoeOptions(sweep, f.moe, f.moe_preset, f.moe_explicit))
    moe->excludes(plan);
  for (CLI::Option* numeric : AddNcclTestsNumericFlags(sweep, f)) {
    numeric->excludes(plan);
  }
}

void AddReportCommand(CLI::App& app, CommandSet& set) {
  ReportFlags& f = set.report_flags;
  set.report = app.add_subcommand(
      "report",
      "Write one self-contained HTML file of charts (busbw and latency "
      "against size per op with the baseline, the pairwise matrix, history "
      "trends of a plan) and the sweeps' metadata; it fetches nothing");
  auto* sweep = set.report->add_option("--sweep", f.sweep_id,
                                       "One sweep (default: the newest)");
  auto* last = set.report
                   ->add_option("--last", f.last,
                                "The newest N sweeps (1 to 20), each drawn")
                   ->check(CLI::Range(1, report::kMaxReportSweeps))
                   ->excludes(sweep);
  auto* plan = set.report
                   ->add_option("--plan", f.plan,
                                "A plan's history: busbw over time per op "
                                "and size (the newest 100 sweeps of the "
                                "window at most), and its newest sweep")
                   ->excludes(sweep)
                   ->excludes(last);
  set.report
      ->add_option("--since", f.since,
                   "With --plan: the window, e.g. 7d (default), 36h, 90m; "
                   "more than 0 up to 366d")
      ->needs(plan);
  set.report->add_option("-o,--output-file", f.output_file,
                         "The HTML file to write (required; replaced whole)");
}

// A listing command with its --output; `response`: the message its JSON is.
CLI::App* AddListing(CLI::App& app, const std::string& name,
                     const std::string& help, const std::string& response,
                     std::string& output) {
  CLI::App* command = app.add_subcommand(name, help);
  WithChoices(command
                  ->add_option("-o,--output", output,
                               absl::StrCat("table, json (the ", response,
                                            " in protobuf's JSON mapping) or "
                                            "csv"))
                  ->capture_default_str(),
              kFormats);
  return command;
}

// Reads the history: under `local`, that of --state-dir.
void AddCompareCommand(CLI::App& app, CommandSet& set) {
  CompareFlags& f = set.compare_flags;
  set.compare = app.add_subcommand(
      "compare",
      "Two sweeps of the history side by side: B/A per op, size and "
      "placement, rows beyond noise marked slower or faster");
  set.compare->add_option("a", f.a, "Sweep id A (the reference)")->required();
  set.compare->add_option("b", f.b, "Sweep id B")->required();
  set.compare
      ->add_option("--threshold", f.threshold_percent,
                   "A row differs beyond noise when |B/A - 1| exceeds this "
                   "(%, more than 0 up to 100) and the rows' own p50..p99 "
                   "spread")
      ->capture_default_str();
  WithChoices(set.compare->add_option("-o,--output", f.output, kOutputHelp)
                  ->capture_default_str(),
              kFormats);
  WithChoices(set.compare->add_option("--bw-unit", f.bw_unit, kBwUnitHelp)
                  ->capture_default_str(),
              kBwUnits);
  set.compare->add_flag("--fail-on-slower", f.fail_on_slower,
                        "Exit 5 when a row of B is slower beyond noise");
}

}  // namespace

void AddCommands(CLI::App& app, CommandSet& set) {
  set.agents = AddListing(app, "agents", "List agents and their workers",
                          "ListAgentsResponse", set.agents_output);
  set.plans = AddListing(
      app, "plans",
      "List the plans of the coordinator's config: the sweep each runs, on "
      "which nodes, and the regression settings",
      "ListPlansResponse", set.plans_output);
  set.schedules = AddListing(
      app, "schedules",
      "List the cron schedules of the coordinator's config: plan, next "
      "firing, whether one waits on busy GPUs or members, and the last run",
      "ListSchedulesResponse", set.schedules_output);
  set.nodes = AddListing(
      app, "nodes",
      "List each campaign plan's verdict per node (pass, degraded, fail, "
      "suspect, untested) with its evidence, and the newest campaign",
      "ListNodesResponse", set.nodes_output);
  set.nodes->add_option("--plan", set.nodes_plan,
                        "Only this campaign plan (default: every one)");
  set.campaign = app.add_subcommand(
      "campaign",
      "Start a campaign of a campaign plan now: group sweeps over the fleet "
      "on idle nodes, a verdict per node (see `nodes`)");
  set.campaign
      ->add_option("--plan", set.campaign_flags.plan,
                   "A plan of the coordinator's config with a "
                   "campaign: block")
      ->required();
  set.campaign->add_option("--grouping", set.campaign_flags.grouping,
                           "node, pairs, groups:K (K 2..1024) or all "
                           "(default: the plan's)");
  set.campaign->add_flag("--wait", set.campaign_flags.wait,
                         "Follow the campaign until it ends; exit 1 when it "
                         "names a node fail or degraded");
  set.campaign
      ->add_option("--timeout", set.campaign_flags.timeout_seconds,
                   "With --wait: give up waiting after this many seconds")
      ->check(CLI::Range(1.0, 7 * 24 * 3600.0))
      ->capture_default_str();
  set.sweep = app.add_subcommand("sweep", "Run a sweep and print results");
  AddSweepFlags(set.sweep, set.sweep_flags);
  set.results = app.add_subcommand("results", "Show the sweep history");
  auto* sweep_id = set.results->add_option(
      "--sweep", set.results_flags.sweep_id, "One sweep, with every result");
  set.results
      ->add_option("--last", set.results_flags.last, "The newest N sweeps")
      ->check(CLI::Range(1, 1000))
      ->excludes(sweep_id)
      ->capture_default_str();
  WithChoices(
      set.results
          ->add_option("-o,--output", set.results_flags.output, kOutputHelp)
          ->capture_default_str(),
      kFormats);
  WithChoices(set.results->add_option("--bw-unit", set.results_flags.bw_unit,
                                      kBwUnitHelp),
              kBwUnits);
  set.results->add_flag("--raw", set.results_flags.raw, kRawHelp);
  WithChoices(set.results
                  ->add_option("--time-across-ranks",
                               set.results_flags.time_across_ranks,
                               kTimeAcrossRanksHelp)
                  ->capture_default_str(),
              std::vector<std::string>{"avg", "min", "max"});
  set.diagnose = app.add_subcommand(
      "diagnose",
      "Say whether a sweep is running, stalled, failed or aborted, and name "
      "the rank, GPU and node a stalled or failed one waits on");
  set.diagnose->add_option(
      "--sweep", set.diagnose_sweep_id,
      "Sweep id (default: the running sweep, else the newest failed one)");
  WithChoices(
      set.diagnose
          ->add_option(
              "-o,--output", set.diagnose_output,
              "table, json (docs/diagnose.md) or csv (one row per culprit)")
          ->capture_default_str(),
      kFormats);
  AddReportCommand(app, set);
  set.abort = app.add_subcommand("abort", "Abort a running sweep");
  set.abort->add_option("--sweep", set.abort_sweep_id,
                        "Sweep id (default: every running sweep)");
  AddMatrixCommand(app, set);
  AddIsolateCommand(app, set);
  AddCompareCommand(app, set);
}

}  // namespace fabricpulse::client
