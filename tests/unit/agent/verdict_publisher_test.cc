// Publishing the node's verdict on the node (issue 30) on fake time: the
// feature file written, renewed, expired and removed; untested on a lease;
// a file of an earlier process kept until its own expiry; the verdict file
// node-check reads, refreshed every minute; folders that cannot be written
// refused at start.
#include "daemon/agent/verdict_publisher.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_clock.h"

namespace fabricpulse::agent {
namespace {
namespace FP_UNITY_ID {

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  if (!in) return "";
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool Exists(const std::string& path) {
  return ::access(path.c_str(), F_OK) == 0;
}

class VerdictPublisherTest : public ::testing::Test {
 protected:
  VerdictPublisherTest() {
    char tmpl[] = "/tmp/fp-verdict-XXXXXX";
    EXPECT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    nfd_ = dir_ + "/features.d";
    ::mkdir(nfd_.c_str(), 0755);
  }
  ~VerdictPublisherTest() override {
    for (const std::string& f : {FeatureFile(), dir_ + "/verdict.json"}) {
      ::unlink(f.c_str());
    }
    ::rmdir(nfd_.c_str());
    ::rmdir(dir_.c_str());
  }
  std::unique_ptr<VerdictPublisher> Make() {
    auto made = VerdictPublisher::Create(
        {"node-a", nfd_, dir_ + "/verdict.json"}, &clock_);
    EXPECT_TRUE(made.ok()) << made.status();
    return made.ok() ? std::move(*made) : nullptr;
  }
  std::string FeatureFile() const { return nfd_ + "/fabricpulse"; }
  double Unix(absl::Time t) const {
    return absl::ToDoubleSeconds(t - absl::UnixEpoch());
  }
  // An answer carrying `verdict` tested `age` ago, valid `validity`.
  v1::HeartbeatResponse Answer(const std::string& verdict, absl::Duration age,
                               absl::Duration validity = absl::Hours(24)) {
    v1::HeartbeatResponse r;
    v1::NodeVerdictNotice* v = r.mutable_node_verdict();
    v->set_verdict(verdict);
    v->set_plan("nightly-full");
    if (verdict != "untested") {
      v->set_tested_unix_seconds(Unix(clock_.Now() - age));
      v->set_expires_unix_seconds(Unix(clock_.Now() - age + validity));
    }
    return r;
  }
  v1::LocalVerdictFile VerdictFile() {
    v1::LocalVerdictFile file;
    EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(
                    Slurp(dir_ + "/verdict.json"), &file)
                    .ok());
    return file;
  }

  fakes::FakeClock clock_;
  std::string dir_;
  std::string nfd_;
};

TEST_F(VerdictPublisherTest, WritesRenewsAndExpiresTheFeatureFile) {
  auto publisher = Make();
  ASSERT_NE(publisher, nullptr);
  publisher->Observe(nullptr);  // nothing heard yet: nothing written
  EXPECT_FALSE(Exists(FeatureFile()));

  const v1::HeartbeatResponse pass = Answer("pass", absl::Hours(1));
  publisher->Observe(&pass);
  const std::string first = Slurp(FeatureFile());
  EXPECT_TRUE(absl::StrContains(first, "fabricpulse.io/nccl-health=pass\n"))
      << first;
  EXPECT_TRUE(
      absl::StrContains(first, "fabricpulse.io/nccl-plan=nightly-full"));
  // Expiry: tested an hour ago + 24 h.
  EXPECT_TRUE(absl::StrContains(
      first, absl::StrCat("# +expiry-time=",
                          absl::FormatTime("%Y-%m-%dT%H:%M:%SZ",
                                           clock_.Now() + absl::Hours(23),
                                           absl::UTCTimeZone()))))
      << first;
  EXPECT_FALSE(Exists(nfd_ + "/.fabricpulse.tmp"));

  // The next campaign renews it: a later test, a later expiry.
  clock_.Advance(absl::Hours(20));
  const v1::HeartbeatResponse renewed = Answer("pass", absl::Minutes(5));
  publisher->Observe(&renewed);
  const std::string second = Slurp(FeatureFile());
  EXPECT_NE(second, first);
  EXPECT_TRUE(absl::StrContains(
      second,
      absl::FormatTime("%Y-%m-%dT%H:%M:%SZ",
                       clock_.Now() - absl::Minutes(5) + absl::Hours(24),
                       absl::UTCTimeZone())));

  // The coordinator goes away: the file stays while the verdict is true...
  clock_.Advance(absl::Hours(23));
  publisher->Observe(nullptr);
  EXPECT_EQ(Slurp(FeatureFile()), second);
  // ...and goes when it expires, even though nobody said so.
  clock_.Advance(absl::Hours(1));
  publisher->Observe(nullptr);
  EXPECT_FALSE(Exists(FeatureFile()));
}

TEST_F(VerdictPublisherTest, AVerdictChangeRewritesTheFileAtOnce) {
  auto publisher = Make();
  ASSERT_NE(publisher, nullptr);
  const v1::HeartbeatResponse suspect = Answer("suspect", absl::Minutes(1));
  publisher->Observe(&suspect);
  EXPECT_TRUE(absl::StrContains(Slurp(FeatureFile()), "nccl-health=suspect"));
  const v1::HeartbeatResponse fail = Answer("fail", absl::Seconds(1));
  publisher->Observe(&fail);
  EXPECT_TRUE(absl::StrContains(Slurp(FeatureFile()), "nccl-health=fail"));
}

TEST_F(VerdictPublisherTest, RemovedWhenNoCampaignCoversTheNode) {
  auto publisher = Make();
  ASSERT_NE(publisher, nullptr);
  const v1::HeartbeatResponse pass = Answer("pass", absl::Minutes(1));
  publisher->Observe(&pass);
  ASSERT_TRUE(Exists(FeatureFile()));
  const v1::HeartbeatResponse none;  // the plan no longer selects it
  publisher->Observe(&none);
  EXPECT_FALSE(Exists(FeatureFile()));
}

TEST_F(VerdictPublisherTest, UntestedLivesOnALeaseTheCoordinatorRenews) {
  auto publisher = Make();
  ASSERT_NE(publisher, nullptr);
  const v1::HeartbeatResponse untested = Answer("untested", {});
  publisher->Observe(&untested);
  const std::string first = Slurp(FeatureFile());
  EXPECT_TRUE(absl::StrContains(first, "nccl-health=untested")) << first;
  EXPECT_FALSE(absl::StrContains(first, "nccl-tested="));
  // Renewed once half the lease is gone, not at every heartbeat.
  clock_.Advance(kUntestedLease / 2 - absl::Seconds(1));
  publisher->Observe(&untested);
  EXPECT_EQ(Slurp(FeatureFile()), first);
  clock_.Advance(absl::Seconds(2));
  publisher->Observe(&untested);
  EXPECT_NE(Slurp(FeatureFile()), first);
  // With the coordinator gone it lapses within one lease.
  clock_.Advance(kUntestedLease - absl::Seconds(1));
  publisher->Observe(nullptr);
  EXPECT_TRUE(Exists(FeatureFile()));
  clock_.Advance(absl::Seconds(1));
  publisher->Observe(nullptr);
  EXPECT_FALSE(Exists(FeatureFile()));
}

TEST_F(VerdictPublisherTest, AnEarlierProcesssFileIsKeptUntilItsExpiry) {
  {
    auto before = Make();
    ASSERT_NE(before, nullptr);
    const v1::HeartbeatResponse fail =
        Answer("fail", absl::Hours(1), absl::Hours(2));
    before->Observe(&fail);
  }
  const std::string left = Slurp(FeatureFile());
  ASSERT_TRUE(absl::StrContains(left, "nccl-health=fail"));
  // A restarted agent that cannot reach the coordinator keeps it (still
  // true for an hour)...
  auto after = Make();
  ASSERT_NE(after, nullptr);
  after->Observe(nullptr);
  EXPECT_EQ(Slurp(FeatureFile()), left);
  // ...and removes it once it has expired.
  clock_.Advance(absl::Hours(1));
  after->Observe(nullptr);
  EXPECT_FALSE(Exists(FeatureFile()));
}

TEST_F(VerdictPublisherTest, AFileWithoutAnExpiryIsNotKept) {
  std::ofstream(FeatureFile()) << "fabricpulse.io/nccl-health=pass\n";
  auto publisher = Make();
  ASSERT_NE(publisher, nullptr);
  publisher->Observe(nullptr);
  EXPECT_FALSE(Exists(FeatureFile()));
}

TEST_F(VerdictPublisherTest, TheVerdictFileCarriesTheVerdictAndIsRefreshed) {
  auto publisher = Make();
  ASSERT_NE(publisher, nullptr);
  publisher->Observe(nullptr);
  v1::LocalVerdictFile file = VerdictFile();
  EXPECT_EQ(file.node(), "node-a");
  EXPECT_FALSE(file.has_verdict());
  EXPECT_EQ(file.coordinator_answered_unix_seconds(), 0);
  EXPECT_EQ(file.written_unix_seconds(), Unix(clock_.Now()));

  const v1::HeartbeatResponse fail = Answer("fail", absl::Minutes(1));
  publisher->Observe(&fail);
  file = VerdictFile();
  EXPECT_EQ(file.verdict().verdict(), "fail");
  EXPECT_EQ(file.coordinator_answered_unix_seconds(), Unix(clock_.Now()));
  const double written = file.written_unix_seconds();
  // Unchanged content: not rewritten at every heartbeat, but every minute,
  // so that a stale file means the agent is gone.
  clock_.Advance(absl::Seconds(30));
  publisher->Observe(nullptr);
  EXPECT_EQ(VerdictFile().written_unix_seconds(), written);
  clock_.Advance(kVerdictFileRefresh);
  publisher->Observe(nullptr);
  EXPECT_EQ(VerdictFile().written_unix_seconds(), Unix(clock_.Now()));
}

// A stopped agent's condition is unknown at once: its verdict file goes;
// the feature file stays, true until its own expiry.
TEST_F(VerdictPublisherTest, StopRemovesTheVerdictFileNotTheFeatureFile) {
  auto publisher = Make();
  ASSERT_NE(publisher, nullptr);
  const v1::HeartbeatResponse fail = Answer("fail", absl::Minutes(1));
  publisher->Observe(&fail);
  ASSERT_TRUE(Exists(dir_ + "/verdict.json"));
  publisher->Stop();
  EXPECT_FALSE(Exists(dir_ + "/verdict.json"));
  EXPECT_TRUE(absl::StrContains(Slurp(FeatureFile()), "nccl-health=fail"));
  publisher->Observe(&fail);  // a late exchange writes nothing
  EXPECT_FALSE(Exists(dir_ + "/verdict.json"));
}

TEST_F(VerdictPublisherTest, RefusesFoldersItCannotWriteNamingTheFlag) {
  auto nfd =
      VerdictPublisher::Create({"node-a", dir_ + "/missing", ""}, &clock_);
  ASSERT_FALSE(nfd.ok());
  EXPECT_EQ(nfd.status().message(),
            absl::StrCat("--nfd-features-dir: '", dir_,
                         "/missing' is not a folder this agent can write (it "
                         "must exist and be writable by the agent's user)"));
  auto file = VerdictPublisher::Create(
      {"node-a", "", dir_ + "/missing/verdict.json"}, &clock_);
  ASSERT_FALSE(file.ok());
  EXPECT_TRUE(absl::StartsWith(file.status().message(), "--verdict-file: '"))
      << file.status();
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::agent
