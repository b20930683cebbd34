// GlooBackend over real Gloo TCP on 127.0.0.1: N ranks run as N threads of
// this process and rendezvous through an in-memory store.
#include "daemon/backend/gloo/gloo_backend.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "daemon/backend/collective_backend.h"
#include "daemon/backend/gloo/gloo_communicator.h"
#include "daemon/backend/gloo/host_data_check.h"
#include "daemon/core/dtype.h"
#include "daemon/core/op_traits.h"
#include "daemon/core/redop.h"
#include "daemon/core/sweep_spec.h"
#include "gtest/gtest.h"
#include "tests/fakes/in_memory_kv_store.h"
#include "tests/unit/backend/gloo_test_ranks.h"

namespace fabricpulse::backend {
namespace {

using core::DType;
using core::Op;
using core::RedOp;
using Clock = std::chrono::steady_clock;

using gloo_test::ConnectAll;
using gloo_test::DestroyAll;
using gloo_test::kInitTimeout;
using gloo_test::kOpTimeout;
using gloo_test::OnAllRanks;
using gloo_test::OptionsFor;

core::Step MakeStep(Op op, DType dtype, RedOp redop, bool in_place, int nranks,
                    uint64_t bytes = 3000) {
  core::Step step;
  step.op = op;
  step.dtype = dtype;
  step.redop = redop;
  step.in_place = in_place;
  step.count = core::StepCount(op, bytes, core::DTypeSize(dtype), nranks);
  step.bytes = step.count * core::DTypeSize(dtype);
  step.root = core::IsRooted(op) ? nranks - 1 : -1;
  return step;
}

RunOptions SmallRun() {
  RunOptions options;
  options.warmup_iters = 1;
  options.iters = 2;
  options.check = true;
  options.op_timeout = kOpTimeout;
  return options;
}

TEST(GlooBackendTest, NameAndVersion) {
  GlooBackend backend("127.0.0.1");
  EXPECT_EQ(backend.name(), "gloo");
  EXPECT_EQ(backend.version().rfind("gloo 0.", 0), 0u) << backend.version();
}

// ---------------------------------------------------------------------------
// Every op moves the right data.

struct OpCase {
  Op op;
  DType dtype;
  bool in_place;
  int nranks;
  RedOp redop = RedOp::kSum;
};

std::string CaseName(const ::testing::TestParamInfo<OpCase>& info) {
  const OpCase& c = info.param;
  return absl::StrCat(core::OpName(c.op), "_", core::DTypeName(c.dtype), "_",
                      c.in_place ? "in_place" : "out_of_place", "_n", c.nranks,
                      "_", core::RedOpName(c.redop));
}

constexpr Op kAllOps[] = {Op::kAllReduce, Op::kAllGather, Op::kReduceScatter,
                          Op::kBroadcast, Op::kReduce,    Op::kAllToAll,
                          Op::kSendRecv,  Op::kGather,    Op::kScatter};

std::vector<OpCase> MatrixCases() {
  std::vector<OpCase> cases;
  for (Op op : kAllOps) {
    for (DType dtype : {DType::kInt8, DType::kInt32, DType::kHalf,
                        DType::kFloat, DType::kDouble}) {
      for (bool in_place : {false, true}) {
        if (in_place && !core::SupportsInPlace(op)) continue;
        for (int nranks : {2, 3}) {
          cases.push_back({op, dtype, in_place, nranks});
        }
      }
    }
    cases.push_back({op, DType::kFloat, false, 4});
  }
  for (DType dtype :
       {DType::kUint8, DType::kUint32, DType::kInt64, DType::kUint64}) {
    for (bool in_place : {false, true}) {
      for (int nranks : {2, 3}) {
        cases.push_back({Op::kAllReduce, dtype, in_place, nranks});
      }
    }
  }
  return cases;
}

std::vector<OpCase> RedOpCases() {
  std::vector<OpCase> cases;
  for (Op op : {Op::kAllReduce, Op::kReduce, Op::kReduceScatter}) {
    for (RedOp redop :
         {RedOp::kSum, RedOp::kProd, RedOp::kMin, RedOp::kMax, RedOp::kAvg}) {
      for (DType dtype : {DType::kInt32, DType::kHalf, DType::kFloat}) {
        cases.push_back({op, dtype, false, 3, redop});
      }
      cases.push_back({op, DType::kUint8, true, 4, redop});
      cases.push_back({op, DType::kDouble, true, 2, redop});
    }
  }
  return cases;
}

class GlooOpTest : public ::testing::TestWithParam<OpCase> {};

TEST_P(GlooOpTest, EveryRankGetsCorrectDataAndTimings) {
  const OpCase& c = GetParam();
  fakes::InMemoryKvStore store;
  GlooBackend backend("127.0.0.1");
  std::vector<std::unique_ptr<Communicator>> comms =
      ConnectAll(backend, store, c.nranks);
  ASSERT_EQ(comms.size(), static_cast<size_t>(c.nranks));
  const core::Step step =
      MakeStep(c.op, c.dtype, c.redop, c.in_place, c.nranks);
  ASSERT_GT(step.count, 0u);
  const RunOptions options = SmallRun();

  // Two steps on the same communicator: the second must still agree on
  // tags and find clean buffers.
  auto outcomes = OnAllRanks(c.nranks, [&](int rank) {
    absl::Status reserved =
        comms[rank]->Reserve(core::MaxBufferBytes({step}, c.nranks));
    if (!reserved.ok()) return absl::StatusOr<StepOutcome>(reserved);
    absl::StatusOr<StepOutcome> first = comms[rank]->RunStep(step, options);
    if (!first.ok() || first->wrong != 0) return first;
    return comms[rank]->RunStep(step, options);
  });
  for (int rank = 0; rank < c.nranks; ++rank) {
    ASSERT_TRUE(outcomes[rank].ok())
        << "rank " << rank << ": " << outcomes[rank].status();
    EXPECT_EQ(outcomes[rank]->wrong, 0) << "rank " << rank;
    ASSERT_EQ(outcomes[rank]->iteration_seconds.size(),
              static_cast<size_t>(options.iters));
    for (double seconds : outcomes[rank]->iteration_seconds) {
      EXPECT_GT(seconds, 0) << "rank " << rank;
    }
    EXPECT_FALSE(comms[rank]->broken());
  }
  DestroyAll(comms);
}

INSTANTIATE_TEST_SUITE_P(Matrix, GlooOpTest, ::testing::ValuesIn(MatrixCases()),
                         CaseName);
INSTANTIATE_TEST_SUITE_P(RedOps, GlooOpTest, ::testing::ValuesIn(RedOpCases()),
                         CaseName);

// A rank that enters each timed op late shows in its arrival time, from the
// step's shared start, while its own op times are the shortest: the others
// wait for it inside the op.
TEST(GlooArrivalTest, LateRankArrivesLastAndRecordsTheShortestTimes) {
  constexpr int kRanks = 3;
  constexpr int kLate = 2;
  fakes::InMemoryKvStore store;
  GlooBackend backend("127.0.0.1");
  std::vector<std::unique_ptr<Communicator>> comms =
      ConnectAll(backend, store, kRanks);
  ASSERT_EQ(comms.size(), static_cast<size_t>(kRanks));
  const core::Step step =
      MakeStep(Op::kAllReduce, DType::kFloat, RedOp::kSum, false, kRanks);
  auto outcomes = OnAllRanks(kRanks, [&](int rank) {
    RunOptions options = SmallRun();
    options.iters = 4;
    if (rank == kLate) options.late_entry = absl::Milliseconds(5);
    return comms[rank]->RunStep(step, options);
  });
  double late_mean = 0;
  for (int rank = 0; rank < kRanks; ++rank) {
    ASSERT_TRUE(outcomes[rank].ok()) << outcomes[rank].status();
    EXPECT_TRUE(outcomes[rank]->timed_one_by_one);
    ASSERT_TRUE(outcomes[rank]->arrival_seconds.has_value());
  }
  const StepOutcome& late = *outcomes[kLate];
  for (double s : late.iteration_seconds) late_mean += s / 4;
  for (int rank = 0; rank < kRanks; ++rank) {
    if (rank == kLate) continue;
    const StepOutcome& on_time = *outcomes[rank];
    // 5 ms late to each op; the first op alone makes the mean >= 1.25 ms.
    EXPECT_GT(*late.arrival_seconds - *on_time.arrival_seconds, 0.001)
        << "rank " << rank;
    double mean = 0;
    for (double s : on_time.iteration_seconds) mean += s / 4;
    EXPECT_LT(late_mean, mean) << "rank " << rank;
  }
  DestroyAll(comms);
}

// ---------------------------------------------------------------------------
// The data check itself.

TEST(GlooHostDataCheckTest, CountsExactlyTheCorruptedElements) {
  for (DType dtype : {DType::kInt8, DType::kUint32, DType::kHalf, DType::kFloat,
                      DType::kDouble}) {
    SCOPED_TRACE(core::DTypeName(dtype));
    const core::Step step =
        MakeStep(Op::kReduceScatter, dtype, RedOp::kSum, false, 3, 4800);
    const int rank = 1;
    const uint64_t count = step.count / 3;
    const size_t element = core::DTypeSize(dtype);
    std::vector<uint64_t> storage((count * element + 7) / 8);
    char* recv = reinterpret_cast<char*>(storage.data());

    ASSERT_TRUE(gloo_impl::FillExpected(step, rank, 3, recv, count).ok());
    EXPECT_EQ(*gloo_impl::CountWrong(step, rank, 3, recv, count), 0);

    const uint64_t corrupted[] = {0, 7, 13, count / 2, count - 1};
    for (uint64_t index : corrupted) {
      std::memset(recv + index * element, 0x7F, element);
    }
    EXPECT_EQ(*gloo_impl::CountWrong(step, rank, 3, recv, count),
              static_cast<int64_t>(std::size(corrupted)));

    gloo_impl::Poison(recv, count * element);
    EXPECT_EQ(*gloo_impl::CountWrong(step, rank, 3, recv, count),
              static_cast<int64_t>(count));
  }
}

TEST(GlooHostDataCheckTest, AcceptsRoundingWithinTolerance) {
  const core::Step step =
      MakeStep(Op::kAllReduce, DType::kFloat, RedOp::kAvg, false, 3, 400);
  std::vector<float> recv(step.count);
  ASSERT_TRUE(
      gloo_impl::FillExpected(step, 0, 3, recv.data(), step.count).ok());
  recv[3] *= 1.0f + 1e-7f;
  EXPECT_EQ(*gloo_impl::CountWrong(step, 0, 3, recv.data(), step.count), 0);
  recv[5] *= 1.001f;
  EXPECT_EQ(*gloo_impl::CountWrong(step, 0, 3, recv.data(), step.count), 1);
}

TEST(GlooHostDataCheckTest, RefusesBfloat16) {
  absl::Status status = gloo_impl::CheckDType(DType::kBfloat16);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("bfloat16"), absl::string_view::npos);
}

// ---------------------------------------------------------------------------
// Errors.

TEST(GlooBackendTest, UnsupportedDtypeIsInvalidArgument) {
  fakes::InMemoryKvStore store;
  GlooBackend backend("127.0.0.1");
  auto comms = ConnectAll(backend, store, 2);
  ASSERT_EQ(comms.size(), 2u);
  const core::Step step =
      MakeStep(Op::kAllReduce, DType::kBfloat16, RedOp::kSum, false, 2);
  auto outcomes = OnAllRanks(
      2, [&](int rank) { return comms[rank]->RunStep(step, SmallRun()); });
  for (const auto& outcome : outcomes) {
    EXPECT_EQ(outcome.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(outcome.status().message().find("bfloat16"),
              absl::string_view::npos)
        << outcome.status();
  }
}

TEST(GlooBackendTest, ReserveRefusesMoreThan16GiB) {
  fakes::InMemoryKvStore store;
  GlooBackend backend("127.0.0.1");
  auto comm = backend.CreateCommunicator(OptionsFor(0, 1), &store);
  ASSERT_TRUE(comm.ok()) << comm.status();
  absl::Status status = (*comm)->Reserve((16ull << 30) + 1);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(status.message().find("17179869185"), absl::string_view::npos)
      << status;
  EXPECT_TRUE((*comm)->Reserve(4096).ok());
}

// Threads of this process (/proc/self/task entries).
int ThreadCount() {
  int n = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator("/proc/self/task")) {
    (void)entry;
    ++n;
  }
  return n;
}

TEST(GlooBackendTest, ReleaseDeviceEndsTheTransportLoopAndANewCommWorks) {
  fakes::InMemoryKvStore store;
  GlooBackend backend("127.0.0.1");
  const int before = ThreadCount();
  {
    auto comm = backend.CreateCommunicator(OptionsFor(0, 1), &store);
    ASSERT_TRUE(comm.ok()) << comm.status();
    // The TCP device's loop thread (it polls every 10 ms while it lives).
    EXPECT_GT(ThreadCount(), before);
  }
  ASSERT_TRUE(backend.ReleaseDevice().ok());
  // The device's destructor joins its loop thread.
  EXPECT_EQ(ThreadCount(), before);
  auto again = backend.CreateCommunicator(OptionsFor(0, 1), &store);
  ASSERT_TRUE(again.ok()) << again.status();
  const core::Step step =
      MakeStep(Op::kAllReduce, DType::kFloat, RedOp::kSum, false, 1);
  auto outcome = (*again)->RunStep(step, SmallRun());
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(outcome->wrong, 0);
}

TEST(GlooBackendTest, SingleRankStepIsALocalCopy) {
  fakes::InMemoryKvStore store;
  GlooBackend backend("127.0.0.1");
  auto comm = backend.CreateCommunicator(OptionsFor(0, 1), &store);
  ASSERT_TRUE(comm.ok()) << comm.status();
  for (Op op : kAllOps) {
    const core::Step step = MakeStep(op, DType::kFloat, RedOp::kAvg, false, 1);
    auto outcome = (*comm)->RunStep(step, SmallRun());
    ASSERT_TRUE(outcome.ok()) << core::OpName(op) << ": " << outcome.status();
    EXPECT_EQ(outcome->wrong, 0) << core::OpName(op);
  }
}

TEST(GlooBackendTest, RendezvousWithoutPeerIsDeadlineExceeded) {
  fakes::InMemoryKvStore store;
  GlooBackend backend("127.0.0.1");
  const Clock::time_point start = Clock::now();
  auto comm = backend.CreateCommunicator(
      OptionsFor(0, 2, absl::Milliseconds(300)), &store);
  const auto elapsed = Clock::now() - start;
  EXPECT_EQ(comm.status().code(), absl::StatusCode::kDeadlineExceeded)
      << comm.status();
  EXPECT_LT(elapsed, std::chrono::seconds(5));
}

TEST(GlooBackendTest, UnreachableStoreIsUnavailable) {
  fakes::InMemoryKvStore store;
  store.InjectSetError(absl::UnavailableError("coordinator down"));
  GlooBackend backend("127.0.0.1");
  auto comm = backend.CreateCommunicator(OptionsFor(0, 2), &store);
  EXPECT_EQ(comm.status().code(), absl::StatusCode::kUnavailable)
      << comm.status();
}

TEST(GlooBackendTest, PeerMissingFromStepIsDeadlineExceeded) {
  fakes::InMemoryKvStore store;
  GlooBackend backend("127.0.0.1");
  auto comms = ConnectAll(backend, store, 2);
  ASSERT_EQ(comms.size(), 2u);
  // Rank 1 stays connected but never runs the step.
  const core::Step step =
      MakeStep(Op::kAllReduce, DType::kFloat, RedOp::kSum, false, 2);
  RunOptions options = SmallRun();
  options.op_timeout = absl::Milliseconds(300);
  const Clock::time_point start = Clock::now();
  auto outcome = comms[0]->RunStep(step, options);
  const auto elapsed = Clock::now() - start;
  EXPECT_EQ(outcome.status().code(), absl::StatusCode::kDeadlineExceeded)
      << outcome.status();
  EXPECT_GE(elapsed, std::chrono::milliseconds(250));
  EXPECT_LT(elapsed, std::chrono::seconds(5));
  EXPECT_TRUE(comms[0]->broken());
  EXPECT_EQ(comms[0]->RunStep(step, options).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(GlooBackendTest, CancelledBetweenIterationsIsAborted) {
  fakes::InMemoryKvStore store;
  GlooBackend backend("127.0.0.1");
  auto comms = ConnectAll(backend, store, 2);
  ASSERT_EQ(comms.size(), 2u);
  const core::Step step =
      MakeStep(Op::kAllReduce, DType::kFloat, RedOp::kSum, false, 2);
  std::atomic<bool> cancelled{true};
  RunOptions options = SmallRun();
  options.cancelled = &cancelled;
  auto outcomes = OnAllRanks(
      2, [&](int rank) { return comms[rank]->RunStep(step, options); });
  for (int rank = 0; rank < 2; ++rank) {
    EXPECT_EQ(outcomes[rank].status().code(), absl::StatusCode::kAborted)
        << outcomes[rank].status();
    EXPECT_TRUE(comms[rank]->broken());
  }
}

// True once thread `tid` of this process sleeps (blocked in a wait).
bool WaitUntilThreadSleeps(pid_t tid, absl::Duration timeout) {
  const Clock::time_point deadline =
      Clock::now() + absl::ToChronoNanoseconds(timeout);
  const std::string path = absl::StrCat("/proc/self/task/", tid, "/stat");
  while (Clock::now() < deadline) {
    std::ifstream stat(path);
    std::string line;
    std::getline(stat, line);
    // Format: "tid (comm) S ..."; comm may contain spaces.
    const size_t paren = line.rfind(')');
    if (paren != std::string::npos && paren + 2 < line.size() &&
        line[paren + 2] == 'S') {
      return true;
    }
    std::this_thread::yield();
  }
  return false;
}

TEST(GlooBackendTest, AbortWakesAStepBlockedInGloo) {
  fakes::InMemoryKvStore store;
  GlooBackend backend("127.0.0.1");
  auto comms = ConnectAll(backend, store, 2);
  ASSERT_EQ(comms.size(), 2u);
  // Rank 1 never joins, so rank 0 blocks in Gloo until op_timeout (60 s)
  // unless Abort wakes it.
  const core::Step step =
      MakeStep(Op::kAllReduce, DType::kFloat, RedOp::kSum, false, 2);
  RunOptions options = SmallRun();
  options.op_timeout = absl::Seconds(60);
  ASSERT_TRUE(comms[0]->Reserve(core::MaxBufferBytes({step}, 2)).ok());
  std::atomic<pid_t> tid{0};
  absl::StatusOr<StepOutcome> outcome;
  Clock::time_point returned;
  std::thread runner([&] {
    tid.store(static_cast<pid_t>(syscall(SYS_gettid)));
    outcome = comms[0]->RunStep(step, options);
    returned = Clock::now();
  });
  while (tid.load() == 0) std::this_thread::yield();
  EXPECT_TRUE(WaitUntilThreadSleeps(tid.load(), absl::Seconds(10)));
  const Clock::time_point aborted = Clock::now();
  comms[0]->Abort();
  runner.join();
  EXPECT_EQ(outcome.status().code(), absl::StatusCode::kAborted)
      << outcome.status();
  EXPECT_LT(returned - aborted, std::chrono::seconds(2));
  EXPECT_TRUE(comms[0]->broken());
}

TEST(GlooBackendTest, AbortStopsARunningStepAndPeersFailFast) {
  fakes::InMemoryKvStore store;
  GlooBackend backend("127.0.0.1");
  auto comms = ConnectAll(backend, store, 2);
  ASSERT_EQ(comms.size(), 2u);
  const core::Step step =
      MakeStep(Op::kAllReduce, DType::kFloat, RedOp::kSum, false, 2);
  RunOptions options = SmallRun();
  options.iters = 10000000;  // minutes of work unless aborted
  options.op_timeout = absl::Seconds(60);
  std::vector<std::atomic<pid_t>> tids(2);
  std::vector<Clock::time_point> returned(2);
  std::vector<absl::StatusOr<StepOutcome>> outcomes(2);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < 2; ++rank) {
    threads.emplace_back([&, rank] {
      tids[rank].store(static_cast<pid_t>(syscall(SYS_gettid)));
      outcomes[rank] = comms[rank]->RunStep(step, options);
      returned[rank] = Clock::now();
    });
  }
  // The abort lands on a running step: both ranks are inside RunStep,
  // asleep in one of Gloo's waits at least once. (An abort before a peer
  // has entered its step is another case: that peer is not woken and
  // waits for its op timeout, as a lone rank would.)
  for (int rank = 0; rank < 2; ++rank) {
    while (tids[rank].load() == 0) std::this_thread::yield();
    EXPECT_TRUE(WaitUntilThreadSleeps(tids[rank].load(), absl::Seconds(10)));
  }
  const Clock::time_point aborted = Clock::now();
  comms[0]->Abort();
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(outcomes[0].status().code(), absl::StatusCode::kAborted)
      << outcomes[0].status();
  EXPECT_EQ(outcomes[1].status().code(), absl::StatusCode::kUnavailable)
      << outcomes[1].status();
  for (int rank = 0; rank < 2; ++rank) {
    EXPECT_LT(returned[rank] - aborted, std::chrono::seconds(5));
    EXPECT_TRUE(comms[rank]->broken());
  }
}

// The transfer the abort lands on is already on the wire: 64 MiB messages
// (more than Gloo's largest socket buffer, 32 MiB) keep each send queued on
// a full socket and each receive half read, which Gloo does not fail when
// its pair closes. The peer is aborted first, as the agents do, so the
// other rank's transfer is stranded mid-way; each rank must still return
// within 2 s of its own Abort (before AbortableContext it slept until
// op_timeout, 60 s, and the agent killed the worker).
class AbortInFlightTest : public ::testing::TestWithParam<Op> {};

TEST_P(AbortInFlightTest, AbortEndsAWaitOnATransferInFlight) {
  fakes::InMemoryKvStore store;
  GlooBackend backend("127.0.0.1");
  auto comms = ConnectAll(backend, store, 2);
  ASSERT_EQ(comms.size(), 2u);
  const core::Step step = MakeStep(GetParam(), DType::kFloat, RedOp::kSum,
                                   false, 2, uint64_t{64} << 20);
  RunOptions options = SmallRun();
  options.check = false;
  options.iters = 1000000;  // minutes of work unless aborted
  options.op_timeout = absl::Seconds(60);
  std::vector<std::atomic<pid_t>> tids(2);
  std::vector<Clock::time_point> returned(2);
  std::vector<absl::StatusOr<StepOutcome>> outcomes(2);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < 2; ++rank) {
    tids[rank].store(0);
    threads.emplace_back([&, rank] {
      tids[rank].store(static_cast<pid_t>(syscall(SYS_gettid)));
      outcomes[rank] = comms[rank]->RunStep(step, options);
      returned[rank] = Clock::now();
    });
  }
  while (tids[0].load() == 0 || tids[1].load() == 0) std::this_thread::yield();
  // Both ranks are inside the timed loop once each has slept in a wait.
  EXPECT_TRUE(WaitUntilThreadSleeps(tids[0].load(), absl::Seconds(20)));
  EXPECT_TRUE(WaitUntilThreadSleeps(tids[1].load(), absl::Seconds(20)));
  std::vector<Clock::time_point> aborted(2);
  aborted[0] = Clock::now();
  comms[0]->Abort();
  aborted[1] = Clock::now();
  comms[1]->Abort();
  for (std::thread& thread : threads) thread.join();
  for (int rank = 0; rank < 2; ++rank) {
    SCOPED_TRACE(absl::StrCat("rank ", rank));
    EXPECT_EQ(outcomes[rank].status().code(), absl::StatusCode::kAborted)
        << outcomes[rank].status();
    EXPECT_LT(returned[rank] - aborted[rank], std::chrono::seconds(2));
    EXPECT_TRUE(comms[rank]->broken());
  }
  DestroyAll(comms);
}

INSTANTIATE_TEST_SUITE_P(Ops, AbortInFlightTest,
                         ::testing::Values(Op::kBroadcast, Op::kSendRecv),
                         [](const ::testing::TestParamInfo<Op>& info) {
                           return std::string(core::OpName(info.param));
                         });

}  // namespace
}  // namespace fabricpulse::backend
