// The node-feature-discovery feature file (issue 30), read back by a parser
// written here from NFD's own rules (source/local/local.go and
// pkg/apis/nfd/validate/validate.go of node-feature-discovery): directive
// lines "# +expiry-time=<RFC 3339>", other '#' lines ignored, "<key>=<value>"
// ("<key>" alone: "true"), lines after a passed expiry dropped, files over
// 64 KiB and hidden files ignored; a label key must be a qualified name with
// a namespace other than kubernetes.io or *.kubernetes.io, its value a
// Kubernetes label value.
#include "daemon/core/nfd_feature_file.h"

#include <map>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

bool IsDnsSubdomain(absl::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  for (absl::string_view part : absl::StrSplit(s, '.')) {
    if (part.empty() || part.size() > 63) return false;
    if (!absl::ascii_isalnum(part.front()) ||
        !absl::ascii_isalnum(part.back())) {
      return false;
    }
    for (char c : part) {
      if (!(absl::ascii_islower(c) || absl::ascii_isdigit(c) || c == '-')) {
        return false;
      }
    }
  }
  return true;
}

// NFD's validate.Label for keys: a qualified name with a namespace, not in
// kubernetes.io.
bool IsNfdLabelKey(absl::string_view key) {
  const size_t slash = key.find('/');
  if (slash == absl::string_view::npos) return false;  // unprefixed
  const absl::string_view ns = key.substr(0, slash);
  const absl::string_view name = key.substr(slash + 1);
  if (!IsDnsSubdomain(ns) || name.empty() || !IsLabelValue(name)) return false;
  return ns != "kubernetes.io" && !absl::EndsWith(ns, ".kubernetes.io");
}

// The labels NFD's local source makes of `text` at `now`; a key or value
// NFD's master would refuse fails the test.
std::map<std::string, std::string> NfdLabels(const std::string& text,
                                             absl::Time now) {
  std::map<std::string, std::string> labels;
  EXPECT_LE(text.size(), 65536u) << "NFD ignores files over 64 KiB";
  absl::Time expiry = now;  // NFD: no directive reads as "expires now"...
  bool expiry_given = false;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (line.empty()) continue;
    if (absl::StartsWith(line, "#")) {
      if (absl::ConsumePrefix(&line, "# +")) {
        std::pair<std::string, std::string> kv =
            absl::StrSplit(line, absl::MaxSplits('=', 1));
        EXPECT_EQ(kv.first, "expiry-time") << "unknown directive " << line;
        std::string error;
        EXPECT_TRUE(
            absl::ParseTime(absl::RFC3339_full, kv.second, &expiry, &error))
            << kv.second << ": " << error;
        expiry_given = true;
      }
      continue;
    }
    // ...but ExpiryTime.Before(now) is false for now itself; a later
    // directive sets it.
    if (expiry_given && expiry < now) continue;
    std::pair<std::string, std::string> kv =
        absl::StrSplit(line, absl::MaxSplits('=', 1));
    if (!absl::StrContains(line, '=')) kv.second = "true";
    EXPECT_TRUE(IsNfdLabelKey(kv.first)) << kv.first;
    EXPECT_TRUE(IsLabelValue(kv.second)) << kv.second;
    labels[kv.first] = kv.second;
  }
  return labels;
}

const absl::Time kTested = absl::FromCivil(
    absl::CivilSecond(2026, 12, 4, 2, 16, 28), absl::UTCTimeZone());

TEST(NfdFeatureFileTest, NfdReadsTheVerdictAsLabelsUntilItsExpiry) {
  NfdVerdictLabels v{"fail", "nightly-full", kTested,
                     kTested + absl::Hours(24)};
  const std::string text = NfdFeatureFileText(v);
  EXPECT_EQ(text,
            "# FabricPulse: this node's NCCL verdict; written by "
            "fabricpulse-agent.\n"
            "# +expiry-time=2026-12-05T02:16:28Z\n"
            "fabricpulse.io/nccl-health=fail\n"
            "fabricpulse.io/nccl-tested=20261204T021628Z\n"
            "fabricpulse.io/nccl-plan=nightly-full\n");
  const std::map<std::string, std::string> want = {
      {"fabricpulse.io/nccl-health", "fail"},
      {"fabricpulse.io/nccl-tested", "20261204T021628Z"},
      {"fabricpulse.io/nccl-plan", "nightly-full"}};
  EXPECT_EQ(NfdLabels(text, kTested), want);
  EXPECT_EQ(NfdLabels(text, kTested + absl::Hours(23)), want);
  // Past the expiry NFD drops every label: a verdict nobody renewed says
  // nothing.
  EXPECT_TRUE(
      NfdLabels(text, kTested + absl::Hours(24) + absl::Seconds(1)).empty());
  EXPECT_EQ(NfdFileExpiry(text), kTested + absl::Hours(24));
}

TEST(NfdFeatureFileTest, UntestedHasNoTestedLabelAndABadPlanNameIsLeftOut) {
  NfdVerdictLabels v{"untested", "plan with spaces", absl::InfinitePast(),
                     kTested + absl::Minutes(10)};
  EXPECT_EQ(NfdLabels(NfdFeatureFileText(v), kTested),
            (std::map<std::string, std::string>{
                {"fabricpulse.io/nccl-health", "untested"}}));
  v.plan = std::string(64, 'p');  // over a label value's 63 characters
  EXPECT_EQ(NfdLabels(NfdFeatureFileText(v), kTested).size(), 1u);
}

TEST(NfdFeatureFileTest, EveryVerdictIsALabelValue) {
  for (const char* verdict :
       {"pass", "degraded", "fail", "suspect", "untested"}) {
    NfdVerdictLabels v{verdict, "p", kTested, kTested + absl::Hours(1)};
    EXPECT_EQ(NfdLabels(NfdFeatureFileText(v), kTested)
                  .at("fabricpulse.io/nccl-health"),
              verdict);
  }
}

TEST(NfdFeatureFileTest, TheTemporaryIsHiddenFromNfd) {
  EXPECT_EQ(kNfdFeatureTempName[0], '.');
  EXPECT_NE(kNfdFeatureFileName[0], '.');
}

TEST(NfdFeatureFileTest, LabelValueRules) {
  EXPECT_TRUE(IsLabelValue(""));
  EXPECT_TRUE(IsLabelValue("a"));
  EXPECT_TRUE(IsLabelValue("20261204T021628Z"));
  EXPECT_TRUE(IsLabelValue("a-b_c.d"));
  EXPECT_TRUE(IsLabelValue(std::string(63, 'x')));
  EXPECT_FALSE(IsLabelValue(std::string(64, 'x')));
  EXPECT_FALSE(IsLabelValue("-a"));
  EXPECT_FALSE(IsLabelValue("a."));
  EXPECT_FALSE(IsLabelValue("2026-12-04T02:16:28Z"));  // ':' is not allowed
  EXPECT_FALSE(IsLabelValue("a b"));
}

TEST(NfdFeatureFileTest, ExpiryOfAFileWithoutOneIsNone) {
  EXPECT_EQ(NfdFileExpiry("fabricpulse.io/nccl-health=pass\n"), std::nullopt);
  EXPECT_EQ(NfdFileExpiry("# +expiry-time=yesterday\n"), std::nullopt);
  // The last directive counts, as in NFD.
  EXPECT_EQ(NfdFileExpiry("# +expiry-time=2026-12-04T02:16:28Z\n"
                          "# +expiry-time=2026-12-05T02:16:28Z\n"),
            kTested + absl::Hours(24));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
