// The rendezvous store under attack, on real processes (a coordinator and
// two Gloo agents on 127.0.0.1): KV writes outside any sweep are refused
// and the coordinator's memory stays put; a running sweep's scope is
// bounded; a finished sweep's keys are gone; SIGTERM with many waits
// pending and a sweep running ends the coordinator within 5 s.
#include <signal.h>
#include <sys/types.h>

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "daemon/common/process.h"
#include "daemon/security/credentials.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/integration/background_sweep.h"
#include "tests/integration/process_tree.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

using ::testing::HasSubstr;

// VmRSS of `pid` in bytes; -1 when unreadable.
int64_t RssBytes(pid_t pid) {
  const int64_t kib = ProcStatusNumber(pid, "VmRSS");
  return kib < 0 ? -1 : kib * 1024;
}

v1::CoordinatorStatsResponse Stats(v1::CoordinatorService::Stub& stub) {
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(5)));
  v1::CoordinatorStatsResponse resp;
  EXPECT_TRUE(stub.Stats(&ctx, v1::CoordinatorStatsRequest(), &resp).ok());
  return resp;
}

grpc::Status KvSet(v1::CoordinatorService::Stub& stub, const std::string& key,
                   const std::string& value) {
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  v1::KvSetRequest req;
  req.set_key(key);
  req.set_value(value);
  v1::KvSetResponse resp;
  return stub.KvSet(&ctx, req, &resp);
}

grpc::Status KvGet(v1::CoordinatorService::Stub& stub, const std::string& key,
                   double wait_seconds = 0) {
  grpc::ClientContext ctx;
  ctx.set_deadline(
      absl::ToChronoTime(absl::Now() + absl::Seconds(wait_seconds + 10)));
  v1::KvGetRequest req;
  req.set_key(key);
  req.set_wait_seconds(wait_seconds);
  v1::KvGetResponse resp;
  return stub.KvGet(&ctx, req, &resp);
}

// A sweep that runs until it is aborted (for minutes otherwise): one
// 64 KiB all_reduce step of the most iterations a spec may have.
v1::SweepSpec EndlessSpec() {
  v1::SweepSpec spec = QuickSpec({"all_reduce"}, 64 << 10);
  spec.set_min_bytes(64 << 10);
  spec.set_iters(1000000);
  spec.set_check(false);
  spec.set_placement("out_of_place");
  return spec;
}

// One KvGet in flight on the client's callback API.
struct PendingGet {
  grpc::ClientContext context;
  v1::KvGetRequest request;
  v1::KvGetResponse response;
  grpc::Status status;
  absl::Notification done;
};

class RendezvousTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = StartCluster(2, 2);
    ASSERT_NE(cluster_, nullptr);
    stub_ = Connect(cluster_->coordinator());
    kv_ = KvStubAs("local-0");
    ASSERT_NE(kv_, nullptr);
  }
  // The rendezvous store takes only agents: a stub as agent/<node>, with a
  // certificate from the cluster's CA (plaintext on an insecure cluster).
  // Issued once per node: several stubs share the credentials.
  std::unique_ptr<v1::CoordinatorService::Stub> KvStubAs(
      const std::string& node) {
    if (!agent_credentials_.count(node)) {
      auto tls = cluster_->Issue({security::Role::kAgent, node});
      if (!tls.ok()) return Connect(cluster_->coordinator());
      auto credentials = security::Credentials::Create(*tls);
      EXPECT_TRUE(credentials.ok()) << credentials.status();
      if (!credentials.ok()) return nullptr;
      agent_credentials_[node] = *std::move(credentials);
    }
    return v1::CoordinatorService::NewStub(grpc::CreateChannel(
        cluster_->coordinator(),
        agent_credentials_[node]->Channel({security::Role::kCoordinator, ""})));
  }
  void TearDown() override {
    if (cluster_) cluster_->Stop();
  }

  std::unique_ptr<client::LocalCluster> cluster_;
  std::unique_ptr<v1::CoordinatorService::Stub> stub_;  // operator
  std::unique_ptr<v1::CoordinatorService::Stub> kv_;    // agent/local-0
  std::map<std::string, std::shared_ptr<security::Credentials>>
      agent_credentials_;
};

TEST_F(RendezvousTest, LargeWritesOutsideAnySweepAreRefusedAndCostNoMemory) {
  const pid_t pid = cluster_->coordinator_pid();
  const int64_t rss_before = RssBytes(pid);
  ASSERT_GT(rss_before, 0);
  // The attack: 2,000 x 256 KiB (500 MiB) under many prefixes, from four
  // clients at once. 10,000 such writes took the coordinator from 40 MB to
  // 2.98 GB before the store refused them; 2,000 would add ~500 MiB, far
  // beyond the bound below.
  constexpr int kWrites = 2000;
  constexpr int kClients = 4;
  const std::string value(256 * 1024, '\xa5');
  std::atomic<int> refused{0};
  std::atomic<int> accepted{0};
  std::vector<std::unique_ptr<v1::CoordinatorService::Stub>> stubs;
  for (int c = 0; c < kClients; ++c) stubs.push_back(KvStubAs("local-0"));
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      v1::CoordinatorService::Stub* stub = stubs[c].get();
      for (int i = c; i < kWrites; i += kClients) {
        grpc::Status s =
            KvSet(*stub, absl::StrCat("c", i % 97, "/s", i, "/k"), value);
        if (s.error_code() == grpc::StatusCode::FAILED_PRECONDITION) {
          refused++;
        } else {
          accepted++;
        }
      }
    });
  }
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(refused.load(), kWrites);
  EXPECT_EQ(accepted.load(), 0);
  const int64_t rss_after = RssBytes(pid);
  std::printf(
      "coordinator VmRSS: %.1f MiB before, %.1f MiB after %d refused "
      "writes of 256 KiB\n",
      rss_before / 1048576.0, rss_after / 1048576.0, kWrites);
  // gRPC's own buffers may grow a little; the values are never kept.
  EXPECT_LT(rss_after - rss_before, int64_t{64} << 20);
  const v1::CoordinatorStatsResponse stats = Stats(*stub_);
  EXPECT_EQ(stats.kv_keys(), 0u);
  EXPECT_EQ(stats.kv_bytes(), 0u);
  // Nothing was broken: a sweep still rendezvous (Gloo through the store).
  SweepOutcome sweep = RunSweep(*stub_, QuickSpec({"all_reduce"}));
  EXPECT_TRUE(sweep.status.ok()) << sweep.status;
}

TEST_F(RendezvousTest, AFinishedSweepsKeysAreGone) {
  const uint64_t sets_before = KvSets(*stub_);
  SweepOutcome sweep = RunSweep(*stub_, QuickSpec({"all_reduce"}));
  ASSERT_TRUE(sweep.status.ok()) << sweep.status;
  ASSERT_FALSE(sweep.comm.reused());
  // The communicator was made in this sweep: its ranks wrote their keys.
  EXPECT_GT(KvSets(*stub_), sets_before);
  const v1::CoordinatorStatsResponse stats = Stats(*stub_);
  EXPECT_EQ(stats.kv_keys(), 0u);
  EXPECT_EQ(stats.kv_bytes(), 0u);
  EXPECT_EQ(stats.kv_waiters(), 0u);
  // Rank 0's address, as Gloo named it, is no longer readable.
  const std::string key =
      absl::StrCat(sweep.start.comm_id(), "/", sweep.start.sweep_id(), "/0");
  grpc::Status get = KvGet(*kv_, key);
  EXPECT_EQ(get.error_code(), grpc::StatusCode::FAILED_PRECONDITION)
      << get.error_message();
  EXPECT_THAT(get.error_message(), HasSubstr("no running sweep owns"));
}

TEST_F(RendezvousTest, ARunningSweepsScopeIsBounded) {
  BackgroundSweep sweep(*stub_, EndlessSpec(), BackgroundSweep::kCommReady);
  ASSERT_TRUE(sweep.WaitStarted());
  ASSERT_EQ(Stats(*stub_).kv_keys() > 0, true) << "the sweep is not running";
  const std::string scope =
      absl::StrCat(sweep.comm_id(), "/", sweep.sweep_id(), "/");
  const int64_t rss_before = RssBytes(cluster_->coordinator_pid());
  // Inside the scope, a value over the per-key bound is refused...
  grpc::Status big = KvSet(*kv_, scope + "junk", std::string(256 << 10, 'x'));
  EXPECT_EQ(big.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(big.error_message(),
              HasSubstr("rendezvous bound on value bytes per key"));
  // ... and so is the key past the scope's budget.
  grpc::Status last;
  int written = 0;
  while (written < 1000) {
    last = KvSet(*kv_, absl::StrCat(scope, "junk-", written),
                 std::string(2048, 'x'));
    if (!last.ok()) break;
    written++;
  }
  EXPECT_EQ(last.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(last.error_message(), HasSubstr("rendezvous bound on"));
  EXPECT_LT(written, 100);
  EXPECT_LT(Stats(*stub_).kv_bytes(), 1u << 20);
  EXPECT_LT(RssBytes(cluster_->coordinator_pid()) - rss_before,
            int64_t{16} << 20);
  // Its end (here an abort) erases them all.
  grpc::ClientContext ctx;
  v1::AbortSweepRequest abort;
  v1::AbortSweepResponse aborted;
  ASSERT_TRUE(stub_->AbortSweep(&ctx, abort, &aborted).ok());
  SweepOutcome outcome = sweep.Join();
  EXPECT_EQ(outcome.status.code(), absl::StatusCode::kAborted);
  EXPECT_EQ(Stats(*stub_).kv_keys(), 0u);
  EXPECT_EQ(KvGet(*kv_, scope + "junk-0").error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
}

// A node's certificate reaches only the scopes of sweeps it is a member
// of: agent/local-9 (a real certificate of the CA, not in the sweep) can
// neither read nor write a running sweep's keys; a member can.
TEST_F(RendezvousTest, OnlyTheSweepsMembersReachItsKeys) {
  BackgroundSweep sweep(*stub_, EndlessSpec(), BackgroundSweep::kCommReady);
  ASSERT_TRUE(sweep.WaitStarted());
  const std::string scope =
      absl::StrCat(sweep.comm_id(), "/", sweep.sweep_id(), "/");
  auto stranger = KvStubAs("local-9");
  ASSERT_NE(stranger, nullptr);
  grpc::Status set = KvSet(*stranger, scope + "forged", "x");
  EXPECT_EQ(set.error_code(), grpc::StatusCode::PERMISSION_DENIED)
      << set.error_message();
  grpc::Status get = KvGet(*stranger, scope + "0");
  EXPECT_EQ(get.error_code(), grpc::StatusCode::PERMISSION_DENIED)
      << get.error_message();
  EXPECT_TRUE(KvSet(*kv_, scope + "member", "x").ok());  // local-0 is one
  grpc::ClientContext ctx;
  v1::AbortSweepRequest abort;
  v1::AbortSweepResponse aborted;
  ASSERT_TRUE(stub_->AbortSweep(&ctx, abort, &aborted).ok());
  sweep.Join();
}

TEST_F(RendezvousTest, SigtermWithManyWaitsPendingEndsWithin5Seconds) {
  BackgroundSweep sweep(*stub_, EndlessSpec(), BackgroundSweep::kCommReady);
  ASSERT_TRUE(sweep.WaitStarted());
  ASSERT_EQ(Stats(*stub_).kv_keys() > 0, true) << "the sweep is not running";
  const std::string scope =
      absl::StrCat(sweep.comm_id(), "/", sweep.sweep_id(), "/");
  // As many waits as the scope takes (16 + 2 per rank at 4 ranks), each
  // for 60 s; and more outside it, refused at once.
  constexpr int kWaits = 24;
  std::vector<std::unique_ptr<PendingGet>> gets;
  for (int i = 0; i < kWaits; ++i) {
    auto get = std::make_unique<PendingGet>();
    get->request.set_key(absl::StrCat(scope, "never-", i));
    get->request.set_wait_seconds(60);
    get->context.set_deadline(
        absl::ToChronoTime(absl::Now() + absl::Seconds(90)));
    PendingGet* g = get.get();
    kv_->async()->KvGet(&g->context, &g->request, &g->response,
                        [g](grpc::Status s) {
                          g->status = std::move(s);
                          g->done.Notify();
                        });
    gets.push_back(std::move(get));
  }
  ASSERT_TRUE(Eventually(
      [&] {
        return Stats(*stub_).kv_waiters() == static_cast<uint64_t>(kWaits);
      },
      absl::Seconds(20)))
      << Stats(*stub_).kv_waiters();

  const pid_t pid = cluster_->coordinator_pid();
  const absl::Time signalled = absl::Now();
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  auto exit = common::WaitForExit(pid, absl::Seconds(30));
  const absl::Duration took = absl::Now() - signalled;
  ASSERT_TRUE(exit.has_value());
  std::printf(
      "coordinator exited %s in %s with %d waits pending and a sweep "
      "running\n",
      exit->Describe().c_str(), absl::FormatDuration(took).c_str(), kWaits);
  EXPECT_LT(took, absl::Seconds(5));
  EXPECT_EQ(exit->exit_code, 0);
  for (auto& get : gets) {
    ASSERT_TRUE(get->done.WaitForNotificationWithTimeout(absl::Seconds(10)));
    EXPECT_EQ(get->status.error_code(), grpc::StatusCode::UNAVAILABLE)
        << get->status.error_message();
  }
  // The sweep's client is told why.
  SweepOutcome outcome = sweep.Join();
  EXPECT_EQ(outcome.status.code(), absl::StatusCode::kAborted)
      << outcome.status;
  EXPECT_THAT(std::string(outcome.status.message()),
              HasSubstr("the coordinator is shutting down"));
}

TEST_F(RendezvousTest, SigtermEndsAnAgentWithARunningSweepWithinItsBound) {
  BackgroundSweep sweep(*stub_, EndlessSpec(), BackgroundSweep::kCommReady);
  ASSERT_TRUE(sweep.WaitStarted());
  ASSERT_EQ(Stats(*stub_).kv_keys() > 0, true) << "the sweep is not running";
  const pid_t pid = cluster_->agent_pids().front();
  const absl::Time signalled = absl::Now();
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  auto exit = common::WaitForExit(pid, absl::Seconds(30));
  const absl::Duration took = absl::Now() - signalled;
  ASSERT_TRUE(exit.has_value());
  std::printf("agent exited %s in %s with a sweep running\n",
              exit->Describe().c_str(), absl::FormatDuration(took).c_str());
  // Its bound: the server's 3 s plus its workers' 2 s kill grace.
  EXPECT_LT(took, absl::Seconds(5));
  EXPECT_EQ(exit->exit_code, 0);
  SweepOutcome outcome = sweep.Join();
  EXPECT_FALSE(outcome.status.ok());
}

}  // namespace
}  // namespace fabricpulse::testing
