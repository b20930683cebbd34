// The plan's measured noise in the verdict rules (NodeVerdictBook's
// NoiseSpread): a drop within it names nobody even when a campaign's few
// peers happen to agree closely; a drop beyond it is still judged.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/core/node_verdict.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

const absl::Time kNoiseT0 = absl::FromUnixSeconds(1700000000);
constexpr double kNoiseRef = 100e9;
// The peers of one campaign agreeing within 0.4 % of the reference.
constexpr double kTightPeers = 0.004;

// A pair's result at `share` of a peer reference with the peers' spread.
GroupResult PeerResult(std::vector<std::string> nodes, double share, int minute,
                       double peer_spread = kTightPeers) {
  GroupResult r;
  r.nodes = std::move(nodes);
  r.ok = true;
  r.busbw = share * kNoiseRef;
  r.reference_busbw = kNoiseRef;
  r.reference_spread = peer_spread * kNoiseRef;
  r.at = kNoiseT0 + absl::Minutes(minute);
  r.sweep_id = absl::StrCat("s", minute);
  return r;
}

NodeVerdictBook NoiseBook() {
  auto book = NodeVerdictBook::Create({});
  EXPECT_TRUE(book.ok()) << book.status();
  return *std::move(book);
}

// Records `shares` as the results of healthy pairs h<i>+k<i>.
void Healthy(NodeVerdictBook* book, const std::vector<double>& shares) {
  int i = 0;
  for (double share : shares) {
    const std::string n = absl::StrCat(i);
    ASSERT_TRUE(book->Record(PeerResult({"h" + n, "k" + n}, share, i)).ok());
    ++i;
  }
}

// A busy fabric: healthy results between 0.92 and 1.08 of their reference
// (a robust sd of 7.4 %, as measured on 10 Gloo nodes with the cores busy).
const std::vector<double> kNoisy = {1.00, 0.93, 1.07, 0.95, 1.05,
                                    0.92, 1.08, 0.97, 1.03, 1.00};
// A quiet one: within 2 %.
const std::vector<double> kQuiet = {1.00, 0.99, 1.01, 0.98, 1.02,
                                    1.00, 0.99, 1.01, 0.98, 1.02};

TEST(NodeVerdictNoiseTest, NoNoiseIsJudgedFromFewerThanTheMinimum) {
  NodeVerdictBook book = NoiseBook();
  Healthy(&book, std::vector<double>(kNoisy.begin(),
                                     kNoisy.begin() + kMinNoisePool - 1));
  EXPECT_EQ(book.NoiseSpread(), 0);
  // So the peers' tight spread alone judges: 0.85 is below warn.
  ASSERT_TRUE(book.Record(PeerResult({"a", "b"}, 0.85, 20)).ok());
  EXPECT_EQ(book.Status("a", kNoiseT0).verdict, NodeVerdict::kSuspect);
}

TEST(NodeVerdictNoiseTest, ADropWithinTheMeasuredNoiseNamesNobody) {
  NodeVerdictBook book = NoiseBook();
  Healthy(&book, kNoisy);
  EXPECT_NEAR(book.NoiseSpread(), 0.074, 0.001);
  // 15 % below the reference, and far beyond the peers' 0.4 %: within 3 of
  // the fabric's own 7.4 %, so good, and the evidence says what it would
  // have had to fall below (100 - 3 x 7.4 = 77.8 % of the reference).
  ASSERT_TRUE(book.Record(PeerResult({"a", "b"}, 0.85, 20)).ok());
  const NodeStatus a = book.Status("a", kNoiseT0);
  EXPECT_EQ(a.verdict, NodeVerdict::kPass);
  ASSERT_FALSE(a.evidence.empty());
  EXPECT_EQ(a.evidence.back().finding, Finding::kGood);
  EXPECT_NEAR(a.evidence.back().threshold_busbw / kNoiseRef, 0.778, 0.002);
}

TEST(NodeVerdictNoiseTest, ADropBeyondTheMeasuredNoiseIsStillJudged) {
  NodeVerdictBook book = NoiseBook();
  Healthy(&book, kNoisy);
  // A link at half its rate: bad, a suspect first, confirmed by a second
  // pass with a partner that passed.
  ASSERT_TRUE(book.Record(PeerResult({"a", "b"}, 0.5, 20)).ok());
  EXPECT_EQ(book.Status("a", kNoiseT0).verdict, NodeVerdict::kSuspect);
  ASSERT_TRUE(book.Record(PeerResult({"a", "h0"}, 0.5, 21)).ok());
  EXPECT_EQ(book.Status("a", kNoiseT0).verdict, NodeVerdict::kFail);
  EXPECT_EQ(book.Status("h0", kNoiseT0).verdict, NodeVerdict::kPass);
}

TEST(NodeVerdictNoiseTest, AQuietFabricKeepsWarnLevelDropsJudged) {
  NodeVerdictBook book = NoiseBook();
  Healthy(&book, kQuiet);
  EXPECT_NEAR(book.NoiseSpread(), 0.0148, 0.001);
  ASSERT_TRUE(book.Record(PeerResult({"a", "b"}, 0.85, 20)).ok());
  EXPECT_EQ(book.Status("a", kNoiseT0).verdict, NodeVerdict::kSuspect);
  ASSERT_TRUE(book.Record(PeerResult({"a", "h0"}, 0.85, 21)).ok());
  EXPECT_EQ(book.Status("a", kNoiseT0).verdict, NodeVerdict::kDegraded);
}

TEST(NodeVerdictNoiseTest, AnAbsoluteReferenceIsJudgedOnItsThresholds) {
  NodeVerdictBook book = NoiseBook();
  Healthy(&book, kNoisy);
  // expected_busbw: a reference without a spread; the noise neither widens
  // it nor learns from it.
  ASSERT_TRUE(book.Record(PeerResult({"a", "b"}, 0.85, 20, 0)).ok());
  EXPECT_EQ(book.Status("a", kNoiseT0).verdict, NodeVerdict::kSuspect);
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(
        book.Record(PeerResult({"x", "y"}, i % 2 ? 0.1 : 1.9, 30 + i, 0)).ok());
  }
  EXPECT_NEAR(book.NoiseSpread(), 0.074, 0.001);
}

TEST(NodeVerdictNoiseTest, ThePoolIsBoundedAndFollowsTheNewestResults) {
  NodeVerdictBook book = NoiseBook();
  Healthy(&book, kNoisy);
  // kNoisePoolSize quiet results push every noisy one out.
  std::vector<double> quiet;
  for (size_t i = 0; i < kNoisePoolSize; ++i) quiet.push_back(kQuiet[i % 10]);
  Healthy(&book, quiet);
  EXPECT_NEAR(book.NoiseSpread(), 0.0148, 0.001);
  // Failed sweeps and wrong data say nothing about the noise.
  GroupResult failed = PeerResult({"f", "g"}, 0.1, 500);
  failed.ok = false;
  GroupResult wrong = PeerResult({"f", "g"}, 0.1, 501);
  wrong.data_wrong = true;
  for (int i = 0; i < 150; ++i) {
    ASSERT_TRUE(book.Record(failed).ok());
    ASSERT_TRUE(book.Record(wrong).ok());
  }
  EXPECT_NEAR(book.NoiseSpread(), 0.0148, 0.001);
}

TEST(NodeVerdictNoiseTest, ARebuiltBookJudgesAlike) {
  // A restart replays the stored results (peers' spreads as stored).
  std::vector<GroupResult> stored;
  for (size_t i = 0; i < kNoisy.size(); ++i) {
    const std::string n = absl::StrCat(i);
    stored.push_back(PeerResult({"h" + n, "k" + n}, kNoisy[i], i));
  }
  stored.push_back(PeerResult({"a", "b"}, 0.85, 20));
  stored.push_back(PeerResult({"c", "d"}, 0.5, 21));
  NodeVerdictBook first = NoiseBook();
  NodeVerdictBook second = NoiseBook();
  for (const GroupResult& r : stored) ASSERT_TRUE(first.Record(r).ok());
  for (const GroupResult& r : stored) ASSERT_TRUE(second.Record(r).ok());
  for (const std::string node : {"a", "b", "c", "d", "h3"}) {
    EXPECT_EQ(first.Status(node, kNoiseT0).verdict,
              second.Status(node, kNoiseT0).verdict)
        << node;
  }
  EXPECT_EQ(first.Status("a", kNoiseT0).verdict, NodeVerdict::kPass);
  EXPECT_EQ(first.Status("c", kNoiseT0).verdict, NodeVerdict::kSuspect);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
