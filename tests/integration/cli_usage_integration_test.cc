// The CLI explains itself (issue 16): --version on every binary and in
// fabricpulse_build_info, global flags after the command, a suggestion for
// a mistyped command, and --help's allowed values, defaults and footers.
#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/commands/exit_codes.h"
#include "daemon/core/dtype.h"
#include "daemon/core/op_traits.h"
#include "daemon/core/redop.h"
#include "daemon/core/version.h"
#include "gtest/gtest.h"
#include "tests/integration/metrics_scrape.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

TEST(CliVersionTest, EveryBinaryPrintsTheProjectVersion) {
  for (const char* binary : {"fabricpulse", "fabricpulse-coordinator",
                             "fabricpulse-agent", "fabricpulse-worker"}) {
    CliResult r = RunBinary(binary, {"--version"});
    EXPECT_EQ(r.exit_code, 0) << binary << ": " << r.err;
    EXPECT_EQ(r.out, core::VersionLine(binary) + "\n");
    EXPECT_TRUE(absl::StartsWith(
        r.out, absl::StrCat(binary, " ", FABRICPULSE_PROJECT_VERSION)))
        << r.out;
    EXPECT_FALSE(absl::StrContains(r.out, "dev")) << r.out;
    EXPECT_TRUE(r.err.empty()) << r.err;
  }
  // After a command too (the flag falls through to the top level).
  CliResult sweep = RunCli({"sweep", "--version"});
  EXPECT_EQ(sweep.exit_code, 0) << sweep.err;
  EXPECT_EQ(sweep.out, core::VersionLine("fabricpulse") + "\n");
}

// Issue 33, item 1: `fabricpulse version` and `fabricpulse help COMMAND`,
// as git, kubectl and docker have them, print what --version and
// COMMAND --help print; an unknown command after `help` is refused as a
// mistyped command is.
TEST(CliUsageTest, VersionAndHelpCommandsAnswerLikeTheirFlags) {
  CliResult version = RunCli({"version"});
  EXPECT_EQ(version.exit_code, 0) << version.err;
  EXPECT_EQ(version.out, core::VersionLine("fabricpulse") + "\n");
  for (const std::vector<std::string>& path :
       std::vector<std::vector<std::string>>{
           {}, {"sweep"}, {"local", "sweep"}}) {
    std::vector<std::string> help = {"help"};
    help.insert(help.end(), path.begin(), path.end());
    std::vector<std::string> flag = path;
    flag.push_back("--help");
    CliResult by_command = RunCli(help);
    CliResult by_flag = RunCli(flag);
    EXPECT_EQ(by_command.exit_code, 0) << by_command.err;
    EXPECT_EQ(by_command.out, by_flag.out) << absl::StrJoin(path, " ");
    EXPECT_FALSE(by_command.out.empty());
  }
  CliResult mistyped = RunCli({"help", "swep"});
  EXPECT_EQ(mistyped.exit_code, client::kExitBadInput);
  EXPECT_EQ(mistyped.err,
            "fabricpulse: unknown command 'swep'; did you mean 'sweep'?\n");
  CliResult nested = RunCli({"help", "local", "diagnos"});
  EXPECT_EQ(nested.exit_code, client::kExitBadInput);
  EXPECT_EQ(nested.err,
            "fabricpulse: unknown command 'diagnos'; did you mean "
            "'diagnose'?\n");
}

TEST(CliUsageTest, AMistypedCommandGetsASuggestion) {
  CliResult r = RunCli({"swep"});
  EXPECT_EQ(r.exit_code, client::kExitBadInput);
  EXPECT_EQ(r.err,
            "fabricpulse: unknown command 'swep'; did you mean 'sweep'?\n");
  CliResult local = RunCli({"local", "--agents", "2", "diagnos"});
  EXPECT_EQ(local.exit_code, client::kExitBadInput);
  EXPECT_EQ(local.err,
            "fabricpulse: unknown command 'diagnos'; did you mean "
            "'diagnose'?\n");
  CliResult far = RunCli({"--coordinator", "127.0.0.1:1", "frobnicate"});
  EXPECT_EQ(far.exit_code, client::kExitBadInput);
  EXPECT_TRUE(absl::StartsWith(
      far.err,
      "fabricpulse: unknown command 'frobnicate'; commands: agents, "
      "plans, schedules, nodes, campaign, sweep, "))
      << far.err;
  CliResult none = RunCli({});
  EXPECT_EQ(none.exit_code, client::kExitBadInput);
  EXPECT_TRUE(absl::StartsWith(none.err, "fabricpulse: no command given"))
      << none.err;
}

TEST(CliUsageTest, HelpListsAllowedValuesRealDefaultsAndFooters) {
  CliResult root = RunCli({"--help"});
  EXPECT_EQ(root.exit_code, 0) << root.err;
  EXPECT_TRUE(absl::StrContains(root.out, "\nExamples:\n")) << root.out;
  EXPECT_TRUE(absl::StrContains(root.out, "\nExit codes:\n")) << root.out;
  for (const client::ExitCodeMeaning& m : client::kExitCodeMeanings) {
    EXPECT_TRUE(absl::StrContains(root.out,
                                  absl::StrCat("  ", m.code, "  ", m.meaning)))
        << m.code;
  }
  CliResult sweep = RunCli({"sweep", "--help"});
  EXPECT_EQ(sweep.exit_code, 0) << sweep.err;
  for (const std::string& allowed :
       {core::AllOpNames(), core::AllDTypeNames(), core::AllRedOpNames()}) {
    EXPECT_TRUE(absl::StrContains(sweep.out, "allowed: " + allowed))
        << allowed << "\n"
        << sweep.out;
  }
  // The check is on by default, and the help must not say otherwise.
  EXPECT_FALSE(absl::StrContains(sweep.out, "{false}")) << sweep.out;
  EXPECT_TRUE(absl::StrContains(sweep.out, "(the default: on)")) << sweep.out;
  EXPECT_TRUE(absl::StrContains(sweep.out, "--no-check")) << sweep.out;
}

class CliGlobalFlagsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cluster_ = StartCluster(/*agents=*/1, /*ranks=*/2).release();
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override { ASSERT_NE(cluster_, nullptr); }
  static client::LocalCluster* cluster_;
};
client::LocalCluster* CliGlobalFlagsTest::cluster_ = nullptr;

TEST_F(CliGlobalFlagsTest, GlobalFlagsWorkAfterTheCommand) {
  const std::string& coordinator = cluster_->coordinator();
  CliResult agents = RunCli({"agents", "--coordinator", coordinator});
  EXPECT_EQ(agents.exit_code, 0) << agents.err;
  EXPECT_TRUE(absl::StrContains(agents.out, "local-0")) << agents.out;
  const security::TlsOptions& tls = cluster_->client_tls();
  CliResult sweep = RunCli(
      {"sweep", "--ops", "all_reduce", "--max-bytes", "64", "--iters", "1",
       "--coordinator", coordinator, "--tls-cert", tls.cert_file, "--tls-key",
       tls.key_file, "--tls-ca", tls.ca_file, "--output", "csv"});
  EXPECT_EQ(sweep.exit_code, 0) << sweep.err;
  EXPECT_TRUE(absl::StrContains(sweep.out, "all_reduce,")) << sweep.out;
  // A TLS flag after the command is the one used: a missing file fails.
  CliResult missing = RunCli({"agents", "--coordinator", coordinator,
                              "--tls-cert", "/nonexistent/operator.crt"});
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_TRUE(absl::StrContains(missing.err, "/nonexistent/operator.crt"))
      << missing.err;
  // --output before the command reaches it; after it, the command's wins.
  CliResult json = RunCli({"--output", "json", "--coordinator", coordinator,
                           "results", "--last", "1"});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  EXPECT_TRUE(absl::StartsWith(json.out, "{") ||
              absl::StartsWith(json.out, "["))
      << json.out;
  CliResult own = RunCli({"--output", "json", "--coordinator", coordinator,
                          "results", "--last", "1", "--output", "table"});
  EXPECT_EQ(own.exit_code, 0) << own.err;
  EXPECT_FALSE(absl::StartsWith(own.out, "{")) << own.out;
  CliResult listed =
      RunCli({"--output", "json", "--coordinator", coordinator, "agents"});
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_TRUE(absl::StartsWith(listed.out, "{\"agents\":[{")) << listed.out;
  CliResult no_formats =
      RunCli({"--output", "json", "--coordinator", coordinator, "abort"});
  EXPECT_EQ(no_formats.exit_code, client::kExitBadInput);
  EXPECT_EQ(no_formats.err,
            "fabricpulse: --output: only agents, plans, schedules, nodes, "
            "sweep, results, diagnose, matrix and isolate print formats\n");
}

// nccl-tests' letters on sweep and kubectl's -o (issue 33): the spec the
// coordinator ran is the one the letters asked for.
TEST_F(CliGlobalFlagsTest, NcclTestsLettersAndDashOWork) {
  const security::TlsOptions& tls = cluster_->client_tls();
  const std::vector<std::string> target = {
      "--coordinator", cluster_->coordinator(),
      "--tls-cert",    tls.cert_file,
      "--tls-key",     tls.key_file,
      "--tls-ca",      tls.ca_file};
  std::vector<std::string> args = {
      "sweep", "-b", "8",  "-e",    "64", "-f", "4",   "-n", "3",
      "-w",    "1",  "-d", "int32", "-r", "1",  "-T",  "20", "-c",
      "0",     "-G", "0",  "-a",    "3",  "-o", "json"};
  args.insert(args.end(), target.begin(), target.end());
  CliResult sweep = RunCli(args);
  ASSERT_EQ(sweep.exit_code, 0) << sweep.err;
  std::string compact = sweep.out;
  compact.erase(std::remove_if(compact.begin(), compact.end(),
                               [](char c) { return c == ' ' || c == '\n'; }),
                compact.end());
  for (const char* want :
       {"\"min_bytes\":8", "\"max_bytes\":64", "\"factor\":4", "\"iters\":3",
        "\"warmup_iters\":1", "\"dtype\":\"int32\"", "\"root\":1",
        "\"timeout_seconds\":20", "\"check\":false", "\"graph\":false"}) {
    EXPECT_TRUE(absl::StrContains(compact, want)) << want << "\n" << compact;
  }
  // -o before the command, as --output, and on a listing after it.
  std::vector<std::string> listed = {"-o", "json", "agents"};
  listed.insert(listed.end(), target.begin(), target.end());
  CliResult agents = RunCli(listed);
  EXPECT_EQ(agents.exit_code, 0) << agents.err;
  EXPECT_TRUE(absl::StartsWith(agents.out, "{\"agents\":[{")) << agents.out;
  std::vector<std::string> results = {"results", "--last", "1", "-o", "csv"};
  results.insert(results.end(), target.begin(), target.end());
  CliResult csv = RunCli(results);
  EXPECT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_TRUE(absl::StartsWith(csv.out, "sweep_id,")) << csv.out;
}

TEST(CliUsageTest, NcclTestsLettersAreCheckedLikeTheirFlags) {
  // Each refused before anything is sent: no coordinator is given.
  CliResult rank0 = RunCli({"sweep", "-a", "0"});
  EXPECT_EQ(rank0.exit_code, client::kExitBadInput);
  EXPECT_TRUE(absl::StrContains(rank0.err, "-a")) << rank0.err;
  EXPECT_TRUE(absl::StrContains(rank0.err, "1 to 3")) << rank0.err;
  CliResult both = RunCli({"sweep", "-c", "1", "--no-check"});
  EXPECT_EQ(both.exit_code, client::kExitBadInput);
  EXPECT_TRUE(absl::StrContains(both.err, "excludes")) << both.err;
  CliResult plan = RunCli({"sweep", "--plan", "nightly", "-n", "5"});
  EXPECT_EQ(plan.exit_code, client::kExitBadInput);
  EXPECT_TRUE(absl::StrContains(plan.err, "--plan")) << plan.err;
  // nccl-tests' -o is the reduction op; here it is the output format.
  CliResult redop = RunCli({"sweep", "-o", "sum"});
  EXPECT_EQ(redop.exit_code, client::kExitBadInput);
  EXPECT_TRUE(absl::StrContains(redop.err, "table")) << redop.err;
}

TEST(CliUsageTest, AMistypedFlagGetsASuggestion) {
  CliResult near = RunCli({"sweep", "--min-byte", "8"});
  EXPECT_EQ(near.exit_code, client::kExitBadInput);
  EXPECT_EQ(near.err,
            "fabricpulse: unknown flag '--min-byte' for 'fabricpulse sweep'; "
            "did you mean '--min-bytes'?\n");
  CliResult local = RunCli({"local", "sweep", "--itres=3"});
  EXPECT_EQ(local.exit_code, client::kExitBadInput);
  EXPECT_EQ(local.err,
            "fabricpulse: unknown flag '--itres' for 'fabricpulse local "
            "sweep'; did you mean '--iters'?\n");
  // A global flag counts as the command's.
  CliResult global = RunCli({"agents", "--coordinater", "127.0.0.1:1"});
  EXPECT_EQ(global.exit_code, client::kExitBadInput);
  EXPECT_EQ(global.err,
            "fabricpulse: unknown flag '--coordinater' for 'fabricpulse "
            "agents'; did you mean '--coordinator'?\n");
  CliResult far = RunCli({"agents", "--frobnicate"});
  EXPECT_EQ(far.exit_code, client::kExitBadInput);
  EXPECT_EQ(far.err,
            "fabricpulse: unknown flag '--frobnicate' for 'fabricpulse "
            "agents'; see 'fabricpulse agents --help'\n");
  // nccl-tests' letters without an equivalent say why.
  CliResult gpus = RunCli({"sweep", "-g", "8"});
  EXPECT_EQ(gpus.exit_code, client::kExitBadInput);
  EXPECT_TRUE(absl::StartsWith(
      gpus.err,
      "fabricpulse: unknown flag '-g' for 'fabricpulse sweep': nccl-tests' "
      "GPUs per thread"))
      << gpus.err;
}

TEST_F(CliGlobalFlagsTest, BuildInfoCarriesTheVersion) {
  auto coordinator = ScrapeMetrics(cluster_->coordinator_metrics());
  ASSERT_TRUE(coordinator.ok()) << coordinator.status();
  EXPECT_EQ(
      SeriesValue(*coordinator, absl::StrCat("fabricpulse_build_info{component="
                                             "\"coordinator\",version=\"",
                                             core::Version(), "\"}")),
      1)
      << *coordinator;
  auto agent = ScrapeMetrics(cluster_->agent_metrics().front());
  ASSERT_TRUE(agent.ok()) << agent.status();
  EXPECT_EQ(SeriesValue(*agent, absl::StrCat("fabricpulse_build_info{"
                                             "component=\"agent\",version=\"",
                                             core::Version(), "\"}")),
            1)
      << *agent;
  EXPECT_FALSE(absl::StrContains(*coordinator, "version=\"dev\""));
}

}  // namespace
}  // namespace fabricpulse::testing
