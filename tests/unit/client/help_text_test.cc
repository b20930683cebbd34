#include "client/cli/help_text.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "client/commands/exit_codes.h"
#include "gtest/gtest.h"

namespace fabricpulse::client {
namespace {
namespace FP_UNITY_ID {

TEST(HelpTextTest, ExitCodesFooterHasEveryCodeOnce) {
  const std::string footer = ExitCodesFooter();
  EXPECT_TRUE(absl::StartsWith(footer, "Exit codes:\n")) << footer;
  int code = 0;
  for (int expected : {kExitOk, kExitFailed, kExitBadInput, kExitUnreachable,
                       kExitBusy, kExitGateFailed}) {
    EXPECT_EQ(kExitCodeMeanings[code].code, expected);
    ++code;
    EXPECT_TRUE(absl::StrContains(footer, absl::StrCat("\n  ", expected, "  ")))
        << expected << "\n"
        << footer;
  }
  EXPECT_EQ(code, static_cast<int>(std::size(kExitCodeMeanings)));
}

TEST(HelpTextTest, RootFooterHasExamplesAndExitCodes) {
  const std::string footer = RootHelpFooter();
  EXPECT_TRUE(absl::StrContains(footer, "\nExamples:\n")) << footer;
  EXPECT_TRUE(absl::StrContains(footer, "fabricpulse local sweep")) << footer;
  EXPECT_TRUE(absl::StrContains(footer, ExitCodesFooter())) << footer;
}

TEST(HelpTextTest, WithAllowedAppendsTheNames) {
  EXPECT_EQ(WithAllowed("Element type", "float, half"),
            "Element type; allowed: float, half");
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::client
