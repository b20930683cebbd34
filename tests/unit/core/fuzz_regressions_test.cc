// Inputs that broke a fuzz target (tests/fuzz), each with the clear error
// it gets now. The same inputs are in tests/fuzz/corpus/<target>/, which
// fuzz_replay_test feeds to the targets themselves.
#include <string>

#include "absl/strings/match.h"
#include "absl/time/time.h"
#include "daemon/core/coordinator_config.h"
#include "daemon/core/cron.h"
#include "daemon/core/limits.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

// tests/fuzz/corpus/config/strings.yaml: a quoted key with a newline split
// the config error over two lines (the contract is one line).
TEST(FuzzRegressionTest, ConfigErrorEscapesControlCharactersInKeys) {
  const auto config = ParseCoordinatorConfig("plans:\n  \"a\\nb\\x01\": {}\n");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(absl::StrContains(config.status().message(), "\n"));
  EXPECT_TRUE(absl::StartsWith(config.status().message(),
                               "config line 2: plans.a\\nb\\x01: invalid "
                               "plan name"))
      << config.status().message();
}

// tests/fuzz/corpus/config/hang-lone-comma.yaml: yaml-cpp 0.7's LoadAll
// never returned on a "," outside a flow collection (the coordinator hung
// at start, its memory growing).
TEST(FuzzRegressionTest, ConfigWithStrayCommaIsRefusedAtOnce) {
  for (const char* text :
       {",", ",lans:\n  nightly-full: {}\n", "plans: {}\n...\n,"}) {
    SCOPED_TRACE(text);
    const auto config = ParseCoordinatorConfig(text);
    ASSERT_FALSE(config.ok());
    EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StartsWith(config.status().message(), "config line "))
        << config.status().message();
  }
  EXPECT_EQ(ParseCoordinatorConfig(",").status().message(),
            "config line 1: invalid YAML: unexpected ',' at column 1");
}

TEST(FuzzRegressionTest, ConfigWithTwoDocumentsIsRefused) {
  EXPECT_EQ(
      ParseCoordinatorConfig("plans: {}\n---\nplans: {}\n").status().message(),
      "config line 2: expected one YAML document, got more than one");
}

// tests/fuzz/corpus/cron/zone-absolute-path.txt: a zone name that is a
// path was loaded from that file (absl opens absolute paths, "../" and
// "file:" names as given: a FIFO would hang the coordinator).
TEST(FuzzRegressionTest, ZoneNamesThatArePathsAreRefused) {
  for (const char* zone : {"/usr/share/zoneinfo/Europe/Berlin",
                           "../zoneinfo/UTC", "file:/usr/share/zoneinfo/UTC",
                           "Europe/./Berlin", "Europe//Berlin", "UTC\n", ""}) {
    SCOPED_TRACE(zone);
    EXPECT_FALSE(IsValidTimeZoneName(zone));
    const auto cron = CronSchedule::Parse("0 2 * * *", zone);
    ASSERT_FALSE(cron.ok());
    EXPECT_TRUE(
        absl::StartsWith(cron.status().message(), "time_zone: unknown zone '"))
        << cron.status().message();
  }
  for (const char* zone :
       {"UTC", "Europe/Berlin", "Etc/GMT+5", "America/Port-au-Prince",
        "America/Argentina/Buenos_Aires"}) {
    SCOPED_TRACE(zone);
    EXPECT_TRUE(IsValidTimeZoneName(zone));
    EXPECT_TRUE(CronSchedule::Parse("0 2 * * *", zone).ok());
  }
  EXPECT_EQ(
      ParseCoordinatorConfig("timezone: /etc/localtime\n").status().message(),
      "config line 1: timezone: unknown zone '/etc/localtime'; use an "
      "IANA zone name such as UTC or Europe/Berlin");
}

// tests/fuzz/corpus/cron/step-overflow.txt: the step loop overflowed an
// int (undefined behaviour; in practice a write before the field's bits).
// Found reading the code for the cron target; UBSan in fuzz_cron shows it.
TEST(FuzzRegressionTest, CronHugeStepAfterARangeEndIsOneValue) {
  const auto cron =
      CronSchedule::Parse("59-59/2147483647 23-23/2147483647 * * *", "UTC");
  ASSERT_TRUE(cron.ok()) << cron.status();
  EXPECT_EQ(cron->Next(absl::FromUnixSeconds(0)),
            absl::FromUnixSeconds(23 * 3600 + 59 * 60));
  EXPECT_TRUE(CronSchedule::Parse("*/2147483647 * * * *", "UTC").ok());
}

// tests/fuzz/corpus/config/long-scalar-echo.yaml (FABRICPULSE_FUZZ_STRICT):
// a config error quoted a whole 1 KB value; values are quoted by their
// first kQuotedPrefixLength (32) bytes (core::QuotePrefix), key paths up to
// 128.
TEST(FuzzRegressionTest, ConfigErrorsQuoteAShortPrefix) {
  const std::string value(3000, 'x');
  const auto top = ParseCoordinatorConfig(value);
  ASSERT_FALSE(top.ok());
  EXPECT_EQ(top.status().message(),
            "config line 1: the file must be a map of top-level keys, got '" +
                std::string(kQuotedPrefixLength, 'x') + "...' (3000 bytes)");
  const auto iters =
      ParseCoordinatorConfig("plans:\n  a:\n    iters: " + value + "\n");
  ASSERT_FALSE(iters.ok());
  EXPECT_LT(iters.status().message().size(), 200u) << iters.status().message();
  const auto key =
      ParseCoordinatorConfig("plans:\n  a:\n    " + value + ": 1\n");
  ASSERT_FALSE(key.ok());
  EXPECT_LT(key.status().message().size(), 400u) << key.status().message();
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
