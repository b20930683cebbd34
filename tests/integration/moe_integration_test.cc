// The MoE dispatch/combine probe on real binaries: 2 agents x 2 Gloo ranks,
// the rows of every token moved to and from its experts' ranks and checked,
// the bytes split by path (within a node, over the network) in the table
// and in the history; bad shapes refused naming the field.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "client/commands/exit_codes.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

using ::testing::HasSubstr;

class MoeIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = StartCluster(2, 2);
    ASSERT_NE(cluster_, nullptr);
  }
  void TearDown() override {
    if (cluster_) cluster_->Stop();
  }
  CliResult Cli(std::vector<std::string> args) {
    args.insert(args.begin(), {"--coordinator", cluster_->coordinator()});
    return RunCli(args);
  }
  // The sweep id of a table's "# sweep ID succeeded" line.
  static std::string SweepId(const std::string& table) {
    const size_t at = table.find("# sweep ");
    if (at == std::string::npos) return "";
    const size_t start = at + 8;
    return table.substr(start, table.find(' ', start) - start);
  }
  std::unique_ptr<client::LocalCluster> cluster_;
};

TEST_F(MoeIntegrationTest, DispatchAndCombineAreCheckedAndSplitByPath) {
  CliResult run = Cli({"sweep", "--ops", "moe_dispatch,moe_combine",
                       "--moe-tokens", "256", "--moe-hidden", "512", "--iters",
                       "3", "--warmup", "1", "--progress", "never"});
  ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
  // One row per op at the shape: 256 x 512 bf16 = 262144 bytes.
  EXPECT_THAT(run.out, HasSubstr("# moe_dispatch\n"));
  EXPECT_THAT(run.out, HasSubstr("# moe_combine\n"));
  EXPECT_THAT(run.out, HasSubstr("262144        131072  bfloat16"));
  EXPECT_THAT(run.out, HasSubstr("# Out of bounds values : 0 OK"));
  EXPECT_THAT(run.out,
              HasSubstr("# MoE                  : 256 tokens x 512 bfloat16, "
                        "top-8 of 32 experts (8 per rank), skew 0, seed 1"));
  // Two ranks per node: each rank receives from its node and the network.
  for (const char* op : {"#   moe_dispatch ", "#   moe_combine  "}) {
    const size_t at = run.out.find(op);
    ASSERT_NE(at, std::string::npos) << run.out;
    const std::string line = run.out.substr(at, run.out.find('\n', at) - at);
    EXPECT_THAT(line, HasSubstr(" within its node ("));
    EXPECT_THAT(line, HasSubstr(" over the network ("));
  }
  // The history keeps the spec and the rank map: `results` shows the same.
  const std::string id = SweepId(run.out);
  ASSERT_FALSE(id.empty()) << run.out;
  CliResult stored = Cli({"results", "--sweep", id});
  ASSERT_EQ(stored.exit_code, 0) << stored.err;
  EXPECT_THAT(stored.out, HasSubstr("# MoE                  : 256 tokens"));
  EXPECT_THAT(stored.out, HasSubstr(" over the network ("));
}

// DeepEP's presets, reduced to 32 tokens of 256 on 2 agents x 2 ranks:
// checked (bf16 and fp8 dispatch), the weighted combine beside the
// fabric-only one, and DeepEP's accounting under each step's own figures,
// in the table and in `results`.
TEST_F(MoeIntegrationTest, ReducedPresetsShowDeepEpsAccounting) {
  struct Case {
    const char* preset;
    const char* dtype;
    const char* shape;
    const char* accounting;
  };
  const Case cases[] = {
      {"deepep-ll", "fp8_e4m3",
       "# MoE                  : 32 tokens x 256 fp8_e4m3, top-8 of 288 "
       "experts (72 per rank), skew 0, seed 1; preset deepep-ll: 10 "
       "selections masked, a row per selection, fp8 scales, 16-byte header, "
       "combine in bfloat16",
       "DeepEP's accounting: low latency, per rank "},
      {"deepep-normal", "bfloat16",
       "# MoE                  : 32 tokens x 256 bfloat16, top-8 of 256 "
       "experts (64 per rank), skew 0, seed 1; preset deepep-normal: a row "
       "per destination rank, combine in bfloat16",
       "DeepEP's accounting: normal, per rank "},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.preset);
    CliResult run =
        Cli({"sweep", "--ops", "moe_dispatch,moe_combine,moe_combine_weighted",
             "--moe-preset", c.preset, "--moe-tokens", "32", "--moe-hidden",
             "256", "--moe-dtype", c.dtype, "--iters", "2", "--warmup", "1",
             "--progress", "never"});
    ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
    EXPECT_THAT(run.out, HasSubstr("# Out of bounds values : 0 OK"));
    EXPECT_THAT(run.out, HasSubstr(c.shape));
    EXPECT_THAT(run.out, HasSubstr("#   moe_combine  "));
    EXPECT_THAT(run.out, HasSubstr(" (fabric only), per rank "));
    EXPECT_THAT(run.out, HasSubstr("#   moe_combine_weighted "));
    EXPECT_THAT(run.out,
                HasSubstr(" (with the weighted reduction), per rank "));
    EXPECT_THAT(run.out, HasSubstr(c.accounting));
    if (std::string(c.preset) == "deepep-normal") {
      // Two nodes: RDMA counted once per destination node.
      EXPECT_THAT(run.out, HasSubstr(" RDMA ("));
    }
    const std::string id = SweepId(run.out);
    ASSERT_FALSE(id.empty()) << run.out;
    CliResult stored = Cli({"results", "--sweep", id});
    ASSERT_EQ(stored.exit_code, 0) << stored.err;
    EXPECT_THAT(stored.out, HasSubstr(c.accounting));
  }
}

TEST_F(MoeIntegrationTest, BadShapesAreRefusedNamingTheField) {
  struct Case {
    std::vector<std::string> flags;
    const char* message;
  };
  const Case cases[] = {
      {{"--moe-topk", "0"}, "moe_topk: 0 is out of range; allowed: 1 to 32"},
      {{"--moe-tokens", "70000"}, "moe_tokens: 70000 is out of range"},
      {{"--moe-skew", "5"}, "moe_skew: 5 is out of range; allowed: 0 to 4"},
      {{"--moe-dtype", "float"},
       "moe_dtype: float is not supported; allowed: bfloat16, fp8_e4m3"},
      {{"--moe-preset", "deepep-ll", "--moe-hidden", "200"},
       "moe_hidden: 200 is out of range; allowed: a multiple of 128"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"sweep", "--ops", "moe_dispatch"};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    CliResult run = Cli(args);
    EXPECT_EQ(run.exit_code, client::kExitBadInput) << c.message;
    EXPECT_THAT(run.err, HasSubstr(c.message));
  }
}

}  // namespace
}  // namespace fabricpulse::testing
