// --max-bytes auto[:FRACTION] through the real binaries: a coordinator and
// 2 agents x 2 Gloo ranks on 127.0.0.1 (one machine, so the 4 CPU ranks
// share its host memory). The fraction is chosen from this machine's own
// figure (the agent's reader, ReadHostAvailableMemory) so that the budget
// is a few MiB; the sizes are then checked against the rule applied to the
// figure the coordinator recorded, and that figure against the machine's.
#include <regex>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "daemon/agent/free_memory.h"
#include "daemon/common/spec_convert.h"
#include "daemon/core/auto_max_bytes.h"
#include "daemon/core/backend_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

using ::testing::HasSubstr;

constexpr int kRanks = 4;
// The budget aimed at: all_reduce then fits 2 MiB (2 copies), all_gather
// 4 MiB (1.25 copies at 4 ranks), as long as the figure moves less than a
// fifth either way.
constexpr double kTargetBudget = 6.5 * (1 << 20);

uint64_t HostFigure() {
  absl::StatusOr<uint64_t> host = agent::ReadHostAvailableMemory();
  EXPECT_TRUE(host.ok()) << host.status();
  return host.ok() ? *host : 0;
}

class MaxBytesAutoTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    host_before_ = HostFigure();
    fraction_text_ = absl::StrFormat(
        "%.4g", kTargetBudget / (static_cast<double>(host_before_) / kRanks));
    const std::string config = ::testing::TempDir() + "max_bytes_auto.yaml";
    FILE* f = fopen(config.c_str(), "w");
    ASSERT_NE(f, nullptr);
    fprintf(f,
            "plans:\n  auto-plan:\n    ops: [all_reduce]\n    min_bytes: 64K\n"
            "    max_bytes: auto:%s\n    iters: 1\n    warmup: 0\n",
            fraction_text_.c_str());
    fclose(f);
    client::LocalClusterOptions options;
    options.agents = 2;
    options.ranks = 2;
    options.config_file = config;
    auto cluster = StartCluster(options);
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = cluster->release();
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(cluster_, nullptr);
    stub_ = Connect(cluster_->coordinator());
  }
  static double Fraction() { return std::stod(fraction_text_); }
  std::vector<std::string> With(std::vector<std::string> args) {
    args.insert(args.begin(), {"--coordinator", cluster_->coordinator()});
    return args;
  }

  static client::LocalCluster* cluster_;
  static uint64_t host_before_;
  static std::string fraction_text_;
  std::unique_ptr<v1::CoordinatorService::Stub> stub_;
};
client::LocalCluster* MaxBytesAutoTest::cluster_ = nullptr;
uint64_t MaxBytesAutoTest::host_before_ = 0;
std::string MaxBytesAutoTest::fraction_text_;

// The rule applied to the recorded figure gives exactly the recorded sizes.
void ExpectTheRule(const v1::SweepSpec& asked, const v1::MaxBytesAuto& got) {
  core::SweepSpec spec = common::SpecFromProto(asked);
  auto resolved = core::Validate(spec, kRanks);
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  std::vector<core::RankMemory> ranks;
  for (int r = 0; r < kRanks; ++r) {
    ranks.push_back({r, got.free_bytes(), got.least_free()});
  }
  ASSERT_TRUE(core::ResolveMaxBytesAuto(spec, *resolved, kRanks, ranks,
                                        core::BackendBufferLimit("gloo"))
                  .ok());
  EXPECT_EQ(got.budget_bytes(), spec.max_bytes_auto.budget_bytes);
  ASSERT_EQ(got.ops_size(), static_cast<int>(spec.max_bytes_auto.ops.size()));
  for (int i = 0; i < got.ops_size(); ++i) {
    SCOPED_TRACE(got.ops(i).op());
    EXPECT_EQ(got.ops(i).op(), spec.max_bytes_auto.ops[i].op);
    EXPECT_EQ(got.ops(i).max_bytes(), spec.max_bytes_auto.ops[i].max_bytes);
    EXPECT_EQ(got.ops(i).buffer_bytes(),
              spec.max_bytes_auto.ops[i].buffer_bytes);
    EXPECT_LE(got.ops(i).buffer_bytes(), got.budget_bytes());
  }
}

TEST_F(MaxBytesAutoTest, EveryRankRunsTheSizesTheRuleGivesForTheMemorySeen) {
  v1::SweepSpec spec = QuickSpec({"all_reduce", "all_gather", "alltoall"});
  spec.set_min_bytes(64 * 1024);
  spec.set_factor(2);
  spec.clear_max_bytes();
  spec.mutable_max_bytes_auto()->set_fraction(Fraction());
  SweepOutcome outcome = RunSweep(*stub_, spec);
  const uint64_t host_after = HostFigure();
  ASSERT_TRUE(outcome.status.ok()) << outcome.status;
  EXPECT_EQ(outcome.finished.status(), "succeeded");
  const v1::SweepSpec& ran = outcome.start.spec();
  ASSERT_TRUE(ran.has_max_bytes_auto());
  const v1::MaxBytesAuto& got = ran.max_bytes_auto();
  EXPECT_EQ(got.fraction(), Fraction());

  // The figure is this machine's host memory shared by its 4 ranks.
  EXPECT_THAT(got.least_free(), HasSubstr("host memory shared by 4 ranks"));
  const double seen = static_cast<double>(got.free_bytes()) * kRanks;
  EXPECT_GT(seen, 0.5 * std::min(host_before_, host_after));
  EXPECT_LT(seen, 1.5 * std::max(host_before_, host_after));
  ExpectTheRule(spec, got);

  // Per op: all_gather's buffers at 4 ranks are 1.25 copies, all_reduce's
  // and alltoall's 2, so all_gather never gets less.
  ASSERT_EQ(got.ops_size(), 3);
  EXPECT_EQ(got.ops(0).max_bytes(), got.ops(2).max_bytes());
  EXPECT_GE(got.ops(1).max_bytes(), got.ops(0).max_bytes());

  // Every rank expanded the same resolved spec: each result is one step of
  // that expansion, merged over all 4 ranks, with correct data; each op's
  // largest step is its resolved size.
  auto steps = core::Expand(common::SpecFromProto(ran), kRanks);
  ASSERT_TRUE(steps.ok()) << steps.status();
  ASSERT_EQ(outcome.results.size(), steps->size());
  std::map<std::string, uint64_t> largest;
  for (size_t i = 0; i < steps->size(); ++i) {
    const v1::StepKey& key = outcome.results[i].step();
    EXPECT_EQ(key.op(), core::OpName((*steps)[i].op));
    EXPECT_EQ(key.bytes(), (*steps)[i].bytes);
    EXPECT_EQ(key.in_place(), (*steps)[i].in_place);
    EXPECT_EQ(outcome.results[i].wrong(), 0);
    largest[key.op()] = std::max(largest[key.op()], key.bytes());
  }
  for (const v1::OpMaxBytes& op : got.ops()) {
    EXPECT_EQ(largest[op.op()], op.max_bytes()) << op.op();
  }
}

TEST_F(MaxBytesAutoTest, TheCliAndTheHistoryShowTheSizesPicked) {
  CliResult r =
      RunCli(With({"sweep", "--ops", "all_reduce,all_gather", "--min-bytes",
                   "1M", "--max-bytes", "auto:" + fraction_text_, "--iters",
                   "1", "--warmup", "0", "--output", "json"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::regex op_size(
      "\\{\"op\": \"(all_reduce|all_gather)\", \"max_bytes\": ([0-9]+), "
      "\"buffer_bytes\": ([0-9]+)\\}");
  EXPECT_THAT(r.out, HasSubstr("\"max_bytes_auto\": {\"fraction\": " +
                               fraction_text_ + ", \"free_bytes\": "));
  int entries = 0;
  for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), op_size);
       it != std::sregex_iterator(); ++it) {
    ++entries;
    const uint64_t size = std::stoull((*it)[2]);
    EXPECT_EQ(size & (size - 1), 0u) << size;
    // The rows of that op go up to it.
    EXPECT_THAT(r.out, HasSubstr(absl::StrCat("\"bytes\": ", size)));
  }
  EXPECT_EQ(entries, 2) << r.out;

  std::smatch id;
  ASSERT_TRUE(
      std::regex_search(r.out, id, std::regex("\"sweep_id\": \"([^\"]+)\"")));
  CliResult stored =
      RunCli(With({"results", "--sweep", id[1].str(), "--output", "json"}));
  ASSERT_EQ(stored.exit_code, 0) << stored.err;
  EXPECT_THAT(stored.out, HasSubstr("\"max_bytes_auto\": {\"fraction\": "));
  CliResult table = RunCli(With({"results", "--sweep", id[1].str()}));
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out,
              HasSubstr("# maxBytes auto:" + fraction_text_ + ": all_reduce "));
  EXPECT_THAT(table.out, HasSubstr("free on rank "));
}

TEST_F(MaxBytesAutoTest, APlanWithMaxBytesAuto) {
  v1::SweepRequest request;
  request.set_plan("auto-plan");
  grpc::ClientContext ctx;
  auto reader = stub_->RunSweep(&ctx, request);
  v1::SweepEvent event;
  v1::SweepStarted started;
  std::string status;
  while (reader->Read(&event)) {
    if (event.has_started()) started = event.started();
    if (event.has_finished()) status = event.finished().status();
  }
  ASSERT_TRUE(reader->Finish().ok());
  EXPECT_EQ(status, "succeeded");
  ASSERT_EQ(started.spec().max_bytes_auto().ops_size(), 1);
  EXPECT_EQ(started.spec().max_bytes_auto().fraction(), Fraction());
  EXPECT_GE(started.spec().max_bytes_auto().ops(0).max_bytes(), 64u * 1024);
}

TEST_F(MaxBytesAutoTest, NothingFitsIsOneLineNamingTheRankAndItsMemory) {
  CliResult r = RunCli(With({"sweep", "--ops", "all_reduce", "--min-bytes",
                             "1T", "--max-bytes", "auto:1"}));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_THAT(r.err,
              HasSubstr("max_bytes: auto:1 leaves no size for all_reduce: "
                        "min_bytes 1T needs 2 TiB of buffers on each rank"));
  EXPECT_THAT(r.err, HasSubstr(" free on rank "));
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST_F(MaxBytesAutoTest, BadFractionsExitTwoNamingTheFlagAndTheRange) {
  for (const char* bad : {"auto:0", "auto:1.5", "auto:x"}) {
    CliResult r = RunCli(With({"sweep", "--max-bytes", bad}));
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_THAT(r.err, HasSubstr(absl::StrCat("--max-bytes: '", bad,
                                              "': FRACTION must be a number "
                                              "with 0 < FRACTION <= 1")));
  }
}

}  // namespace
}  // namespace fabricpulse::testing
