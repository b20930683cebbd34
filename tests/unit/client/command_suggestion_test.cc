#include "client/cli/command_suggestion.h"

#include "gtest/gtest.h"

namespace fabricpulse::client {
namespace {
namespace FP_UNITY_ID {

const std::vector<std::string> kCommands = {"agents",   "sweep", "results",
                                            "diagnose", "abort", "certs",
                                            "local",    "health"};

TEST(EditDistanceTest, CountsInsertionsDeletionsSubstitutionsAndSwaps) {
  EXPECT_EQ(EditDistance("sweep", "sweep"), 0);
  EXPECT_EQ(EditDistance("swep", "sweep"), 1);    // insertion
  EXPECT_EQ(EditDistance("sweeep", "sweep"), 1);  // deletion
  EXPECT_EQ(EditDistance("swaep", "sweep"), 1);   // substitution
  EXPECT_EQ(EditDistance("sewep", "sweep"), 1);   // adjacent swap
  EXPECT_EQ(EditDistance("SWEEP", "sweep"), 0);   // case
  EXPECT_EQ(EditDistance("", "abc"), 3);
  EXPECT_EQ(EditDistance("abc", ""), 3);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3);
}

TEST(SuggestCommandTest, NamesTheNearestCommand) {
  EXPECT_EQ(SuggestCommand("swep", kCommands), "sweep");
  EXPECT_EQ(SuggestCommand("swp", kCommands), "sweep");
  EXPECT_EQ(SuggestCommand("agent", kCommands), "agents");
  EXPECT_EQ(SuggestCommand("reslts", kCommands), "results");
  EXPECT_EQ(SuggestCommand("abrot", kCommands), "abort");
  EXPECT_EQ(SuggestCommand("Sweep", kCommands), "sweep");
}

TEST(SuggestCommandTest, TakesAnUnambiguousPrefix) {
  EXPECT_EQ(SuggestCommand("diag", kCommands), "diagnose");
  EXPECT_EQ(SuggestCommand("heal", kCommands), "health");
  // "a" is as near to several; one letter suggests nothing.
  EXPECT_EQ(SuggestCommand("a", kCommands), std::nullopt);
}

TEST(SuggestCommandTest, SuggestsNothingForAFarWord) {
  EXPECT_EQ(SuggestCommand("frobnicate", kCommands), std::nullopt);
  EXPECT_EQ(SuggestCommand("xyz", kCommands), std::nullopt);
  EXPECT_EQ(SuggestCommand("", kCommands), std::nullopt);
  EXPECT_EQ(SuggestCommand("swep", {}), std::nullopt);
}

TEST(UnknownCommandMessageTest, SuggestsOrListsTheCommands) {
  EXPECT_EQ(UnknownCommandMessage("fabricpulse", "swep", kCommands),
            "unknown command 'swep'; did you mean 'sweep'?");
  EXPECT_EQ(
      UnknownCommandMessage("fabricpulse local", "xyz", {"agents", "sweep"}),
      "unknown command 'xyz'; commands: agents, sweep; see 'fabricpulse "
      "local --help'");
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::client
