// Agent labels: the --labels text, the rules on keys and values, the bound
// on their number, and matching a plan's select.
#include "daemon/core/agent_labels.h"

#include <string>

#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

TEST(AgentLabelsTest, ParsesAndPrintsBack) {
  absl::StatusOr<AgentLabels> labels =
      ParseLabels("--labels", " rack=r1, pool=train ,empty=");
  ASSERT_TRUE(labels.ok()) << labels.status();
  EXPECT_EQ(*labels,
            (AgentLabels{{"rack", "r1"}, {"pool", "train"}, {"empty", ""}}));
  EXPECT_EQ(LabelsText(*labels), "empty=,pool=train,rack=r1");
  EXPECT_EQ(*ParseLabels("--labels", LabelsText(*labels)), *labels);
  EXPECT_TRUE(ParseLabels("--labels", "  ")->empty());
}

TEST(AgentLabelsTest, RefusesBadEntriesNamingTheField) {
  EXPECT_EQ(ParseLabels("--labels", "rack").status().message(),
            "--labels: entry 'rack' has no '='; write "
            "key=value[,key=value...]");
  EXPECT_EQ(ParseLabels("--labels", "a=1,a=2").status().message(),
            "--labels: key 'a' is given twice");
  EXPECT_EQ(ParseLabels("--labels", "a b=1").status().message(),
            "--labels: key 'a b' is not allowed; a label key is up to 63 "
            "characters of A-Z a-z 0-9 . _ -, starting and ending with a "
            "letter or digit");
  EXPECT_EQ(ParseLabels("--labels", "a=x/y").status().message(),
            "--labels: value 'x/y' is not allowed; a label value is empty or "
            "up to 63 characters of A-Z a-z 0-9 . _ -, starting and ending "
            "with a letter or digit");
  EXPECT_FALSE(ParseLabels("--labels", "=v").ok());
  EXPECT_FALSE(ParseLabels("--labels", std::string(64, 'k') + "=v").ok());
  EXPECT_TRUE(ParseLabels("--labels", std::string(63, 'k') + "=v").ok());
}

TEST(AgentLabelsTest, AtMostSixteen) {
  std::string text;
  for (int i = 0; i < 17; ++i) text += "k" + std::to_string(i) + "=v,";
  text.pop_back();
  EXPECT_EQ(ParseLabels("--labels", text).status().message(),
            "--labels: 17 labels is out of range; allowed: up to 16");
}

TEST(AgentLabelsTest, SelectorMatchesEveryKey) {
  const AgentLabels labels = {{"rack", "r1"}, {"pool", "train"}};
  EXPECT_TRUE(LabelsMatch(labels, {}));
  EXPECT_TRUE(LabelsMatch(labels, {{"pool", "train"}}));
  EXPECT_FALSE(LabelsMatch(labels, {{"pool", "infer"}}));
  EXPECT_FALSE(LabelsMatch(labels, {{"zone", "a"}}));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
