// The CLI's command set, checked through a CLI11 app as cli_main.cc builds
// it, without a coordinator or a process: the global --output, the flag
// checks `local` runs before it starts anything, and the message for a
// missing or unknown command.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "client/cli/command_error.h"
#include "client/cli/command_set.h"
#include "client/cli/local_command.h"
#include "client/commands/coordinator_connection.h"
#include "client/commands/exit_codes.h"
#include "gtest/gtest.h"

namespace fabricpulse::client {
namespace {

// An app with the coordinator commands at the top level and under `local`,
// as the CLI has them.
struct TestApp {
  CLI::App app{"test"};
  CLI::App* local = nullptr;
  CommandSet direct;
  CommandSet in_local;

  TestApp() {
    app.require_subcommand(1);
    app.fallthrough();
    AddCommands(app, direct);
    local = app.add_subcommand("local", "local cluster");
    local->require_subcommand(1);
    AddCommands(*local, in_local);
  }
  // Parses `args` (without the program name); returns the parse error's
  // message, or "" when it parsed.
  std::string Parse(std::vector<std::string> args) {
    std::reverse(args.begin(), args.end());  // CLI11 takes them reversed
    try {
      app.parse(args);
    } catch (const CLI::ParseError& e) {
      error_name = e.get_name();
      std::optional<std::string> command = CommandError(app, *local, e);
      return command.value_or(e.what());
    }
    return "";
  }
  std::string error_name;
};

TEST(CliAppTest, TheGlobalOutputGoesToTheParsedCommand) {
  TestApp t;
  ASSERT_EQ(t.Parse({"agents"}), "");
  ASSERT_TRUE(ApplyGlobalOutput(t.direct, "json").ok());
  EXPECT_EQ(t.direct.agents_output, "json");
  EXPECT_EQ(t.direct.plans_output, "table");  // not parsed: untouched
  EXPECT_EQ(t.in_local.agents_output, "table");
}

TEST(CliAppTest, ACommandsOwnOutputWinsOverTheGlobalOne) {
  TestApp t;
  ASSERT_EQ(t.Parse({"sweep", "--output", "csv"}), "");
  ASSERT_TRUE(ApplyGlobalOutput(t.direct, "json").ok());
  EXPECT_EQ(t.direct.sweep_flags.output, "csv");
}

TEST(CliAppTest, TheGlobalOutputIsRefusedForACommandWithoutFormats) {
  TestApp t;
  ASSERT_EQ(t.Parse({"abort"}), "");
  absl::Status applied = ApplyGlobalOutput(t.direct, "json");
  EXPECT_EQ(applied.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(applied.message(),
            "--output: only agents, plans, schedules, nodes, sweep, results, "
            "diagnose, matrix and isolate print formats");
}

TEST(CliAppTest, LocalChecksTheSweepFlagsAgainstItsRanks) {
  TestApp t;
  ASSERT_EQ(t.Parse({"local", "sweep", "--root", "3"}), "");
  EXPECT_TRUE(t.local->parsed());
  EXPECT_TRUE(CheckCommandFlags(t.in_local, 4).ok());
  absl::Status bad = CheckCommandFlags(t.in_local, 2);
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.message(),
            "root: 3 is out of range; allowed: 0 to 1 (2 ranks in this sweep)");
}

TEST(CliAppTest, LocalChecksAListingsOutput) {
  TestApp t;
  ASSERT_EQ(t.Parse({"local", "plans"}), "");
  EXPECT_TRUE(CheckCommandFlags(t.in_local, 2).ok());
  t.in_local.plans_output = "yaml";
  EXPECT_EQ(CheckCommandFlags(t.in_local, 2).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(CliAppTest, AnOutputOutsideTheChoicesIsRefusedByTheCheck) {
  // The choices are recorded for completion, not enforced by the parse:
  // the command's own check names the flag and what it allows.
  TestApp t;
  ASSERT_EQ(t.Parse({"results", "--output", "yaml"}), "");
  absl::Status bad = CheckCommandFlags(t.direct, 0);
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.message().find("yaml"), std::string::npos) << bad.message();
}

TEST(CliAppTest, AnUnknownCommandIsNamedWithTheNearestOne) {
  TestApp t;
  EXPECT_EQ(t.Parse({"swep"}), "unknown command 'swep'; did you mean 'sweep'?");
  TestApp under_local;
  EXPECT_EQ(under_local.Parse({"local", "reslts"}),
            "unknown command 'reslts'; did you mean 'results'?");
}

TEST(CliAppTest, AFarWordUnderLocalListsLocalsCommands) {
  TestApp t;
  const std::string error = t.Parse({"local", "zzzzzz"});
  EXPECT_EQ(error.rfind("unknown command 'zzzzzz'; commands: agents, ", 0), 0)
      << error;
  EXPECT_NE(error.find("see 'fabricpulse local --help'"), std::string::npos)
      << error;
  // `local` itself is a top-level command, not one of local's.
  EXPECT_EQ(error.find(", local"), std::string::npos) << error;
}

TEST(CliAppTest, NoCommandListsTheCommands) {
  TestApp t;
  const std::string error = t.Parse({});
  EXPECT_EQ(error.rfind("no command given; commands: agents, plans, ", 0), 0)
      << error;
  EXPECT_NE(error.find("local"), std::string::npos) << error;
}

TEST(CliAppTest, AFlagErrorIsCLI11sOwnMessage) {
  TestApp t;
  const std::string error = t.Parse({"results", "--last", "0"});
  EXPECT_EQ(error.find("unknown command"), std::string::npos) << error;
  EXPECT_NE(error.find("--last"), std::string::npos) << error;
}

TEST(CliAppTest, RunningWithNoParsedCommandIsBadInput) {
  CLI::App app{"test"};
  CommandSet set;
  AddCommands(app, set);
  app.parse(std::vector<std::string>{});
  EXPECT_EQ(RunSelected(set, CoordinatorTarget{}), kExitBadInput);
}

TEST(LocalNcclRanksTest, GivenRanksAreKept) {
  LocalFlags flags;
  flags.ranks = 3;
  flags.ranks_given = true;
  EXPECT_EQ(LocalNcclRanks(flags, 8), 3);
  EXPECT_EQ(LocalNcclRanks(flags, 1), 3);  // ResolveLocalBackend refuses
}

TEST(LocalNcclRanksTest, OtherwiseOneRankPerVisibleGpu) {
  LocalFlags flags;  // --ranks not given
  EXPECT_EQ(LocalNcclRanks(flags, 1), 1);
  EXPECT_EQ(LocalNcclRanks(flags, 8), 8);
  flags.agents = 2;
  EXPECT_EQ(LocalNcclRanks(flags, 8), 4);
  flags.agents = 3;
  EXPECT_EQ(LocalNcclRanks(flags, 8), 2);  // 2 GPUs left idle
  EXPECT_EQ(LocalNcclRanks(flags, 2), 1);  // 3 x 1 > 2: refused later
  EXPECT_EQ(LocalNcclRanks(flags, 0), 1);
}

}  // namespace
}  // namespace fabricpulse::client
