// The JSON contract (docs/json.md): real `sweep --output json` and
// `results --output json` documents from the real binaries, validated
// against docs/json/sweeps.v1.schema.json by a real validator (ajv-cli,
// which scripts/install-deploy-tools.sh puts into .tools/; the test runs it
// when ajv is missing, as tests/deploy do), and a document that breaks the
// schema refused; CSV's header names the same units.
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

const std::string kSourceDir = FABRICPULSE_SOURCE_DIR;
const std::string kSchema = kSourceDir + "/docs/json/sweeps.v1.schema.json";
const std::string kAjv = kSourceDir + "/.tools/node/node_modules/.bin/ajv";

using google::protobuf::Struct;
using google::protobuf::Value;

class JsonContractTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (access(kAjv.c_str(), X_OK) != 0) {
      CliResult installed = RunBinary(
          kSourceDir + "/scripts/install-deploy-tools.sh", {"--quiet"}, 600);
      ASSERT_EQ(installed.exit_code, 0) << installed.out << installed.err;
    }
    ASSERT_EQ(access(kAjv.c_str(), X_OK), 0) << kAjv;
  }

  // ajv's exit code for `document` against the schema (0: valid).
  CliResult Validate(const std::string& document) {
    const std::string path = absl::StrCat(::testing::TempDir(), "/sweeps-",
                                          getpid(), "-", ++files_, ".json");
    std::ofstream(path) << document;
    return RunBinary(kAjv,
                     {"validate", "--spec=draft7", "--all-errors", "-s",
                      kSchema, "-d", path},
                     60);
  }

  void ExpectValid(const std::string& document) {
    CliResult valid = Validate(document);
    EXPECT_EQ(valid.exit_code, 0) << valid.out << valid.err << document;
  }

  static Struct Parse(const std::string& document) {
    Struct parsed;
    EXPECT_TRUE(
        google::protobuf::util::JsonStringToMessage(document, &parsed).ok())
        << document;
    return parsed;
  }

  static const Struct& FirstSweep(const Struct& doc) {
    return doc.fields().at("sweeps").list_value().values(0).struct_value();
  }

  // A local Gloo sweep of 2 agents x 1 rank, 2 iterations, in JSON, with
  // `flags` (ops, shape); checked against the schema. Empty on failure.
  Struct LocalMoeSweep(const std::vector<std::string>& flags) {
    std::vector<std::string> args = {"local", "--backend", "gloo", "--agents",
                                     "2",     "--ranks",   "1",    "sweep"};
    args.insert(args.end(), flags.begin(), flags.end());
    args.insert(args.end(),
                {"--iters", "2", "--warmup", "1", "--output", "json"});
    CliResult sweep = RunCli(args);
    EXPECT_EQ(sweep.exit_code, 0) << sweep.err;
    if (sweep.exit_code != 0) return Struct();
    ExpectValid(sweep.out);
    return Parse(sweep.out);
  }

  int files_ = 0;
};

TEST_F(JsonContractTest, LocalSweepDocumentMatchesTheSchema) {
  CliResult sweep =
      RunCli({"local", "--backend", "gloo", "--ranks", "2", "sweep", "--ops",
              "all_reduce,all_gather", "--max-bytes", "4K", "--factor", "8",
              "--iters", "2", "--warmup", "1", "--output", "json"});
  ASSERT_EQ(sweep.exit_code, 0) << sweep.err;
  ExpectValid(sweep.out);
  const Struct doc = Parse(sweep.out);
  EXPECT_EQ(doc.fields().at("schema").string_value(), "fabricpulse.sweeps/v1");
  EXPECT_EQ(doc.fields().at("bandwidth_unit").string_value(),
            "bytes_per_second");
  const Struct& s = FirstSweep(doc);
  EXPECT_EQ(s.fields().at("status").string_value(), "succeeded");
  EXPECT_EQ(s.fields().at("trigger").string_value(), "cli");
  EXPECT_TRUE(absl::StartsWith(s.fields().at("backend_version").string_value(),
                               "gloo "));
  EXPECT_TRUE(absl::EndsWith(s.fields().at("finished_at").string_value(), "Z"));
  // Two CPU ranks, each with the pid of the worker that ran it.
  const auto& ranks = s.fields().at("ranks").list_value();
  ASSERT_EQ(ranks.values_size(), 2);
  for (int r = 0; r < 2; ++r) {
    const Struct& rank = ranks.values(r).struct_value();
    EXPECT_EQ(rank.fields().at("rank").number_value(), r);
    EXPECT_EQ(rank.fields().at("gpu").kind_case(), Value::kNullValue);
    EXPECT_GT(rank.fields().at("pid").number_value(), 0);
  }
  const auto& steps = s.fields().at("steps").list_value();
  ASSERT_GT(steps.values_size(), 0);
  for (const Value& step : steps.values()) {
    const auto& f = step.struct_value().fields();
    const double mean = f.at("mean_rank_time_seconds").number_value();
    EXPECT_LE(f.at("min_rank_time_seconds").number_value(), mean);
    EXPECT_LE(mean, f.at("max_rank_time_seconds").number_value());
    EXPECT_EQ(f.at("time_seconds").number_value(),
              f.at("max_rank_time_seconds").number_value());
    EXPECT_GT(f.at("busbw_bytes_per_second").number_value(), 0);
  }
}

// A moe step carries its traffic by path, and the spec its shape.
TEST_F(JsonContractTest, MoeStepsCarryTheirTrafficByPath) {
  const Struct doc = LocalMoeSweep({"--ops", "moe_dispatch,all_reduce",
                                    "--max-bytes", "1K", "--moe-tokens", "64",
                                    "--moe-hidden", "128", "--moe-topk", "2"});
  ASSERT_TRUE(doc.fields().contains("sweeps"));
  const Struct& s = FirstSweep(doc);
  const auto& moe = s.fields().at("spec").struct_value().fields().at("moe");
  EXPECT_EQ(moe.struct_value().fields().at("tokens").number_value(), 64);
  EXPECT_EQ(moe.struct_value().fields().at("dtype").string_value(), "bfloat16");
  int moe_steps = 0;
  for (const Value& step : s.fields().at("steps").list_value().values()) {
    const auto& f = step.struct_value().fields();
    if (f.at("op").string_value() != "moe_dispatch") {
      EXPECT_EQ(f.count("moe_traffic"), 0u);
      continue;
    }
    ++moe_steps;
    EXPECT_EQ(f.at("wrong").number_value(), 0);
    const auto& t = f.at("moe_traffic").struct_value().fields();
    // One rank per node: nothing within a node; rows of 128 bf16 elements.
    EXPECT_EQ(t.at("intra_node_bytes").number_value(), 0);
    EXPECT_GT(t.at("network_bytes").number_value(), 0);
    EXPECT_GT(t.at("self_bytes").number_value(), 0);
    EXPECT_EQ(std::fmod(t.at("self_bytes").number_value() * 2, 256), 0);
  }
  EXPECT_EQ(moe_steps, 1);
}

// DeepEP's accounting beside the probe's, on each moe step (a reduced
// deepep-normal preset on 2 nodes of one rank): schema-valid, NVLink and
// RDMA bytes with their bandwidths, the combine's timing labelled.
TEST_F(JsonContractTest, MoeStepsCarryDeepEpsAccounting) {
  const Struct doc = LocalMoeSweep(
      {"--ops", "moe_dispatch,moe_combine,moe_combine_weighted", "--moe-preset",
       "deepep-normal", "--moe-tokens", "16", "--moe-hidden", "128"});
  ASSERT_TRUE(doc.fields().contains("sweeps"));
  const Struct& s = FirstSweep(doc);
  const auto& moe =
      s.fields().at("spec").struct_value().fields().at("moe").struct_value();
  EXPECT_EQ(moe.fields().at("preset").string_value(), "deepep-normal");
  EXPECT_EQ(moe.fields().at("experts_total").number_value(), 256);
  EXPECT_EQ(moe.fields().at("experts_per_rank").number_value(), 128);
  EXPECT_EQ(moe.fields().at("combine_dtype").string_value(), "bfloat16");
  std::vector<std::string> timings;
  for (const Value& step : s.fields().at("steps").list_value().values()) {
    const auto& f = step.struct_value().fields();
    EXPECT_EQ(f.at("wrong").number_value(), 0);
    const auto& d = f.at("moe_traffic")
                        .struct_value()
                        .fields()
                        .at("deepep")
                        .struct_value()
                        .fields();
    EXPECT_EQ(d.at("accounting").string_value(), "normal");
    EXPECT_TRUE(d.at("bytes").has_null_value());
    EXPECT_GT(d.at("nvl_bytes").number_value(), 0);
    EXPECT_GT(d.at("nvl_bytes_per_second").number_value(), 0);
    EXPECT_GT(d.at("rdma_bytes").number_value(), 0);
    timings.push_back(d.at("combine_timing").has_null_value()
                          ? "null"
                          : d.at("combine_timing").string_value());
  }
  EXPECT_EQ(timings, (std::vector<std::string>{"null", "fabric_only",
                                               "with_weighted_reduction"}));
}

class JsonContractClusterTest : public JsonContractTest {
 protected:
  void SetUp() override {
    cluster_ = StartCluster(1, 2);
    ASSERT_NE(cluster_, nullptr);
  }
  void TearDown() override {
    if (cluster_) cluster_->Stop();
  }
  CliResult Cli(std::vector<std::string> args) {
    args.insert(args.begin(), {"--coordinator", cluster_->coordinator()});
    return RunCli(args);
  }
  std::unique_ptr<client::LocalCluster> cluster_;
};

TEST_F(JsonContractClusterTest, SweepAndResultsShareOneValidShape) {
  CliResult sweep = Cli({"sweep", "--ops", "all_reduce", "--max-bytes", "64K",
                         "--factor", "8", "--iters", "2", "--warmup", "1",
                         "--output", "json", "--bw-unit", "Gbps"});
  ASSERT_EQ(sweep.exit_code, 0) << sweep.err;
  ExpectValid(sweep.out);
  const Struct live = Parse(sweep.out);
  EXPECT_EQ(live.fields().at("bandwidth_unit").string_value(),
            "gigabits_per_second");
  const std::string id =
      FirstSweep(live).fields().at("sweep_id").string_value();

  // The stored sweep, as `results --sweep` gives it: the same shape, in
  // bytes per second by default; the rank map came back from history (no
  // pids there).
  CliResult one = Cli({"results", "--sweep", id, "--output", "json"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  ExpectValid(one.out);
  const Struct stored = Parse(one.out);
  const Struct& s = FirstSweep(stored);
  ASSERT_EQ(s.fields().at("ranks").list_value().values_size(), 2);
  EXPECT_EQ(s.fields()
                .at("ranks")
                .list_value()
                .values(1)
                .struct_value()
                .fields()
                .at("pid")
                .kind_case(),
            Value::kNullValue);
  // Gbps is bits: 8 x bytes / 1e9, under a key that says so.
  const auto& live_steps =
      FirstSweep(live).fields().at("steps").list_value().values();
  const auto& stored_steps = s.fields().at("steps").list_value().values();
  ASSERT_EQ(live_steps.size(), stored_steps.size());
  ASSERT_GT(stored_steps.size(), 0);
  for (int i = 0; i < stored_steps.size(); ++i) {
    const double bytes = stored_steps[i]
                             .struct_value()
                             .fields()
                             .at("busbw_bytes_per_second")
                             .number_value();
    const double gbits = live_steps[i]
                             .struct_value()
                             .fields()
                             .at("busbw_gigabits_per_second")
                             .number_value();
    EXPECT_NEAR(gbits, bytes * 8 / 1e9, 1e-9 * bytes * 8 / 1e9) << i;
  }

  // The listing: the same document, steps null.
  CliResult list = Cli({"results", "--output", "json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  ExpectValid(list.out);
  const Struct listed = Parse(list.out);
  EXPECT_EQ(FirstSweep(listed).fields().at("sweep_id").string_value(), id);
  EXPECT_EQ(FirstSweep(listed).fields().at("steps").kind_case(),
            Value::kNullValue);

  // --raw wins over --bw-unit in JSON and CSV: base units.
  CliResult raw = Cli({"results", "--sweep", id, "--output", "json", "--raw",
                       "--bw-unit", "Gbps"});
  ASSERT_EQ(raw.exit_code, 0) << raw.err;
  ExpectValid(raw.out);
  EXPECT_EQ(Parse(raw.out).fields().at("bandwidth_unit").string_value(),
            "bytes_per_second");
  CliResult csv =
      Cli({"results", "--sweep", id, "--output", "csv", "--bw-unit", "GBps"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  const std::string header =
      std::vector<std::string>(absl::StrSplit(csv.out, '\n')).front();
  EXPECT_TRUE(absl::StrContains(header, ",time_seconds,"));
  EXPECT_TRUE(absl::StrContains(header, ",busbw_gigabytes_per_second,"))
      << header;
  EXPECT_TRUE(absl::StrContains(header, ",mean_rank_time_seconds,"));

  // A document that breaks the schema is refused: a wrong version, a
  // number as text, two bandwidth units in one step.
  for (const auto& [from, to] :
       std::vector<std::pair<std::string, std::string>>{
           {"\"fabricpulse.sweeps/v1\"", "\"fabricpulse.sweeps/v2\""},
           {"\"nranks\": 2", "\"nranks\": \"2\""},
           {"\"wrong\": 0,", "\"wrong\": 0, \"busbw_gigabits_per_second\": 1,"},
       }) {
    ASSERT_TRUE(absl::StrContains(one.out, from)) << from;
    const std::string broken = absl::StrReplaceAll(one.out, {{from, to}});
    EXPECT_NE(Validate(broken).exit_code, 0) << "accepted: " << to;
  }
}

}  // namespace
}  // namespace fabricpulse::testing
