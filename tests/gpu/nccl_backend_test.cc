// NcclBackend on real GPUs: one rank per visible GPU (threads of this
// process), rendezvous through an in-memory store. Skipped without a GPU.
#include "daemon/backend/nccl/nccl_backend.h"

#include <cstdlib>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/backend/nccl/device_query.h"
#include "daemon/core/stats.h"
#include "daemon/core/sweep_spec.h"
#include "gtest/gtest.h"
#include "tests/fakes/in_memory_kv_store.h"

namespace fabricpulse::backend {
namespace {

using Comms = std::vector<std::unique_ptr<Communicator>>;

int Ranks() { return std::min(VisibleGpuCount(), 8); }

Comms CreateAll(int nranks, const std::string& prefix,
                fakes::InMemoryKvStore& store) {
  Comms comms(nranks);
  std::vector<std::thread> threads;
  for (int r = 0; r < nranks; ++r) {
    threads.emplace_back([&, r] {
      NcclBackend backend(r, 0.3);
      CommunicatorOptions options;
      options.rank = r;
      options.nranks = nranks;
      options.key_prefix = prefix;
      options.init_timeout = absl::Seconds(60);
      auto comm = backend.CreateCommunicator(options, &store);
      ASSERT_TRUE(comm.ok()) << comm.status();
      comms[r] = std::move(*comm);
    });
  }
  for (auto& t : threads) t.join();
  return comms;
}

// Runs `step` on every rank at once; returns each rank's outcome.
std::vector<absl::StatusOr<StepOutcome>> RunAll(Comms& comms,
                                                const core::Step& step,
                                                const RunOptions& options) {
  std::vector<absl::StatusOr<StepOutcome>> out(comms.size(),
                                               absl::UnknownError(""));
  std::vector<std::thread> threads;
  for (size_t r = 0; r < comms.size(); ++r) {
    threads.emplace_back([&, r] { out[r] = comms[r]->RunStep(step, options); });
  }
  for (auto& t : threads) t.join();
  return out;
}

class NcclBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (VisibleGpuCount() == 0) GTEST_SKIP() << "no GPU visible";
  }
};

struct Case {
  const char* op;
  const char* dtype;
  const char* redop;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.op << "/" << c.dtype << "/" << c.redop;
}

class NcclOpTest : public NcclBackendTest,
                   public ::testing::WithParamInterface<Case> {};

TEST_P(NcclOpTest, EveryPlacementChecksClean) {
  const Case c = GetParam();
  const int n = Ranks();
  fakes::InMemoryKvStore store;
  Comms comms = CreateAll(n, absl::StrCat("t-", c.op, c.dtype, c.redop), store);
  core::SweepSpec spec;
  spec.ops = {c.op};
  spec.dtype = c.dtype;
  spec.redop = c.redop;
  spec.min_bytes = 8;
  spec.max_bytes = 4 << 20;
  spec.factor = 16;
  spec.root = n - 1;
  auto steps = core::Expand(spec, n);
  ASSERT_TRUE(steps.ok()) << steps.status();
  RunOptions options;
  options.warmup_iters = 1;
  options.iters = 3;
  options.check = true;
  options.op_timeout = absl::Seconds(30);
  for (const core::Step& step : *steps) {
    SCOPED_TRACE(absl::StrCat(c.op, " ", c.dtype, " ", c.redop, " ", step.bytes,
                              step.in_place ? " in-place" : ""));
    for (auto& result : RunAll(comms, step, options)) {
      ASSERT_TRUE(result.ok()) << result.status();
      EXPECT_EQ(result->wrong, 0);
      ASSERT_EQ(result->iteration_seconds.size(), 3u);
      EXPECT_GT(result->iteration_seconds[0], 0);
    }
  }
}

std::vector<Case> AllCases() {
  std::vector<Case> cases;
  for (const char* op :
       {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce",
        "alltoall", "sendrecv", "gather", "scatter"}) {
    cases.push_back({op, "float", "sum"});
  }
  for (const char* dtype :
       {"int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "double",
        "bfloat16", "fp8_e4m3", "fp8_e5m2"}) {
    cases.push_back({"all_reduce", dtype, "sum"});
    cases.push_back({"reduce_scatter", dtype, "sum"});
    cases.push_back({"all_gather", dtype, "sum"});
  }
  for (const char* redop : {"prod", "min", "max", "avg"}) {
    for (const char* dtype : {"float", "int32", "bfloat16"}) {
      cases.push_back({"all_reduce", dtype, redop});
      cases.push_back({"reduce", dtype, redop});
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Matrix, NcclOpTest, ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return absl::StrCat(info.param.op, "_",
                                               info.param.dtype, "_",
                                               info.param.redop);
                         });

double Mean(const StepOutcome& o) {
  double sum = 0;
  for (double s : o.iteration_seconds) sum += s;
  return sum / o.iteration_seconds.size();
}

core::Step AllReduce(uint64_t count) {
  core::Step step;
  step.op = core::Op::kAllReduce;
  step.count = count;
  step.bytes = count * 4;
  return step;
}

// A CUDA graph replays the same collectives: its mean time agrees with the
// plain loop's (at 64 MiB, bandwidth-bound), and it reports no percentiles
// or arrival times, which it did not measure.
TEST_F(NcclBackendTest, GraphModeMatchesPlainTiming) {
  const int n = Ranks();
  fakes::InMemoryKvStore store;
  Comms comms = CreateAll(n, "graph", store);
  const core::Step step = AllReduce(16 << 20);
  RunOptions options;
  options.warmup_iters = 2;
  options.iters = 10;
  options.check = true;
  auto plain = RunAll(comms, step, options);
  options.graph = true;
  auto graph = RunAll(comms, step, options);
  for (int r = 0; r < n; ++r) {
    ASSERT_TRUE(plain[r].ok()) << plain[r].status();
    ASSERT_TRUE(graph[r].ok()) << graph[r].status();
    EXPECT_EQ(plain[r]->wrong, 0);
    EXPECT_EQ(graph[r]->wrong, 0);
    EXPECT_EQ(graph[r]->iteration_seconds.size(), 10u);
    EXPECT_TRUE(plain[r]->timed_one_by_one);
    EXPECT_TRUE(plain[r]->arrival_seconds.has_value());
    EXPECT_FALSE(graph[r]->timed_one_by_one);
    EXPECT_FALSE(graph[r]->arrival_seconds.has_value());
    const double ratio = Mean(*graph[r]) / Mean(*plain[r]);
    EXPECT_GT(ratio, 0.8) << "graph " << Mean(*graph[r]) << " s, plain "
                          << Mean(*plain[r]) << " s";
    EXPECT_LT(ratio, 1.25) << "graph " << Mean(*graph[r]) << " s, plain "
                           << Mean(*plain[r]) << " s";
  }
}

// One iteration in ten entered 2 ms late: its own time shows it, so p99 is
// that iteration and p50 stays at the ordinary iteration, far below the
// mean, which the delay inflates.
TEST_F(NcclBackendTest, PercentilesAreMeasuredPerIteration) {
  const int n = Ranks();
  fakes::InMemoryKvStore store;
  Comms comms = CreateAll(n, "pct", store);
  RunOptions options;
  options.warmup_iters = 2;
  options.iters = 10;
  options.late_entry = absl::Milliseconds(2);
  options.late_every = 10;
  auto out = RunAll(comms, AllReduce(2), options);
  for (int r = 0; r < n; ++r) {
    ASSERT_TRUE(out[r].ok()) << out[r].status();
    ASSERT_TRUE(out[r]->timed_one_by_one);
    const core::IterationStats stats =
        core::ComputeStats(out[r]->iteration_seconds);
    EXPECT_GT(stats.p99, 1.5e-3) << "rank " << r;
    EXPECT_LT(stats.p50, stats.mean / 2) << "rank " << r;
    EXPECT_LT(stats.p50, 0.5e-3) << "rank " << r;
  }
}

// FABRICPULSE_ITER_EVENTS=0 times only the loop: no percentiles.
TEST_F(NcclBackendTest, OptOutTimesTheLoopOnly) {
  setenv("FABRICPULSE_ITER_EVENTS", "0", 1);
  fakes::InMemoryKvStore store;
  Comms comms = CreateAll(Ranks(), "optout", store);
  unsetenv("FABRICPULSE_ITER_EVENTS");
  RunOptions options;
  options.warmup_iters = 1;
  options.iters = 5;
  for (auto& result : RunAll(comms, AllReduce(1024), options)) {
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_FALSE(result->timed_one_by_one);
    EXPECT_EQ(result->iteration_seconds.size(), 5u);
  }
}

TEST_F(NcclBackendTest, BuffersBeyondTheMemoryFractionAreRefused) {
  fakes::InMemoryKvStore store;
  Comms comms = CreateAll(1, "mem", store);
  absl::Status s = comms[0]->Reserve(uint64_t{1} << 40);  // 1 TiB
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_NE(s.message().find("max_bytes"), std::string::npos);
  EXPECT_FALSE(comms[0]->broken());
}

TEST_F(NcclBackendTest, MissingPeerTimesOutAndAborts) {
  if (Ranks() < 2) GTEST_SKIP() << "needs 2 GPUs";
  fakes::InMemoryKvStore store;
  Comms comms = CreateAll(2, "hang", store);
  core::Step step;
  step.op = core::Op::kAllReduce;
  step.count = 1 << 20;
  step.bytes = step.count * 4;
  RunOptions options;
  options.iters = 1;
  options.op_timeout = absl::Milliseconds(500);
  // Only rank 0 joins: it must give up at its deadline, not hang.
  const absl::Time start = absl::Now();
  auto result = comms[0]->RunStep(step, options);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kDeadlineExceeded)
      << result.status();
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
  EXPECT_TRUE(comms[0]->broken());
}

// AgreeMax over every GPU: the element-wise maximum on every rank, three
// rounds in a row as an adaptive step runs them.
TEST_F(NcclBackendTest, AgreeMaxGivesEveryRankTheMaximum) {
  const int n = Ranks();
  fakes::InMemoryKvStore store;
  Comms comms = CreateAll(n, "agree", store);
  RunOptions options;
  options.op_timeout = absl::Seconds(30);
  std::vector<std::vector<absl::StatusOr<std::vector<double>>>> out(n);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      for (int round = 0; round < 3; ++round) {
        out[r].push_back(
            comms[r]->AgreeMax({1.0 * r + round, -1.0 * r, 0.5}, options));
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int r = 0; r < n; ++r) {
    for (int round = 0; round < 3; ++round) {
      ASSERT_TRUE(out[r][round].ok()) << out[r][round].status();
      EXPECT_EQ(*out[r][round], (std::vector<double>{n - 1.0 + round, 0, 0.5}));
    }
  }
  EXPECT_EQ(comms[0]->AgreeMax({}, options).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// Adaptive steps, a bandwidth-bound one (timed one by one) and a short one
// (batch means, then the percentile pass): every rank runs the same count,
// between min and max, with a clean data check; graph mode is refused.
TEST_F(NcclBackendTest, AdaptiveStepsRunOneCountOnEveryRank) {
  const int n = Ranks();
  fakes::InMemoryKvStore store;
  Comms comms = CreateAll(n, "adaptive", store);
  RunOptions options;
  options.warmup_iters = 2;
  options.check = true;
  options.adaptive.enabled = true;
  options.adaptive.tolerance = 0.01;
  options.adaptive.min_iters = 5;
  options.adaptive.max_iters = 60;
  for (uint64_t count : {uint64_t{64} << 20, uint64_t{2}}) {
    auto out = RunAll(comms, AllReduce(count), options);
    ASSERT_TRUE(out[0].ok()) << out[0].status();
    const int iterations = out[0]->iterations;
    EXPECT_GE(iterations, 5) << count;
    EXPECT_LE(iterations, 60) << count;
    for (int r = 0; r < n; ++r) {
      ASSERT_TRUE(out[r].ok()) << out[r].status();
      EXPECT_EQ(out[r]->iterations, iterations) << "rank " << r;
      EXPECT_EQ(out[r]->iteration_seconds.size(),
                static_cast<size_t>(iterations));
      EXPECT_EQ(out[r]->wrong, 0);
      EXPECT_TRUE(out[r]->timed_one_by_one);
    }
  }
  options.graph = true;
  auto refused = comms[0]->RunStep(AllReduce(1024), options);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(comms[0]->broken());
}

}  // namespace
}  // namespace fabricpulse::backend
