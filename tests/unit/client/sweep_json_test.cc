// The versioned JSON document (sweep_json.h), the JSON and CSV printers'
// keys and units, and the writer under them.
#include "client/output/sweep_json.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "client/output/json_writer.h"
#include "client/output/result_fields.h"
#include "client/output/result_printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::client {
namespace {
namespace FP_UNITY_ID {

using google::protobuf::Struct;
using google::protobuf::Value;
using ::testing::HasSubstr;

Struct Parse(const std::string& text) {
  Struct parsed;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(text, &parsed).ok())
      << text;
  return parsed;
}

const Struct& Sweep(const Struct& doc, int i = 0) {
  return doc.fields().at("sweeps").list_value().values(i).struct_value();
}

bool IsNull(const Struct& s, const std::string& key) {
  return s.fields().at(key).kind_case() == Value::kNullValue;
}

v1::StepResult Step(double seconds) {
  v1::StepResult r;
  r.mutable_step()->set_op("all_reduce");
  r.mutable_step()->set_bytes(1 << 20);
  r.mutable_step()->set_dtype("float");
  r.mutable_step()->set_redop("sum");
  r.set_time_seconds(seconds);
  r.set_algbw_bytes_per_second((1 << 20) / seconds);
  r.set_busbw_bytes_per_second((1 << 20) / seconds * 1.5);
  r.set_min_rank_time_seconds(seconds / 2);
  r.set_max_rank_time_seconds(seconds);
  return r;
}

v1::SweepSummary Summary() {
  v1::SweepSummary s;
  s.set_sweep_id("s-1");
  s.set_plan("adhoc");
  s.set_trigger("cli");
  s.set_status("succeeded");
  s.set_nranks(2);
  s.add_nodes("a");
  s.set_backend("nccl");
  s.set_backend_version("nccl 2.28.9");
  s.set_started_unix_seconds(1764615600.25);
  s.set_finished_unix_seconds(1764615602.75);
  s.mutable_spec()->add_ops("all_reduce");
  s.mutable_spec()->set_iters(20);
  s.mutable_spec()->set_placement("both");
  v1::RankPlacement* r0 = s.add_ranks();
  r0->set_rank(0);
  r0->set_node("a");
  r0->set_gpu(0);
  r0->set_gpu_model("NVIDIA H200");
  r0->set_pci_bus_id("00000000:18:00.0");
  v1::RankPlacement* r1 = s.add_ranks();
  r1->set_rank(1);
  r1->set_node("a");
  r1->set_local_index(1);
  r1->set_gpu(-1);
  s.set_steps(1);
  return s;
}

OutputOptions Options(bool unit_given = false, BwUnit unit = BwUnit::kGBps,
                      bool raw = false) {
  OutputOptions o;
  o.format = OutputFormat::kJson;
  o.unit = unit;
  o.unit_given = unit_given;
  o.raw = raw;
  return o;
}

TEST(JsonWriterTest, NestsCommasAndEscapes) {
  JsonWriter w;
  w.BeginObject().Key("a").BeginArray().EndArray();
  w.Key("b").BeginArray().Int(1).StringOrNull("").EndArray();
  w.Key("c\"").String("x\n\x01").Key("d").Number(std::nan(""));
  w.EndObject();
  EXPECT_EQ(w.Finish(),
            "{\n  \"a\": [],\n  \"b\": [\n    1,\n    null\n  ],\n"
            "  \"c\\\"\": \"x\\n\\u0001\",\n  \"d\": null\n}\n");
}

TEST(SweepJsonTest, TheDocumentNamesItsSchemaToolAndUnits) {
  SweepDocument doc;
  doc.sweep = Summary();
  doc.pids[0] = 4242;
  doc.steps = std::vector<v1::StepResult>{Step(1e-3)};
  const Struct parsed = Parse(SweepsJson({doc}, Options()));
  EXPECT_EQ(parsed.fields().at("schema").string_value(), kSweepsSchema);
  EXPECT_EQ(parsed.fields()
                .at("tool")
                .struct_value()
                .fields()
                .at("name")
                .string_value(),
            "fabricpulse");
  EXPECT_EQ(parsed.fields().at("bandwidth_unit").string_value(),
            "bytes_per_second");
  const Struct& s = Sweep(parsed);
  EXPECT_EQ(s.fields().at("backend_version").string_value(), "nccl 2.28.9");
  EXPECT_EQ(s.fields().at("started_at").string_value(),
            "2025-12-01T19:00:00.250Z");
  EXPECT_DOUBLE_EQ(s.fields().at("duration_seconds").number_value(), 2.5);
  EXPECT_DOUBLE_EQ(s.fields().at("started_unix_seconds").number_value(),
                   1764615600.25);
  EXPECT_TRUE(IsNull(s, "error"));
  EXPECT_TRUE(IsNull(s, "straggler"));
  EXPECT_TRUE(IsNull(s, "comm"));  // neither reused nor timed
  EXPECT_EQ(
      s.fields().at("spec").struct_value().fields().at("iters").number_value(),
      20);
  const auto& ranks = s.fields().at("ranks").list_value();
  const Struct& gpu = ranks.values(0).struct_value();
  EXPECT_EQ(gpu.fields().at("pci_bus_id").string_value(), "00000000:18:00.0");
  EXPECT_EQ(gpu.fields().at("pid").number_value(), 4242);
  const Struct& cpu = ranks.values(1).struct_value();
  EXPECT_TRUE(IsNull(cpu, "gpu"));
  EXPECT_TRUE(IsNull(cpu, "gpu_model"));
  EXPECT_TRUE(IsNull(cpu, "pid"));
  const Struct& step =
      s.fields().at("steps").list_value().values(0).struct_value();
  EXPECT_DOUBLE_EQ(step.fields().at("time_seconds").number_value(), 1e-3);
  EXPECT_DOUBLE_EQ(step.fields().at("busbw_bytes_per_second").number_value(),
                   1572864000);
  // Not measured, not recorded, no baseline: null, never a guess.
  for (const char* key :
       {"mean_rank_time_seconds", "p50_seconds", "p99_seconds",
        "last_arrival_rank", "round", "judged_on",
        "baseline_busbw_bytes_per_second", "iterations"}) {
    EXPECT_TRUE(IsNull(step, key)) << key;
  }
  EXPECT_EQ(step.fields().count("pairs"), 0u);
}

TEST(SweepJsonTest, KeysNameTheUnitAndRawIsBaseUnits) {
  SweepDocument doc;
  doc.sweep = Summary();
  doc.steps = std::vector<v1::StepResult>{Step(1e-3)};
  const Struct gbits =
      Sweep(Parse(SweepsJson({doc}, Options(true, BwUnit::kGbps))));
  const Struct& g =
      gbits.fields().at("steps").list_value().values(0).struct_value();
  // 1572864000 B/s = 12.582912 Gbit/s.
  EXPECT_DOUBLE_EQ(g.fields().at("busbw_gigabits_per_second").number_value(),
                   12.582912);
  EXPECT_EQ(g.fields().count("busbw_bytes_per_second"), 0u);
  const Struct gbytes =
      Sweep(Parse(SweepsJson({doc}, Options(true, BwUnit::kGBps))));
  EXPECT_DOUBLE_EQ(gbytes.fields()
                       .at("steps")
                       .list_value()
                       .values(0)
                       .struct_value()
                       .fields()
                       .at("busbw_gigabytes_per_second")
                       .number_value(),
                   1.572864);
  const Struct raw =
      Parse(SweepsJson({doc}, Options(true, BwUnit::kGbps, /*raw=*/true)));
  EXPECT_EQ(raw.fields().at("bandwidth_unit").string_value(),
            "bytes_per_second");
}

TEST(SweepJsonTest, AListingHasNullStepsAndPairsAreListed) {
  SweepDocument listed;
  listed.sweep = Summary();
  listed.sweep.clear_trigger();
  listed.sweep.set_finished_unix_seconds(0);  // running
  SweepDocument matrix;
  matrix.sweep = Summary();
  v1::StepResult step = Step(1e-3);
  step.mutable_step()->set_round(2);
  v1::PairResult* pair = step.add_pairs();
  pair->set_rank_a(0);
  pair->set_rank_b(1);
  pair->set_path("nvlink");
  pair->set_time_seconds(1e-3);
  pair->set_busbw_bytes_per_second(1e9);
  pair->set_flagged(true);
  matrix.steps = std::vector<v1::StepResult>{step};
  const Struct doc = Parse(SweepsJson({listed, matrix}, Options()));
  const Struct& first = Sweep(doc, 0);
  EXPECT_TRUE(IsNull(first, "steps"));
  EXPECT_TRUE(IsNull(first, "trigger"));
  EXPECT_TRUE(IsNull(first, "finished_at"));
  EXPECT_TRUE(IsNull(first, "duration_seconds"));
  const Struct& s =
      Sweep(doc, 1).fields().at("steps").list_value().values(0).struct_value();
  EXPECT_EQ(s.fields().at("round").number_value(), 2);
  const Struct& p =
      s.fields().at("pairs").list_value().values(0).struct_value();
  EXPECT_EQ(p.fields().at("path").string_value(), "nvlink");
  EXPECT_TRUE(p.fields().at("flagged").bool_value());
  EXPECT_EQ(p.fields().at("busbw_bytes_per_second").number_value(), 1e9);
}

TEST(JsonPrinterTest, TheStreamWinsAndTheHistoryFillsTheRest) {
  std::ostringstream out;
  auto printer = ResultPrinter::Create(Options(), out);
  SweepContext context;
  context.summary = Summary();
  context.summary->set_status("running");
  context.pids[1] = 77;
  printer->Describe(context);
  v1::SweepStarted started;
  started.set_sweep_id("s-1");
  started.set_nranks(2);
  started.set_backend("nccl");
  printer->Begin(context.summary->spec(), started);
  v1::SweepCommReady ready;
  ready.set_init_seconds(0.5);
  printer->CommReady(ready);
  v1::StepResult step = Step(1e-3);
  step.set_mean_rank_time_seconds(0.8e-3);
  step.set_regression(true);
  printer->Add(step);
  EXPECT_EQ(out.str(), "");  // nothing before Finish
  v1::SweepFinished finished;
  finished.set_sweep_id("s-1");
  finished.set_status("failed");
  finished.set_error("bad \"x\"");
  finished.set_duration_seconds(3);
  printer->Finish(finished);
  const Struct doc = Parse(out.str());
  const Struct& s = Sweep(doc);
  EXPECT_EQ(s.fields().at("status").string_value(), "failed");
  EXPECT_EQ(s.fields().at("error").string_value(), "bad \"x\"");
  EXPECT_EQ(s.fields().at("trigger").string_value(), "cli");
  EXPECT_EQ(s.fields().at("duration_seconds").number_value(), 3);
  EXPECT_EQ(s.fields().at("regressions").number_value(), 1);
  EXPECT_EQ(s.fields()
                .at("comm")
                .struct_value()
                .fields()
                .at("init_seconds")
                .number_value(),
            0.5);
  EXPECT_EQ(s.fields()
                .at("ranks")
                .list_value()
                .values(1)
                .struct_value()
                .fields()
                .at("pid")
                .number_value(),
            77);
  EXPECT_DOUBLE_EQ(s.fields()
                       .at("steps")
                       .list_value()
                       .values(0)
                       .struct_value()
                       .fields()
                       .at("mean_rank_time_seconds")
                       .number_value(),
                   0.8e-3);
}

TEST(CsvPrinterTest, TheHeaderNamesTheUnitsAndRawIsBaseUnits) {
  for (const auto& [options, bw] :
       std::vector<std::pair<OutputOptions, std::string>>{
           {Options(), "bytes_per_second"},
           {Options(true, BwUnit::kGbps), "gigabits_per_second"},
           {Options(true, BwUnit::kGbps, true), "bytes_per_second"}}) {
    OutputOptions csv = options;
    csv.format = OutputFormat::kCsv;
    std::ostringstream out;
    auto printer = ResultPrinter::Create(csv, out);
    printer->Begin(v1::SweepSpec(), v1::SweepStarted());
    printer->Add(Step(1e-3));
    const std::vector<std::string> lines =
        absl::StrSplit(out.str(), '\n', absl::SkipEmpty());
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_THAT(lines[0],
                HasSubstr(",time_seconds,algbw_" + bw + ",busbw_" + bw + ","));
    EXPECT_THAT(lines[0], HasSubstr(",baseline_busbw_" + bw + ","));
    EXPECT_EQ(std::vector<std::string>(absl::StrSplit(lines[1], ',')).size(),
              ResultFieldNames(csv).size());
  }
}

TEST(ResultFieldsTest, KeysMatchNamesInOrder) {
  const std::vector<ResultField> fields = ResultFields(Step(1e-3), Options());
  const std::vector<std::string> names = ResultFieldNames(Options());
  ASSERT_EQ(fields.size(), names.size());
  for (size_t i = 0; i < fields.size(); ++i) {
    EXPECT_EQ(fields[i].key, names[i]);
  }
}

TEST(OutputOptionsTest, FlagsAsTyped) {
  absl::StatusOr<OutputOptions> plain =
      OutputOptionsFromFlags("json", "", false, "avg");
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->unit_given);
  EXPECT_EQ(plain->unit, BwUnit::kGBps);
  absl::StatusOr<OutputOptions> gbits =
      OutputOptionsFromFlags("csv", "Gbps", true, "min");
  ASSERT_TRUE(gbits.ok());
  EXPECT_TRUE(gbits->unit_given);
  EXPECT_EQ(gbits->time_across_ranks, TimeAcrossRanks::kMin);
  absl::StatusOr<OutputOptions> bad =
      OutputOptionsFromFlags("table", "", false, "rank0");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("--time-across-ranks: unknown value 'rank0'; allowed: "
                        "avg"));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::client
