// A real coordinator and 2 agents x 2 Gloo ranks on 127.0.0.1: every op
// gives correct data and nccl-tests' busbw/algbw factor; communicators are
// reused; bad specs, concurrency and dead workers get their documented
// answers.
#include <signal.h>

#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "daemon/core/op_traits.h"
#include "gtest/gtest.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

class SweepIntegrationTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cluster_ = StartCluster(/*agents=*/2, /*ranks=*/2).release();
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(cluster_, nullptr);
    stub_ = Connect(cluster_->coordinator());
  }
  static client::LocalCluster* cluster_;
  std::unique_ptr<v1::CoordinatorService::Stub> stub_;
};
client::LocalCluster* SweepIntegrationTest::cluster_ = nullptr;

void ExpectCorrect(const SweepOutcome& outcome, int nranks) {
  ASSERT_TRUE(outcome.status.ok()) << outcome.status;
  EXPECT_EQ(outcome.start.nranks(), nranks);
  EXPECT_EQ(outcome.finished.status(), "succeeded");
  ASSERT_FALSE(outcome.results.empty());
  for (const v1::StepResult& r : outcome.results) {
    SCOPED_TRACE(r.step().op() + " " + std::to_string(r.step().bytes()) +
                 (r.step().in_place() ? " in-place" : ""));
    EXPECT_EQ(r.wrong(), 0);
    EXPECT_GT(r.time_seconds(), 0);
    auto op = core::ParseOp(r.step().op());
    ASSERT_TRUE(op.ok());
    EXPECT_NEAR(r.busbw_bytes_per_second() / r.algbw_bytes_per_second(),
                core::BusBandwidthFactor(*op, nranks), 1e-9);
    EXPECT_NEAR(r.algbw_bytes_per_second(), r.step().bytes() / r.time_seconds(),
                1e-6 * r.algbw_bytes_per_second());
    EXPECT_GE(r.slowest_rank(), 0);
    EXPECT_LT(r.slowest_rank(), nranks);
    EXPECT_LE(r.min_rank_time_seconds(), r.max_rank_time_seconds());
    EXPECT_DOUBLE_EQ(r.max_rank_time_seconds(), r.time_seconds());
  }
}

class EveryOpTest : public SweepIntegrationTest,
                    public ::testing::WithParamInterface<const char*> {};

TEST_P(EveryOpTest, CorrectDataAndBusBandwidthFactor) {
  SweepOutcome outcome = RunSweep(*stub_, QuickSpec({GetParam()}));
  ExpectCorrect(outcome, 4);
  auto op = core::ParseOp(GetParam());
  ASSERT_TRUE(op.ok());
  // 8 B .. 32 KiB by 8: 5 sizes (fewer when too small to split in 4).
  int in_place = 0, out_of_place = 0;
  for (const auto& r : outcome.results)
    (r.step().in_place() ? in_place : out_of_place)++;
  EXPECT_GE(out_of_place, 4);
  EXPECT_EQ(in_place, core::SupportsInPlace(*op) ? out_of_place : 0);
}

INSTANTIATE_TEST_SUITE_P(Ops, EveryOpTest,
                         ::testing::Values("all_reduce", "all_gather",
                                           "reduce_scatter", "broadcast",
                                           "reduce", "alltoall", "sendrecv",
                                           "gather", "scatter"));

class DtypeRedopTest : public SweepIntegrationTest,
                       public ::testing::WithParamInterface<
                           std::tuple<const char*, const char*>> {};

TEST_P(DtypeRedopTest, ReductionsAreExact) {
  v1::SweepSpec spec =
      QuickSpec({"all_reduce", "reduce_scatter", "reduce"}, 4096);
  spec.set_dtype(std::get<0>(GetParam()));
  spec.set_redop(std::get<1>(GetParam()));
  spec.set_root(3);
  ExpectCorrect(RunSweep(*stub_, spec), 4);
}

INSTANTIATE_TEST_SUITE_P(
    Matrix, DtypeRedopTest,
    ::testing::Combine(::testing::Values("int8", "uint8", "int32", "uint32",
                                         "int64", "uint64", "half", "float",
                                         "double"),
                       ::testing::Values("sum", "prod", "min", "max", "avg")));

TEST_F(SweepIntegrationTest, SecondSweepReusesTheCommunicator) {
  v1::SweepSpec spec = QuickSpec({"all_reduce"}, 64);
  ASSERT_TRUE(RunSweep(*stub_, spec).status.ok());
  const uint64_t kv_before = KvSets(*stub_);
  SweepOutcome second = RunSweep(*stub_, spec);
  ASSERT_TRUE(second.status.ok()) << second.status;
  EXPECT_TRUE(second.comm.reused());
  EXPECT_EQ(second.comm.init_seconds(), 0);
  // No rendezvous happened: not a single key was written.
  EXPECT_EQ(KvSets(*stub_), kv_before);

  spec.set_fresh_comm(true);
  SweepOutcome fresh = RunSweep(*stub_, spec);
  ASSERT_TRUE(fresh.status.ok()) << fresh.status;
  EXPECT_FALSE(fresh.comm.reused());
  EXPECT_GT(fresh.comm.init_seconds(), 0);
  EXPECT_GT(KvSets(*stub_), kv_before);
}

TEST_F(SweepIntegrationTest, BadSpecIsRefusedNamingTheField) {
  v1::SweepSpec spec = QuickSpec({"all_reduce"});
  spec.set_iters(0);
  SweepOutcome outcome = RunSweep(*stub_, spec);
  EXPECT_EQ(outcome.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(outcome.started);
  EXPECT_NE(outcome.status.message().find("iters"), std::string::npos)
      << outcome.status;

  spec = QuickSpec({"all_reduce"});
  spec.set_root(4);  // 4 ranks: 0..3
  outcome = RunSweep(*stub_, spec);
  EXPECT_EQ(outcome.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(outcome.status.message().find("root: 4"), std::string::npos)
      << outcome.status;

  spec = QuickSpec({"all_reduce"});
  spec.set_dtype("bfloat16");  // not on gloo
  outcome = RunSweep(*stub_, spec);
  EXPECT_EQ(outcome.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(outcome.status.message().find("dtype"), std::string::npos);

  outcome = RunSweep(*stub_, QuickSpec({"all_reduce"}), {"no-such-node"});
  EXPECT_EQ(outcome.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(outcome.status.message().find("no-such-node"), std::string::npos);
}

TEST_F(SweepIntegrationTest, ConcurrentSweepIsRefusedThenAbortEndsTheFirst) {
  // Long enough to still run while we try a second one: large sizes, many
  // iterations (it is aborted, never run to the end).
  v1::SweepSpec slow = QuickSpec({"all_reduce"}, 8 << 20);
  slow.set_min_bytes(8 << 20);
  slow.set_iters(100000);
  slow.set_check(false);
  SweepOutcome first;
  absl::Notification started;
  std::thread runner([&] {
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(120)));
    v1::SweepRequest req;
    *req.mutable_spec() = slow;
    auto reader = stub_->RunSweep(&ctx, req);
    v1::SweepEvent event;
    while (reader->Read(&event)) {
      if (event.has_started()) started.Notify();
      if (event.has_finished()) first.finished = event.finished();
    }
    grpc::Status s = reader->Finish();
    first.status = absl::Status(static_cast<absl::StatusCode>(s.error_code()),
                                s.error_message());
    if (!started.HasBeenNotified()) started.Notify();
  });
  ASSERT_TRUE(started.WaitForNotificationWithTimeout(absl::Seconds(30)));
  SweepOutcome second = RunSweep(*stub_, QuickSpec({"all_reduce"}));
  EXPECT_EQ(second.status.code(), absl::StatusCode::kResourceExhausted)
      << second.status;
  EXPECT_NE(second.status.message().find("busy"), std::string::npos);

  CliResult abort = RunCli({"--coordinator", cluster_->coordinator(), "abort"});
  EXPECT_EQ(abort.exit_code, 0) << abort.err;
  runner.join();
  EXPECT_EQ(first.status.code(), absl::StatusCode::kAborted) << first.status;
  EXPECT_EQ(first.finished.status(), "aborted");

  // The members are free again and the next sweep passes.
  ExpectCorrect(RunSweep(*stub_, QuickSpec({"all_reduce"})), 4);
}

TEST_F(SweepIntegrationTest, ClientThatGoesAwayEndsItsSweepAndFreesTheMembers) {
  v1::SweepSpec slow = QuickSpec({"all_reduce"}, 8 << 20);
  slow.set_min_bytes(8 << 20);
  slow.set_iters(100000);
  slow.set_check(false);
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(60)));
  v1::SweepRequest req;
  *req.mutable_spec() = slow;
  auto reader = stub_->RunSweep(&ctx, req);
  v1::SweepEvent event;
  std::string sweep_id;
  while (sweep_id.empty() && reader->Read(&event)) {
    if (event.has_started()) sweep_id = event.started().sweep_id();
  }
  ASSERT_FALSE(sweep_id.empty());
  ctx.TryCancel();
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::CANCELLED);

  // The coordinator cancels the sweep at once (no polling): the members are
  // free again within the abort and drain bounds, and the sweep is recorded
  // as failed with the reason.
  const absl::Time deadline = absl::Now() + absl::Seconds(15);
  SweepOutcome next;
  do {
    next = RunSweep(*stub_, QuickSpec({"all_reduce"}));
  } while (next.status.code() == absl::StatusCode::kResourceExhausted &&
           absl::Now() < deadline);
  ExpectCorrect(next, 4);
  v1::GetSweepRequest get;
  get.set_sweep_id(sweep_id);
  v1::GetSweepResponse got;
  grpc::ClientContext get_ctx;
  ASSERT_TRUE(stub_->GetSweep(&get_ctx, get, &got).ok());
  EXPECT_EQ(got.sweep().status(), "failed");
  EXPECT_NE(got.sweep().error().find("client"), std::string::npos)
      << got.sweep().error();
}

TEST_F(SweepIntegrationTest, KilledWorkerIsRespawnedAndNextSweepPasses) {
  ASSERT_TRUE(RunSweep(*stub_, QuickSpec({"all_reduce"}, 64)).status.ok());
  auto agents = ListAgents(*stub_);
  ASSERT_EQ(agents.size(), 2u);
  const v1::WorkerInfo victim = agents[1].workers(1);
  ASSERT_GT(victim.pid(), 0);
  ASSERT_EQ(kill(victim.pid(), SIGKILL), 0);

  // Wait (bounded) until the agent reports the worker back, restarted.
  const bool back = Eventually(
      [&] {
        for (const auto& a : ListAgents(*stub_)) {
          if (a.node_name() != agents[1].node_name()) continue;
          const auto& w = a.workers(1);
          return w.ready() && w.restarts() == victim.restarts() + 1 &&
                 w.pid() != victim.pid();
        }
        return false;
      },
      absl::Seconds(30));
  ASSERT_TRUE(back) << "worker was not respawned within 30 s";

  SweepOutcome next = RunSweep(*stub_, QuickSpec({"all_reduce", "alltoall"}));
  ExpectCorrect(next, 4);
  // A member changed: the communicator was rebuilt, not reused.
  EXPECT_FALSE(next.comm.reused());
}

}  // namespace
}  // namespace fabricpulse::testing
