// `isolate --repeats N` on the real binaries (issue 29, item 5): every set
// is measured N times, and fewer than 2 (one number is a suspect, never a
// culprit) or more than 9 is refused before anything starts.
#include <string>

#include "absl/strings/match.h"
#include "client/commands/exit_codes.h"
#include "gtest/gtest.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + what.size())) {
    ++n;
  }
  return n;
}

TEST(IsolateRepeatsTest, EverySetIsMeasuredThatManyTimes) {
  for (const char* repeats : {"2", "4"}) {
    CliResult r =
        RunCli({"local", "--agents", "2", "--ranks", "1", "isolate",
                "--repeats", repeats, "--bytes", "64K", "--iters", "3",
                "--warmup", "1", "--output", "json", "--progress", "never"});
    // Two healthy nodes: nothing stands out.
    EXPECT_EQ(r.exit_code, client::kExitOk) << r.err;
    EXPECT_TRUE(absl::StrContains(r.out, "\"verdict\": \"none\"")) << r.out;
    EXPECT_EQ(Count(r.out, "\"role\": \"all\""), std::stoi(repeats)) << r.out;
  }
}

TEST(IsolateRepeatsTest, OutOfRangeIsRefusedNamingTheFlag) {
  for (const char* repeats : {"1", "10", "0"}) {
    CliResult r = RunCli({"local", "isolate", "--repeats", repeats});
    EXPECT_EQ(r.exit_code, client::kExitBadInput) << repeats << r.err;
    EXPECT_TRUE(absl::StrContains(r.err, "--repeats: ")) << r.err;
    EXPECT_TRUE(absl::StrContains(r.err, "allowed: 2 to 9")) << r.err;
  }
}

}  // namespace
}  // namespace fabricpulse::testing
