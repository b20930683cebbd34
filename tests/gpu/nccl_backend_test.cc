// NcclBackend on real GPUs: one rank per visible GPU (threads of this
// process), rendezvous through an in-memory store. Skipped without a GPU.
#include "daemon/backend/nccl/nccl_backend.h"

#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/backend/nccl/device_query.h"
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

TEST_F(NcclBackendTest, GraphModeMatchesPlainTiming) {
  const int n = Ranks();
  fakes::InMemoryKvStore store;
  Comms comms = CreateAll(n, "graph", store);
  core::Step step;
  step.op = core::Op::kAllReduce;
  step.count = 1 << 20;
  step.bytes = step.count * 4;
  RunOptions options;
  options.warmup_iters = 2;
  options.iters = 10;
  options.check = true;
  options.graph = true;
  for (auto& result : RunAll(comms, step, options)) {
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->wrong, 0);
    EXPECT_EQ(result->iteration_seconds.size(), 10u);
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

}  // namespace
}  // namespace fabricpulse::backend
