#include "daemon/core/node_verdict.h"

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

const absl::Time kT0 = absl::FromUnixSeconds(1700000000);
constexpr double kRef = 100e9;

NodeVerdictBook Book(VerdictRules rules = {}) {
  auto book = NodeVerdictBook::Create(rules);
  EXPECT_TRUE(book.ok()) << book.status();
  return *std::move(book);
}

// A completed sweep of `nodes` at `share` of the reference.
GroupResult At(std::vector<std::string> nodes, double share, absl::Time at,
               std::string sweep_id = "s") {
  GroupResult r;
  r.nodes = std::move(nodes);
  r.ok = true;
  r.busbw = share * kRef;
  r.reference_busbw = kRef;
  r.at = at;
  r.sweep_id = std::move(sweep_id);
  return r;
}

NodeVerdict VerdictOf(const NodeVerdictBook& book, const std::string& node,
                      absl::Time now) {
  return book.Status(node, now).verdict;
}

TEST(VerdictNameTest, NamesReadBack) {
  for (NodeVerdict v :
       {NodeVerdict::kPass, NodeVerdict::kDegraded, NodeVerdict::kFail,
        NodeVerdict::kUntested, NodeVerdict::kSuspect}) {
    EXPECT_EQ(ParseVerdict(VerdictName(v)), v);
  }
  EXPECT_EQ(VerdictName(NodeVerdict::kSuspect), "suspect");
  EXPECT_EQ(ParseVerdict("FAIL"), std::nullopt);
  EXPECT_EQ(ParseVerdict(""), std::nullopt);
}

TEST(VerdictRulesTest, DefaultsAreValid) {
  EXPECT_TRUE(VerdictRules{}.Validate().ok());
  EXPECT_TRUE((VerdictThresholds{1.0, 1.0}).Validate().ok());
  EXPECT_TRUE((VerdictThresholds{0.5, 0.01}).Validate().ok());
}

TEST(VerdictRulesTest, OutOfRangeNamesTheField) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const struct {
    double warn, critical;
    const char* field;
  } kBad[] = {
      {1.1, 0.7, "warn_fraction: "},    {0, 0, "warn_fraction: "},
      {nan, 0.7, "warn_fraction: "},    {0.9, 0.95, "critical_fraction: "},
      {0.9, 0, "critical_fraction: "},  {0.9, -1, "critical_fraction: "},
      {0.9, nan, "critical_fraction: "}};
  for (const auto& c : kBad) {
    const absl::Status status =
        (VerdictThresholds{c.warn, c.critical}).Validate();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(status.message()), StartsWith(c.field));
    EXPECT_THAT(std::string(status.message()),
                HasSubstr("0 < critical_fraction"));
  }
  for (absl::Duration d :
       {absl::ZeroDuration(), absl::Hours(-1), absl::InfiniteDuration()}) {
    VerdictRules rules;
    rules.validity = d;
    auto book = NodeVerdictBook::Create(rules);
    ASSERT_FALSE(book.ok());
    EXPECT_THAT(std::string(book.status().message()), StartsWith("validity: "));
  }
}

TEST(ClassifyTest, ReadsEachResult) {
  const VerdictThresholds t;
  EXPECT_EQ(Classify(At({"a"}, 1.0, kT0), t), Finding::kGood);
  EXPECT_EQ(Classify(At({"a"}, 0.9, kT0), t), Finding::kGood);
  EXPECT_EQ(Classify(At({"a"}, 0.89, kT0), t), Finding::kLow);
  EXPECT_EQ(Classify(At({"a"}, 0.7, kT0), t), Finding::kLow);
  EXPECT_EQ(Classify(At({"a"}, 0.69, kT0), t), Finding::kBad);
  GroupResult r = At({"a"}, 1.0, kT0);
  r.busbw = std::nan("");
  EXPECT_EQ(Classify(r, t), Finding::kBad);
  r = At({"a"}, 0.01, kT0);
  r.reference_busbw = 0;  // nothing to judge busbw against
  EXPECT_EQ(Classify(r, t), Finding::kGood);
  r.data_wrong = true;
  EXPECT_EQ(Classify(r, t), Finding::kBad);
  r = At({"a"}, 1.0, kT0);
  r.ok = false;
  EXPECT_EQ(Classify(r, t), Finding::kBad);
}

TEST(NodeVerdictBookTest, RefusesMalformedResultsAndAppliesNothing) {
  NodeVerdictBook book = Book();
  EXPECT_EQ(book.Record(At({}, 1, kT0)).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(book.Record(At({"a", "a"}, 1, kT0)).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(book.Record(At({"a", ""}, 1, kT0)).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(book.Record(At({"a"}, 1, absl::InfinitePast())).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(VerdictOf(book, "a", kT0), NodeVerdict::kUntested);
}

TEST(NodeVerdictBookTest, OneBadMeasurementIsSuspectNeverFail) {
  NodeVerdictBook book = Book();
  ASSERT_TRUE(book.Record(At({"a", "b"}, 0.5, kT0)).ok());
  EXPECT_EQ(VerdictOf(book, "a", kT0), NodeVerdict::kSuspect);
  EXPECT_EQ(VerdictOf(book, "b", kT0), NodeVerdict::kSuspect);
  // Silent: a good pair is pass.
  ASSERT_TRUE(book.Record(At({"c", "d"}, 1.0, kT0)).ok());
  EXPECT_EQ(VerdictOf(book, "c", kT0), NodeVerdict::kPass);
  EXPECT_EQ(book.Status("c", kT0).since, kT0);
  // Two suspects together again cannot tell who is at fault.
  ASSERT_TRUE(book.Record(At({"a", "b"}, 0.5, kT0 + absl::Minutes(1))).ok());
  EXPECT_EQ(VerdictOf(book, "a", kT0), NodeVerdict::kSuspect);
  EXPECT_EQ(VerdictOf(book, "b", kT0), NodeVerdict::kSuspect);
}

TEST(NodeVerdictBookTest, SecondPassNamesTheBadNodeAndClearsItsPartners) {
  NodeVerdictBook book = Book();
  ASSERT_TRUE(book.Record(At({"a", "b"}, 0.5, kT0, "p1")).ok());
  ASSERT_TRUE(book.Record(At({"c", "d"}, 1.0, kT0, "p1")).ok());
  const std::vector<CampaignNode> fleet = {
      {"a", {}}, {"b", {}}, {"c", {}}, {"d", {}}};
  const SecondPassPlan plan = book.PlanSecondPasses(fleet, "", kT0);
  ASSERT_EQ(plan.passes.size(), 2u);
  EXPECT_EQ(plan.passes[0].suspect, "a");
  EXPECT_THAT(plan.passes[0].nodes, ElementsAre("a", "c"));
  EXPECT_THAT(plan.passes[1].nodes, ElementsAre("b", "d"));
  EXPECT_TRUE(plan.waiting.empty());

  const absl::Time t1 = kT0 + absl::Minutes(5);
  ASSERT_TRUE(book.Record(At({"a", "c"}, 0.5, t1, "p2")).ok());
  ASSERT_TRUE(book.Record(At({"b", "d"}, 1.0, t1, "p2")).ok());
  const NodeStatus a = book.Status("a", t1);
  EXPECT_EQ(a.verdict, NodeVerdict::kFail);
  EXPECT_EQ(a.since, t1);
  ASSERT_EQ(a.evidence.size(), 2u);
  EXPECT_EQ(a.evidence[1].sweep_id, "p2");
  EXPECT_TRUE(a.evidence[1].blamed);
  EXPECT_EQ(a.evidence[1].detail, "below critical");
  EXPECT_DOUBLE_EQ(a.evidence[1].threshold_busbw, 0.7 * kRef);
  // The partner that passed is not blamed; the first-pass partner cleared.
  const NodeStatus c = book.Status("c", t1);
  EXPECT_EQ(c.verdict, NodeVerdict::kPass);
  EXPECT_EQ(c.since, kT0);
  EXPECT_EQ(c.last_tested, t1);
  EXPECT_FALSE(c.evidence.back().blamed);
  EXPECT_THAT(c.evidence.back().detail, HasSubstr("not blamed"));
  EXPECT_EQ(VerdictOf(book, "b", t1), NodeVerdict::kPass);
  EXPECT_EQ(VerdictOf(book, "d", t1), NodeVerdict::kPass);
  EXPECT_TRUE(book.PlanSecondPasses(fleet, "", t1).passes.empty());
}

TEST(NodeVerdictBookTest, SuspectWithAGoodSecondPassIsAOneOff) {
  NodeVerdictBook book = Book();
  ASSERT_TRUE(book.Record(At({"c"}, 1.0, kT0)).ok());
  ASSERT_TRUE(book.Record(At({"a", "b"}, 0.2, kT0)).ok());
  ASSERT_TRUE(book.Record(At({"a", "c"}, 1.0, kT0 + absl::Minutes(1))).ok());
  EXPECT_EQ(VerdictOf(book, "a", kT0), NodeVerdict::kPass);
  EXPECT_EQ(book.Status("a", kT0).since, kT0 + absl::Minutes(1));
}

TEST(NodeVerdictBookTest, WrongDataAndFailedSweepsConfirmToFail) {
  NodeVerdictBook book = Book();
  ASSERT_TRUE(book.Record(At({"p"}, 1.0, kT0)).ok());
  GroupResult wrong = At({"a", "b"}, 1.0, kT0);
  wrong.data_wrong = true;
  ASSERT_TRUE(book.Record(wrong).ok());
  EXPECT_EQ(book.Status("a", kT0).evidence.back().detail, "wrong data");
  GroupResult failed = At({"a", "p"}, 0, kT0 + absl::Minutes(1));
  failed.ok = false;
  failed.error = "rank 1 timed out";
  ASSERT_TRUE(book.Record(failed).ok());
  EXPECT_EQ(VerdictOf(book, "a", kT0), NodeVerdict::kFail);
  EXPECT_EQ(VerdictOf(book, "p", kT0), NodeVerdict::kPass);
  EXPECT_EQ(book.Status("a", kT0).evidence.back().detail,
            "failed: rank 1 timed out");
  EXPECT_EQ(VerdictOf(book, "b", kT0), NodeVerdict::kSuspect);
}

TEST(NodeVerdictBookTest, SingleNodeGroupsConfirmByRepeat) {
  NodeVerdictBook book = Book();
  ASSERT_TRUE(book.Record(At({"a"}, 0.3, kT0)).ok());
  ASSERT_TRUE(book.Record(At({"b"}, 0.3, kT0)).ok());
  EXPECT_EQ(VerdictOf(book, "a", kT0), NodeVerdict::kSuspect);
  const SecondPassPlan plan =
      book.PlanSecondPasses({{"a", {}}, {"b", {}}}, "", kT0);
  ASSERT_EQ(plan.passes.size(), 2u);
  EXPECT_THAT(plan.passes[0].nodes, ElementsAre("a"));
  EXPECT_THAT(plan.passes[1].nodes, ElementsAre("b"));
  ASSERT_TRUE(book.Record(At({"a"}, 0.3, kT0 + absl::Minutes(1))).ok());
  ASSERT_TRUE(book.Record(At({"b"}, 0.98, kT0 + absl::Minutes(1))).ok());
  EXPECT_EQ(VerdictOf(book, "a", kT0), NodeVerdict::kFail);
  EXPECT_EQ(VerdictOf(book, "b", kT0), NodeVerdict::kPass);
  // A repaired node comes back on one good measurement.
  ASSERT_TRUE(book.Record(At({"a"}, 1.0, kT0 + absl::Hours(1))).ok());
  EXPECT_EQ(VerdictOf(book, "a", kT0 + absl::Hours(1)), NodeVerdict::kPass);
}

TEST(NodeVerdictBookTest, BelowWarnTwiceIsDegraded) {
  NodeVerdictBook book = Book();
  ASSERT_TRUE(book.Record(At({"a"}, 0.8, kT0)).ok());
  EXPECT_EQ(VerdictOf(book, "a", kT0), NodeVerdict::kSuspect);
  ASSERT_TRUE(book.Record(At({"a"}, 0.85, kT0 + absl::Minutes(1))).ok());
  EXPECT_EQ(VerdictOf(book, "a", kT0), NodeVerdict::kDegraded);
  EXPECT_EQ(book.Status("a", kT0).evidence.back().detail, "below warn");
  EXPECT_DOUBLE_EQ(book.Status("a", kT0).evidence.back().threshold_busbw,
                   0.9 * kRef);
  // A fail needs both marks bad: bad after low is still degraded.
  ASSERT_TRUE(book.Record(At({"a"}, 0.1, kT0 + absl::Minutes(2))).ok());
  EXPECT_EQ(VerdictOf(book, "a", kT0), NodeVerdict::kDegraded);
  ASSERT_TRUE(book.Record(At({"a"}, 0.1, kT0 + absl::Minutes(3))).ok());
  EXPECT_EQ(VerdictOf(book, "a", kT0), NodeVerdict::kFail);
  // Silent: low once, then at the reference.
  ASSERT_TRUE(book.Record(At({"b"}, 0.8, kT0)).ok());
  ASSERT_TRUE(book.Record(At({"b"}, 1.0, kT0 + absl::Minutes(1))).ok());
  EXPECT_EQ(VerdictOf(book, "b", kT0), NodeVerdict::kPass);
}

TEST(NodeVerdictBookTest, NoResultWithinTheWindowIsUntested) {
  VerdictRules rules;
  rules.validity = absl::Hours(24);
  NodeVerdictBook book = Book(rules);
  EXPECT_EQ(VerdictOf(book, "a", kT0), NodeVerdict::kUntested);
  EXPECT_EQ(book.Status("a", kT0).last_tested, absl::InfinitePast());
  ASSERT_TRUE(book.Record(At({"a", "b"}, 1.0, kT0)).ok());
  EXPECT_EQ(VerdictOf(book, "a", kT0 + absl::Hours(24)), NodeVerdict::kPass);
  const NodeStatus late = book.Status("a", kT0 + absl::Hours(25));
  EXPECT_EQ(late.verdict, NodeVerdict::kUntested);
  EXPECT_EQ(late.since, kT0 + absl::Hours(24));
  EXPECT_EQ(late.last_tested, kT0);
  EXPECT_EQ(late.evidence.size(), 1u);
  const auto all = book.Statuses({"b", "zz", "a", "b"}, kT0);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].node, "a");
  EXPECT_EQ(all[2].verdict, NodeVerdict::kUntested);
  book.Forget("a");
  EXPECT_EQ(book.Status("a", kT0).evidence.size(), 0u);
}

TEST(NodeVerdictBookTest, AStaleMarkDoesNotConfirm) {
  NodeVerdictBook book = Book();
  ASSERT_TRUE(book.Record(At({"a"}, 0.3, kT0)).ok());
  const absl::Time later = kT0 + absl::Hours(30);
  ASSERT_TRUE(book.Record(At({"a"}, 0.3, later)).ok());
  EXPECT_EQ(VerdictOf(book, "a", later), NodeVerdict::kSuspect);
  EXPECT_EQ(book.Status("a", later).since, later);
  // A stale pass is no partner to clear a suspect against.
  ASSERT_TRUE(book.Record(At({"p"}, 1.0, kT0)).ok());
  ASSERT_TRUE(book.Record(At({"a", "p"}, 0.3, later)).ok());
  EXPECT_EQ(VerdictOf(book, "a", later), NodeVerdict::kSuspect);
  EXPECT_EQ(VerdictOf(book, "p", later), NodeVerdict::kSuspect);
}

TEST(NodeVerdictBookTest, SharedBadThenOwnLowStartsOverFromLow) {
  NodeVerdictBook book = Book();
  ASSERT_TRUE(book.Record(At({"p", "q"}, 1.0, kT0)).ok());
  ASSERT_TRUE(book.Record(At({"a", "b"}, 0.3, kT0)).ok());
  // The 0.3 may have been b's: a alone at 0.85 is its first own mark.
  ASSERT_TRUE(book.Record(At({"a", "p"}, 0.85, kT0 + absl::Minutes(1))).ok());
  EXPECT_EQ(VerdictOf(book, "a", kT0), NodeVerdict::kSuspect);
  EXPECT_EQ(book.Status("a", kT0).since, kT0);
  ASSERT_TRUE(book.Record(At({"a", "q"}, 0.85, kT0 + absl::Minutes(2))).ok());
  EXPECT_EQ(VerdictOf(book, "a", kT0), NodeVerdict::kDegraded);
  // A bad mark of its own followed by a low one is degraded at once.
  ASSERT_TRUE(book.Record(At({"c", "p"}, 0.3, kT0 + absl::Minutes(3))).ok());
  ASSERT_TRUE(book.Record(At({"c", "q"}, 0.85, kT0 + absl::Minutes(4))).ok());
  EXPECT_EQ(VerdictOf(book, "c", kT0), NodeVerdict::kDegraded);
  EXPECT_EQ(VerdictOf(book, "p", kT0), NodeVerdict::kPass);
  EXPECT_EQ(VerdictOf(book, "q", kT0), NodeVerdict::kPass);
}

TEST(NodeVerdictBookTest, EvidenceIsBounded) {
  NodeVerdictBook book = Book();
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(book.Record(At({"a"}, 1.0, kT0 + absl::Minutes(i),
                               absl::StrCat("s", i)))
                    .ok());
  }
  const NodeStatus a = book.Status("a", kT0 + absl::Minutes(10));
  ASSERT_EQ(a.evidence.size(), kMaxNodeEvidence);
  EXPECT_EQ(a.evidence.back().sweep_id, "s9");
  EXPECT_EQ(a.evidence.front().sweep_id, "s6");
  EXPECT_EQ(a.since, kT0);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
