// `fabricpulse node-check`, node-problem-detector's custom plugin contract
// (issue 30): exit 0 OK, 1 problem, 2 unknown; one line of at most 80
// characters; a stale, missing or unreadable file, no verdict, untested and
// an expired verdict are unknown; fail and degraded a problem; pass and
// suspect OK.
#include <string>

#include "absl/strings/match.h"
#include "client/commands/node_check_command.h"
#include "fabricpulse/v1/types.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"

namespace fabricpulse::client {
namespace {
namespace FP_UNITY_ID {

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);
const absl::Duration kMaxAge = absl::Minutes(3);

double Unix(absl::Time t) {
  return absl::ToDoubleSeconds(t - absl::UnixEpoch());
}

std::string FileWith(const std::string& verdict,
                     absl::Duration written_ago = absl::Seconds(5),
                     const std::string& plan = "nightly-full") {
  v1::LocalVerdictFile file;
  file.set_node("node-a");
  file.set_written_unix_seconds(Unix(kNow - written_ago));
  file.set_coordinator_answered_unix_seconds(Unix(kNow - absl::Seconds(1)));
  if (!verdict.empty()) {
    v1::NodeVerdictNotice* v = file.mutable_verdict();
    v->set_verdict(verdict);
    v->set_plan(plan);
    if (verdict != "untested") {
      v->set_tested_unix_seconds(Unix(kNow - absl::Hours(2)));
      v->set_expires_unix_seconds(Unix(kNow + absl::Hours(22)));
    }
  }
  std::string json;
  (void)google::protobuf::util::MessageToJsonString(file, &json);
  return json;
}

TEST(NodeCheckTest, ConfirmedFindingsAreAProblem) {
  for (const char* verdict : {"fail", "degraded"}) {
    NodeCheckAnswer a = JudgeVerdictFile(FileWith(verdict), kNow, kMaxAge);
    EXPECT_EQ(a.exit_code, kNodeCheckProblem) << verdict;
    EXPECT_EQ(a.message, std::string("NCCL verdict ") + verdict +
                             " (plan nightly-full, tested 2027-01-15T06:00Z)");
  }
}

TEST(NodeCheckTest, PassAndAnUnconfirmedSuspectAreOk) {
  for (const char* verdict : {"pass", "suspect"}) {
    NodeCheckAnswer a = JudgeVerdictFile(FileWith(verdict), kNow, kMaxAge);
    EXPECT_EQ(a.exit_code, kNodeCheckOk) << verdict;
    EXPECT_TRUE(absl::StartsWith(a.message, "NCCL verdict ")) << a.message;
  }
}

TEST(NodeCheckTest, WhatIsNotKnownIsUnknown) {
  const std::string stale = FileWith("fail", absl::Minutes(4));
  EXPECT_EQ(JudgeVerdictFile(stale, kNow, kMaxAge).exit_code,
            kNodeCheckUnknown);
  EXPECT_EQ(JudgeVerdictFile(stale, kNow, kMaxAge).message,
            "FabricPulse agent silent since 2027-01-15T07:56Z");
  EXPECT_EQ(
      JudgeVerdictFile(absl::NotFoundError("no file"), kNow, kMaxAge).message,
      "no FabricPulse verdict file: agent down or not publishing");
  EXPECT_EQ(JudgeVerdictFile(std::string("{not json"), kNow, kMaxAge).exit_code,
            kNodeCheckUnknown);
  NodeCheckAnswer none = JudgeVerdictFile(FileWith(""), kNow, kMaxAge);
  EXPECT_EQ(none.exit_code, kNodeCheckUnknown);
  EXPECT_EQ(none.message, "no FabricPulse campaign covers this node");
  NodeCheckAnswer untested =
      JudgeVerdictFile(FileWith("untested"), kNow, kMaxAge);
  EXPECT_EQ(untested.exit_code, kNodeCheckUnknown);
  EXPECT_EQ(untested.message, "NCCL verdict untested (plan nightly-full)");
  // A fail nobody renewed expires: it says nothing any more.
  NodeCheckAnswer expired = JudgeVerdictFile(
      FileWith("fail"), kNow + absl::Hours(22), absl::Hours(23));
  EXPECT_EQ(expired.exit_code, kNodeCheckUnknown);
  EXPECT_TRUE(absl::StartsWith(expired.message, "NCCL verdict fail expired"))
      << expired.message;
}

TEST(NodeCheckTest, TheMessageFitsNpdsLine) {
  const std::string long_plan(64, 'p');
  for (const char* verdict : {"fail", "pass", "untested"}) {
    NodeCheckAnswer a = JudgeVerdictFile(
        FileWith(verdict, absl::Seconds(1), long_plan), kNow, kMaxAge);
    EXPECT_LE(a.message.size(), kNodeCheckMaxMessage) << a.message;
    EXPECT_EQ(a.message.find('\n'), std::string::npos);
  }
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::client
