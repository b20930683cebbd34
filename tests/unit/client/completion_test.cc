// The CLI model read back from a CLI11 app, and the completion scripts and
// man page written from it.
#include <CLI/CLI.hpp>
#include <string>

#include "client/cli/cli_model.h"
#include "client/cli/completion_script.h"
#include "client/cli/man_page.h"
#include "client/cli/option_choices.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::client {
namespace {
namespace FP_UNITY_ID {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

struct Flags {
  std::string output = "table";
  std::string backend = "auto";
  std::vector<std::string> ops;
  bool raw = false;
  std::string file;
};

// A small app shaped like fabricpulse's: a global option, a command with
// choices, a nested command with a positional.
void Build(CLI::App& app, Flags& f) {
  app.fallthrough();
  WithChoices(app.add_option("--output", f.output, "Format"),
              {"table", "json", "csv"})
      ->envname("FP_OUTPUT");
  CLI::App* sweep = app.add_subcommand("sweep", "Run a sweep");
  WithChoices(
      sweep->add_option("--ops", f.ops, "Ops, comma-separated")->delimiter(','),
      "all_reduce, all_gather, broadcast");
  sweep->add_flag("--raw", f.raw, "Plain numbers");
  CLI::App* local = app.add_subcommand("local", "Run locally");
  local->add_option("--backend", f.backend, "Backend")
      ->check(CLI::IsMember({"auto", "nccl", "gloo"}))
      ->capture_default_str();
  CLI::App* config = local->add_subcommand("check", "Check a file");
  config->add_option("file", f.file, "The file")->required();
}

TEST(OptionChoicesTest, RecordedChoicesAreReadBackAndStayOutOfHelp) {
  CLI::App app{"test"};
  Flags f;
  Build(app, f);
  CLI::Option* output = app.get_option("--output");
  EXPECT_THAT(ChoicesOf(*output), ElementsAre("table", "json", "csv"));
  CLI::Option* ops = app.get_subcommand("sweep")->get_option("--ops");
  EXPECT_THAT(ChoicesOf(*ops),
              ElementsAre("all_reduce", "all_gather", "broadcast"));
  // IsMember checks count as choices too.
  CLI::Option* backend = app.get_subcommand("local")->get_option("--backend");
  EXPECT_THAT(ChoicesOf(*backend), ElementsAre("auto", "nccl", "gloo"));
  EXPECT_THAT(ChoicesOf(*app.get_subcommand("sweep")->get_option("--raw")),
              IsEmpty());
  // Invisible in --help, and checking nothing.
  EXPECT_THAT(app.help(), Not(HasSubstr("table,json,csv")));
  EXPECT_NO_THROW(app.parse(std::vector<std::string>{"xml", "--output"}));
  EXPECT_EQ(f.output, "xml");
}

TEST(CliModelTest, DescribesEveryCommandAndOption) {
  CLI::App app{"test"};
  Flags f;
  Build(app, f);
  const CommandModel model = DescribeApp(app);
  std::vector<std::string> paths;
  for (const CommandModel* c : AllCommands(model)) paths.push_back(c->path);
  EXPECT_THAT(paths, ElementsAre("sweep", "local", "local check"));
  const CommandModel& check = model.subcommands[1].subcommands[0];
  ASSERT_EQ(check.positionals.size(), 1u);
  EXPECT_EQ(check.positionals[0].positional, "file");
  EXPECT_TRUE(check.positionals[0].required);
  const OptionModel& backend = model.subcommands[1].options.back();
  EXPECT_THAT(backend.names, ElementsAre("--backend"));
  EXPECT_TRUE(backend.takes_value);
  EXPECT_EQ(backend.default_value, "auto");
  const OptionModel& raw = model.subcommands[0].options.back();
  EXPECT_FALSE(raw.takes_value);
}

class CompletionTest : public ::testing::Test {
 protected:
  void SetUp() override { Build(app_, flags_); }
  CLI::App app_{"test app"};
  Flags flags_;
};

TEST_F(CompletionTest, BashTablesComeFromTheApp) {
  const std::string bash = BashCompletion(DescribeApp(app_));
  EXPECT_THAT(bash,
              HasSubstr("complete -o default -F _fabricpulse fabricpulse"));
  EXPECT_THAT(bash, HasSubstr("    '') echo 'sweep local' ;;"));
  EXPECT_THAT(bash, HasSubstr("    'local') echo 'check' ;;"));
  EXPECT_THAT(bash, HasSubstr("    'sweep|--ops') echo 'all_reduce all_gather "
                              "broadcast' ;;"));
  // A parent's option reaches its subcommands (fallthrough).
  EXPECT_THAT(bash, HasSubstr("    'local check|--output') echo 'table json "
                              "csv' ;;"));
  EXPECT_THAT(bash, HasSubstr("    'sweep') echo '--help --ops --output "
                              "--raw -h' ;;"));
}

TEST_F(CompletionTest, ZshHasDescriptions) {
  const std::string zsh = ZshCompletion(DescribeApp(app_));
  EXPECT_THAT(zsh, HasSubstr("#compdef fabricpulse\n"));
  EXPECT_THAT(zsh,
              HasSubstr("reply=('sweep:Run a sweep' 'local:Run locally')"));
  EXPECT_THAT(zsh, HasSubstr("'--raw:Plain numbers'"));
  EXPECT_THAT(zsh, HasSubstr("compdef _fabricpulse fabricpulse"));
  // An unmatched case leaves no earlier answer behind.
  EXPECT_THAT(zsh, HasSubstr("_fabricpulse_commands() {\n  reply=()\n"));
}

TEST_F(CompletionTest, ManPageHasSectionsCommandsAndOptions) {
  const std::string page = ManPage(DescribeApp(app_), "fabricpulse 1.2.3");
  EXPECT_THAT(page, HasSubstr(".TH FABRICPULSE 1 \"\" \"fabricpulse 1.2.3\""));
  EXPECT_THAT(page, HasSubstr(".SH NAME\nfabricpulse \\- test app\n"));
  for (const char* section :
       {".SH SYNOPSIS", ".SH DESCRIPTION", ".SH OPTIONS", ".SH COMMANDS",
        ".SH EXIT STATUS", ".SH EXAMPLES", ".SH ENVIRONMENT"}) {
    EXPECT_THAT(page, HasSubstr(section));
  }
  EXPECT_THAT(page, HasSubstr(".SS \"local check\"\n"));
  EXPECT_THAT(page, HasSubstr("\\fB\\-\\-ops\\fR \\fITEXT\\fR"));
  EXPECT_THAT(page, HasSubstr("Allowed: auto, nccl, gloo."));
  EXPECT_THAT(page, HasSubstr("Default: auto."));
  EXPECT_THAT(page, HasSubstr(".B FP_OUTPUT\n"));
  EXPECT_THAT(page, HasSubstr(".TP\n.B 2\nbad input"));
}

TEST(ManPageTest, RoffEscapes) {
  EXPECT_EQ(RoffEscape("a-b \\ c"), "a\\-b \\e c");
  EXPECT_EQ(RoffEscape(".dot"), "\\&.dot");
  EXPECT_EQ(RoffEscape("'quote"), "\\&'quote");
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::client
