// fabricpulse: the command-line client.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "client/cli/cli_model.h"
#include "client/cli/command_suggestion.h"
#include "client/cli/completion_script.h"
#include "client/cli/help_text.h"
#include "client/cli/local_signal_guard.h"
#include "client/cli/man_page.h"
#include "client/cli/moe_options.h"
#include "client/cli/option_choices.h"
#include "client/commands/abort_command.h"
#include "client/commands/agents_command.h"
#include "client/commands/certs_command.h"
#include "client/commands/compare_command.h"
#include "client/commands/config_command.h"
#include "client/commands/coordinator_connection.h"
#include "client/commands/diagnose_command.h"
#include "client/commands/exit_codes.h"
#include "client/commands/health_command.h"
#include "client/commands/isolate_command.h"
#include "client/commands/matrix_command.h"
#include "client/commands/plans_command.h"
#include "client/commands/report_command.h"
#include "client/commands/results_command.h"
#include "client/commands/schedules_command.h"
#include "client/commands/sweep_command.h"
#include "client/local/local_backend.h"
#include "client/local/local_cluster.h"
#include "client/report/report_loader.h"
#include "daemon/common/process.h"
#include "daemon/common/shared_flags.h"
#include "daemon/common/worker_backends.h"
#include "daemon/core/dtype.h"
#include "daemon/core/op_traits.h"
#include "daemon/core/redop.h"
#include "daemon/core/version.h"
#include "daemon/nvml/nvml_library.h"
#include "daemon/nvml/visible_gpus.h"

namespace fabricpulse::client {
namespace {

// The subcommands that talk to a coordinator; added both at the top level
// and under `local`.
struct CommandSet {
  CLI::App* agents = nullptr;
  std::string agents_output = "table";
  CLI::App* plans = nullptr;
  std::string plans_output = "table";
  CLI::App* schedules = nullptr;
  std::string schedules_output = "table";
  CLI::App* sweep = nullptr;
  CLI::App* abort = nullptr;
  CLI::App* results = nullptr;
  CLI::App* diagnose = nullptr;
  std::string diagnose_sweep_id;
  std::string diagnose_output = "table";
  SweepFlags sweep_flags;
  ResultsFlags results_flags;
  std::string abort_sweep_id;
  CLI::App* matrix = nullptr;
  MatrixFlags matrix_flags;
  CLI::App* isolate = nullptr;
  IsolateFlags isolate_flags;
  CLI::App* report = nullptr;
  ReportFlags report_flags;
};

void AddIsolateCommand(CLI::App& app, CommandSet& set) {
  IsolateFlags& f = set.isolate_flags;
  set.isolate = app.add_subcommand(
      "isolate",
      "Find the node or link behind a slow or failing collective: bisect "
      "the nodes, measuring OP on each half, then measure the suspects' "
      "pairs; prints every round; exit 1 when it names one");
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
  set.isolate->add_option("--output", f.output, "table or json")
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
  set.matrix->add_option("--output", f.output, "table, json or csv")
      ->capture_default_str();
  set.matrix
      ->add_option("--bw-unit", f.bw_unit,
                   "GBps (1e9 bytes/s) or Gbps (1e9 bits/s)")
      ->capture_default_str();
  set.matrix->add_option(
      "--sweep", f.sweep_id,
      "Print the matrix of this stored sweep instead of running one");
  set.matrix->add_flag("--fail-on-flagged", f.fail_on_flagged,
                       "Exit 5 when a pair is flagged SLOW");
  set.matrix
      ->add_option("--progress", f.progress,
                   "Progress on stderr: auto, always or never (as sweep)")
      ->capture_default_str();
}

// The values of --output and --bw-unit.
const std::vector<std::string> kFormats = {"table", "json", "csv"};
const std::vector<std::string> kBwUnits = {"GBps", "Gbps"};

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
      ->add_option("--min-bytes", f.min_bytes,
                   "Smallest size (B, K, M, G suffixes)")
      ->capture_default_str();
  sweep
      ->add_option("--max-bytes", f.max_bytes,
                   "Largest size, or auto[:FRACTION]: per op, the largest "
                   "power of two whose buffers fit FRACTION (0 < F <= 1, "
                   "default 0.25) of the least free memory of any rank (GPU "
                   "memory; host memory on CPU ranks)")
      ->capture_default_str();
  auto* factor =
      sweep->add_option("--factor", f.factor, "Geometric size factor (>= 2)")
          ->capture_default_str();
  sweep->add_option("--step", f.step, "Arithmetic size step instead of factor")
      ->excludes(factor);
  WithChoices(
      sweep
          ->add_option("--dtype", f.dtype,
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
  sweep->add_option("--root", f.root, "Root rank of rooted ops")
      ->capture_default_str();
  sweep
      ->add_option("--iters", f.iters.iters,
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
  sweep->add_option("--warmup", f.warmup, "Warm-up iterations per size")
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
  sweep->add_option("--timeout", f.timeout, "Per-op deadline, e.g. 30s")
      ->capture_default_str();
  sweep->add_option("--nodes", f.nodes, "Nodes to run on (default: all)")
      ->delimiter(',');
  WithChoices(sweep->add_option("--output", f.output, kOutputHelp)
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
  for (CLI::Option* moe : AddMoeOptions(sweep, f.moe)) moe->excludes(plan);
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
                  ->add_option("--output", output,
                               absl::StrCat("table, json (the ", response,
                                            " in protobuf's JSON mapping) or "
                                            "csv"))
                  ->capture_default_str(),
              kFormats);
  return command;
}

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
      set.results->add_option("--output", set.results_flags.output, kOutputHelp)
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
              "--output", set.diagnose_output,
              "table, json (docs/diagnose.md) or csv (one row per culprit)")
          ->capture_default_str(),
      kFormats);
  AddReportCommand(app, set);
  set.abort = app.add_subcommand("abort", "Abort a running sweep");
  set.abort->add_option("--sweep", set.abort_sweep_id,
                        "Sweep id (default: every running sweep)");
  AddMatrixCommand(app, set);
  AddIsolateCommand(app, set);
}

int RunSelected(const CommandSet& set, const CoordinatorTarget& coordinator) {
  if (set.agents->parsed()) {
    return RunAgentsCommand(coordinator, set.agents_output);
  }
  if (set.plans->parsed())
    return RunPlansCommand(coordinator, set.plans_output);
  if (set.schedules->parsed()) {
    return RunSchedulesCommand(coordinator, set.schedules_output);
  }
  if (set.sweep->parsed()) return RunSweepCommand(coordinator, set.sweep_flags);
  if (set.results->parsed()) {
    return RunResultsCommand(coordinator, set.results_flags);
  }
  if (set.diagnose->parsed()) {
    return RunDiagnoseCommand(coordinator, set.diagnose_sweep_id,
                              set.diagnose_output);
  }
  if (set.abort->parsed()) {
    return RunAbortCommand(coordinator, set.abort_sweep_id);
  }
  if (set.matrix->parsed()) {
    return RunMatrixCommand(coordinator, set.matrix_flags);
  }
  if (set.isolate->parsed()) {
    return RunIsolateCommand(coordinator, set.isolate_flags);
  }
  if (set.report->parsed()) {
    return RunReportCommand(coordinator, set.report_flags);
  }
  PrintError("no subcommand; see --help");
  return kExitBadInput;
}

// Checks the selected command's flags without a coordinator (for `local`,
// before anything starts; `nranks`: the local cluster's ranks).
absl::Status CheckCommandFlags(const CommandSet& set, int nranks) {
  if (set.sweep->parsed()) return CheckSweepFlags(set.sweep_flags, nranks);
  if (set.results->parsed()) return CheckResultsFlags(set.results_flags);
  if (set.report->parsed()) return CheckReportFlags(set.report_flags);
  if (set.diagnose->parsed()) return CheckDiagnoseOutput(set.diagnose_output);
  if (set.matrix->parsed()) return CheckMatrixFlags(set.matrix_flags, nranks);
  if (set.isolate->parsed()) return CheckIsolateFlags(set.isolate_flags);
  for (const auto& [command, output] :
       {std::pair{set.agents, &set.agents_output},
        std::pair{set.plans, &set.plans_output},
        std::pair{set.schedules, &set.schedules_output}}) {
    if (command->parsed()) return ParseOutputFormat(*output).status();
  }
  return absl::OkStatus();
}

// A global --output (given before the command) for the command that takes
// one, unless the command has its own. Errors: INVALID_ARGUMENT the command
// prints no formats.
absl::Status ApplyGlobalOutput(CommandSet& set, const std::string& output) {
  struct Target {
    CLI::App* command;
    std::string* output;
  };
  for (const Target& t : {Target{set.agents, &set.agents_output},
                          Target{set.plans, &set.plans_output},
                          Target{set.schedules, &set.schedules_output},
                          Target{set.sweep, &set.sweep_flags.output},
                          Target{set.results, &set.results_flags.output},
                          Target{set.diagnose, &set.diagnose_output},
                          Target{set.matrix, &set.matrix_flags.output},
                          Target{set.isolate, &set.isolate_flags.output}}) {
    if (!t.command->parsed()) continue;
    if (t.command->get_option("--output")->count() == 0) *t.output = output;
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      "--output: only agents, plans, schedules, sweep, results, diagnose, "
      "matrix and isolate "
      "print formats");
}

void ReportKeptDir(const std::string& dir, std::FILE* err) {
  if (!KeepLocalDir()) return;
  std::fprintf(err,
               "fabricpulse: local: kept %s (FABRICPULSE_KEEP_LOCAL_DIR): the "
               "daemons' logs, state and certificates; remove it when done\n",
               dir.c_str());
}

struct LocalFlags {
  std::string backend = "auto";
  int agents = 1;
  int ranks = 2;
};

int RunLocal(const LocalFlags& flags, const CommandSet& set) {
  // Every flag first: nothing starts for a command that cannot run.
  if (absl::Status bad = CheckCommandFlags(set, flags.agents * flags.ranks);
      !bad.ok()) {
    PrintError(std::string(bad.message()));
    return kExitBadInput;
  }
  // Before any thread starts (gRPC's, the cluster's).
  LocalSignalGuard signals;
  LocalClusterOptions options;
  options.bin_dir = common::ExecutableDir();
  options.agents = flags.agents;
  options.ranks = flags.ranks;
  // auto: NCCL on the visible GPUs when the worker has it, else Gloo. No
  // CUDA here: NVML counts the GPUs (none without a driver).
  LocalBackendRequest request;
  request.backend = flags.backend;
  request.agents = flags.agents;
  request.ranks = flags.ranks;
  if (flags.backend != "gloo") {
    absl::StatusOr<std::unique_ptr<nvml::Nvml>> nvml = nvml::OpenNvml();
    request.visible_gpus = nvml::VisibleGpuCount(
        nvml.ok() ? nvml->get() : nullptr, nvml::CudaVisibleDevicesFromEnv());
  }
  const std::string worker_binary = options.bin_dir + "/fabricpulse-worker";
  request.worker_backends = [&worker_binary] {
    return common::QueryWorkerBackends(worker_binary);
  };
  absl::StatusOr<std::string> backend = ResolveLocalBackend(request);
  if (!backend.ok()) {
    PrintError(std::string(backend.status().message()));
    return backend.status().code() == absl::StatusCode::kInvalidArgument
               ? kExitBadInput
               : kExitFailed;
  }
  options.backend = *backend;
  auto created = LocalCluster::Create(options);
  if (!created.ok()) {
    PrintError(absl::StrCat("local: ", created.status().message()));
    return created.status().code() == absl::StatusCode::kInvalidArgument
               ? kExitBadInput
               : kExitFailed;
  }
  LocalCluster& cluster = **created;
  // A signal from here on stops the daemons and removes the folder.
  signals.SetCleanup([&cluster](std::FILE* err) {
    cluster.Stop();
    ReportKeptDir(cluster.dir(), err);
  });
  int code = kExitOk;
  if (absl::Status launched = cluster.Launch(); !launched.ok()) {
    PrintError(absl::StrCat("local: ", launched.message()));
    code = kExitFailed;
  } else {
    CoordinatorTarget target;
    target.address = cluster.coordinator();
    target.tls = cluster.client_tls();
    code = RunSelected(set, target);
  }
  cluster.Stop();
  signals.SetCleanup(nullptr);
  ReportKeptDir(cluster.dir(), stderr);
  return code;
}

// The subcommands of `app`, in the order --help lists them.
std::vector<std::string> CommandNames(CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) {
    names.push_back(sub->get_name());
  }
  return names;
}

// For a parse error with no command (or none under `local`): "unknown
// command 'x'; did you mean ...", or "no command given; ..."; nullopt when a
// command was found (the error is then about its flags).
std::optional<std::string> CommandError(CLI::App& app, CLI::App& local,
                                        const CLI::Error& error) {
  CLI::App* where = &app;
  std::string program = "fabricpulse";
  if (local.parsed()) {
    where = &local;
    program = "fabricpulse local";
  }
  if (!where->get_subcommands().empty()) return std::nullopt;
  // A word where the command should be, wherever CLI11 left it (under
  // `local` it falls through to the top level).
  for (const std::string& arg : app.remaining(/*recurse=*/true)) {
    if (!arg.empty() && arg[0] != '-') {
      return UnknownCommandMessage(program, arg, CommandNames(*where));
    }
  }
  if (error.get_name() == "RequiredError" &&
      absl::StrContains(error.what(), "ubcommand")) {
    return absl::StrCat("no command given; commands: ",
                        absl::StrJoin(CommandNames(*where), ", "), "; see '",
                        program, " --help'");
  }
  return std::nullopt;
}

}  // namespace
}  // namespace fabricpulse::client

int main(int argc, char** argv) {
  using fabricpulse::client::CommandSet;
  using fabricpulse::client::WithChoices;
  CLI::App app{
      "fabricpulse: measure a cluster's collective-communication fabric"};
  app.require_subcommand(1);
  // Global flags are taken after the command too (`sweep --coordinator
  // H:P`): a flag a subcommand lacks falls through to its parent.
  app.fallthrough();
  app.set_version_flag("--version",
                       fabricpulse::core::VersionLine("fabricpulse"),
                       "Print the version and exit");
  app.footer(fabricpulse::client::RootHelpFooter());
  fabricpulse::client::CoordinatorTarget coordinator;
  app.add_option("--coordinator", coordinator.address,
                 "Coordinator address HOST:PORT")
      ->envname("FABRICPULSE_COORDINATOR");
  // `local` runs real TLS with a throwaway CA of its own and ignores these.
  fabricpulse::common::AddTlsFlags(app, coordinator.tls);
  std::string global_output;
  CLI::Option* global_output_flag = WithChoices(
      app.add_option("--output", global_output,
                     "table, json or csv, for agents, plans, schedules, "
                     "sweep, results and diagnose (which also take it after "
                     "the command)"),
      fabricpulse::client::kFormats);
  CommandSet direct;
  fabricpulse::client::AddCommands(app, direct);
  fabricpulse::client::CertsFlags certs_flags;
  CLI::App* certs = app.add_subcommand(
      "certs",
      "Make a CA of FabricPulse's own in DIR (first use) and issue "
      "certificates for identities, e.g. --issue coordinator/main "
      "--issue agent/node-a --issue operator/alice");
  certs->add_option("dir", certs_flags.dir, "Folder for the CA and files")
      ->required();
  certs
      ->add_option("--issue", certs_flags.issue,
                   "ROLE/NAME to issue (coordinator, agent, operator, "
                   "viewer); repeatable or comma-separated")
      ->delimiter(',');
  certs
      ->add_option("--dns", certs_flags.dns,
                   "DNS SANs for every certificate issued (FabricPulse checks "
                   "identities, not host names; other TLS clients may)")
      ->delimiter(',');
  certs->add_option("--ip", certs_flags.ip, "IP SANs, likewise")
      ->delimiter(',');
  certs->add_option("--days", certs_flags.days, "Validity of a new CA")
      ->capture_default_str();
  certs
      ->add_option("--trust-domain", certs_flags.trust_domain,
                   "SPIFFE trust domain of the identities")
      ->capture_default_str();

  fabricpulse::client::LocalFlags local_flags;
  CLI::App* local = app.add_subcommand(
      "local",
      "Run a coordinator and agents on this machine, run the subcommand, "
      "tear down");
  local->require_subcommand(1);
  local->add_option("--backend", local_flags.backend, "auto, nccl or gloo")
      ->check(CLI::IsMember({"auto", "nccl", "gloo"}))
      ->capture_default_str();
  local->add_option("--agents", local_flags.agents, "Agents (nodes) to run")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  local
      ->add_option("--ranks", local_flags.ranks,
                   "Ranks per agent (GPUs per agent with nccl)")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  CommandSet in_local;
  fabricpulse::client::AddCommands(*local, in_local);
  // Not under `local`: it asks any daemon, not the local cluster.
  fabricpulse::client::HealthFlags health_flags;
  CLI::App* health = app.add_subcommand(
      "health",
      "Ask a daemon's grpc.health.v1 (its plaintext --health-listen "
      "HOST:PORT, or with --tls-server its main port); exit 0 when SERVING");
  health->add_option("address", health_flags.address, "HOST:PORT")->required();
  health->add_option("--service", health_flags.service,
                     "Service name (default: the server as a whole)");
  health
      ->add_option("--tls-server", health_flags.tls_server,
                   "Ask over mutual TLS with --tls-cert, --tls-key and "
                   "--tls-ca (a daemon's main gRPC port); the server's "
                   "certificate must name this role")
      ->check(CLI::IsMember({"coordinator", "agent"}));

  // Not under `local`: it reads the history of a running coordinator.
  fabricpulse::client::CompareFlags compare_flags;
  CLI::App* compare = app.add_subcommand(
      "compare",
      "Two sweeps of the history side by side: B/A per op, size and "
      "placement, rows beyond noise marked slower or faster");
  compare->add_option("a", compare_flags.a, "Sweep id A (the reference)")
      ->required();
  compare->add_option("b", compare_flags.b, "Sweep id B")->required();
  compare
      ->add_option("--threshold", compare_flags.threshold_percent,
                   "A row differs beyond noise when |B/A - 1| exceeds this "
                   "(%, more than 0 up to 100) and the rows' own p50..p99 "
                   "spread")
      ->capture_default_str();
  WithChoices(
      compare
          ->add_option("--output", compare_flags.output, "table, json or csv")
          ->capture_default_str(),
      fabricpulse::client::kFormats);
  WithChoices(compare
                  ->add_option("--bw-unit", compare_flags.bw_unit,
                               "GBps (1e9 bytes/s) or Gbps (1e9 bits/s)")
                  ->capture_default_str(),
              fabricpulse::client::kBwUnits);
  compare->add_flag("--fail-on-slower", compare_flags.fail_on_slower,
                    "Exit 5 when a row of B is slower beyond noise");

  // Not under `local`: it reads a file and starts nothing.
  fabricpulse::client::ConfigCheckFlags config_flags;
  CLI::App* config = app.add_subcommand(
      "config", "Coordinator config files (plans and schedules)");
  config->require_subcommand(1);
  CLI::App* config_check = config->add_subcommand(
      "check",
      "Validate a coordinator config file as the coordinator would at start "
      "and print its plans and the schedules' next firings; exit 0 valid, 2 "
      "invalid (the error names the line and field)");
  config_check->add_option("file", config_flags.file, "The YAML file")
      ->required();

  // Written from `app` itself (every command and option above), so they
  // cannot drift from --help.
  std::string completion_shell;
  CLI::App* completion = app.add_subcommand(
      "completion",
      "Print a shell completion script: fabricpulse completion bash > "
      "/etc/bash_completion.d/fabricpulse");
  completion->add_option("shell", completion_shell, "bash or zsh")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh"}));
  CLI::App* man = app.add_subcommand(
      "man", "Print the manual page (roff): fabricpulse man | man -l -");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::optional<std::string> command =
        fabricpulse::client::CommandError(app, *local, e);
    fabricpulse::client::PrintError(command.value_or(e.what()));
    return fabricpulse::client::kExitBadInput;
  }
  if (global_output_flag->count() > 0) {
    absl::Status applied = fabricpulse::client::ApplyGlobalOutput(
        local->parsed() ? in_local : direct, global_output);
    if (!applied.ok()) {
      fabricpulse::client::PrintError(std::string(applied.message()));
      return fabricpulse::client::kExitBadInput;
    }
  }
  if (local->parsed()) {
    return fabricpulse::client::RunLocal(local_flags, in_local);
  }
  if (certs->parsed()) return fabricpulse::client::RunCertsCommand(certs_flags);
  if (completion->parsed() || man->parsed()) {
    const fabricpulse::client::CommandModel model =
        fabricpulse::client::DescribeApp(app);
    std::cout << (man->parsed() ? fabricpulse::client::ManPage(
                                      model, fabricpulse::core::VersionLine(
                                                 "fabricpulse"))
                  : completion_shell == "zsh"
                      ? fabricpulse::client::ZshCompletion(model)
                      : fabricpulse::client::BashCompletion(model));
    return std::cout.flush() ? fabricpulse::client::kExitOk
                             : fabricpulse::client::kExitFailed;
  }
  if (compare->parsed()) {
    return fabricpulse::client::RunCompareCommand(coordinator, compare_flags);
  }
  if (config_check->parsed()) {
    return fabricpulse::client::RunConfigCheck(config_flags, absl::Now(),
                                               std::cout);
  }
  if (health->parsed()) {
    return fabricpulse::client::RunHealthCommand(health_flags, coordinator.tls);
  }
  return fabricpulse::client::RunSelected(direct, coordinator);
}
