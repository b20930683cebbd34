#include "client/output/diagnosis_printer.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::client {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A failed sweep with its stored verdict: rank 3 on a CPU node never joined
// step 42, rank 1 on GPU 1 of node a is a low-confidence suspect.
v1::DiagnoseResponse Failed() {
  v1::DiagnoseResponse r;
  r.set_sweep_id("20270115-080000-ab12");
  r.set_state("failed");
  r.set_summary(
      "failed at 2027-01-15 08:00:03 UTC in step 42 of 60 (all_reduce 1 MiB): "
      "culprit: rank 3 (node b \"x\"): never joined all_reduce #42 (1 MiB)");
  r.set_step(42);
  r.set_steps_total(60);
  r.set_steps_done(41);
  r.set_step_name("all_reduce 1 MiB");
  r.set_started_unix_seconds(1800000000);
  r.set_ended_unix_seconds(1800000003.5);
  v1::DiagnoseCulprit* c = r.add_culprits();
  c->set_kind("never_joined");
  c->set_rank(3);
  c->set_node("b \"x\"");
  c->set_gpu(-1);
  c->set_seq(42);
  c->set_op("all_reduce");
  c->set_bytes(1 << 20);
  c->set_stuck_for_seconds(31.25);
  c->set_explanation("never joined all_reduce #42 (1 MiB)");
  v1::DiagnoseCulprit* s = r.add_culprits();
  s->set_kind("joined_not_finished");
  s->set_rank(1);
  s->set_node("a");
  s->set_gpu(1);
  s->set_low_confidence(true);
  r.add_verdicts("rank 3 (node b \"x\"): never joined all_reduce #42 (1 MiB)");
  r.add_evidence("rank 0 (node a, GPU 0): reachable; records: #42 ...");
  r.set_json(R"({"summary":"raw stored blob","culprits":[]})");
  return r;
}

v1::DiagnoseResponse Running() {
  v1::DiagnoseResponse r;
  r.set_sweep_id("20270115-080000-cd34");
  r.set_state("running");
  r.set_summary(
      "running: step 51 of 60 (all_reduce 1 GiB), no stall: all 4 ranks in "
      "all_reduce 1 GiB for 12.0s (a stall after 815.0s)");
  r.set_step(51);
  r.set_steps_total(60);
  r.set_steps_done(50);
  r.set_step_name("all_reduce 1 GiB");
  r.set_started_unix_seconds(1800000000);
  r.set_waited_seconds(12);
  r.set_stall_after_seconds(815);
  r.set_progress("all 4 ranks in all_reduce 1 GiB for 12.0s");
  r.add_evidence("rank 0 (node a): reachable; records: #51 ... started");
  return r;
}

std::string Report(const v1::DiagnoseResponse& r) {
  std::ostringstream out;
  PrintDiagnosisReport(r, out);
  return out.str();
}

google::protobuf::Struct Parse(const std::string& json) {
  google::protobuf::Struct doc;
  auto status = google::protobuf::util::JsonStringToMessage(json, &doc);
  EXPECT_TRUE(status.ok()) << status.ToString() << "\n" << json;
  return doc;
}

TEST(DiagnosisReportTest, StoredVerdictsAreATableNotARawBlob) {
  const std::string text = Report(Failed());
  EXPECT_THAT(text,
              HasSubstr("sweep 20270115-080000-ab12 (failed)\nfailed at"));
  EXPECT_THAT(text, HasSubstr("NODE   GPU  RANK  VERDICT"));
  EXPECT_THAT(text, HasSubstr("STEP  OP           SIZE  STUCK FOR\n"));
  EXPECT_THAT(text, HasSubstr("b \"x\"    -     3  never_joined"));
  EXPECT_THAT(text, HasSubstr("42  all_reduce  1 MiB      31.2s\n"));
  EXPECT_THAT(text, HasSubstr("joined_not_finished (suspect)     -  -          "
                              "     -          -\n"));
  EXPECT_THAT(text, HasSubstr("\nwhy:\n  rank 3 (node b \"x\"): never joined"));
  EXPECT_THAT(text, HasSubstr("\nevidence:\n  rank 0 (node a, GPU 0)"));
  EXPECT_THAT(text, Not(HasSubstr("raw stored blob")));
  EXPECT_THAT(text, Not(HasSubstr("{")));
}

TEST(DiagnosisReportTest, RanksWithWrongDataAreNamed) {
  v1::DiagnoseResponse r = Failed();
  v1::DiagnoseWrongData* w = r.add_wrong_data();
  w->set_rank(2);
  w->set_wrong(1024);
  w->set_steps(3);
  w->set_first_step("all_reduce 1 MiB in-place");
  EXPECT_THAT(Report(r), HasSubstr("\nwrong data (the data check):\n  rank 2: "
                                   "1024 wrong elements in 3 steps, first in "
                                   "all_reduce 1 MiB in-place\n"));
  EXPECT_THAT(Report(Failed()), Not(HasSubstr("wrong data")));
  const google::protobuf::Struct doc = Parse(DiagnosisJson(r));
  const auto& data = doc.fields().at("wrong_data");
  ASSERT_EQ(data.list_value().values_size(), 1);
  const auto& d = data.list_value().values(0).struct_value().fields();
  EXPECT_EQ(d.at("rank").number_value(), 2);
  EXPECT_EQ(d.at("wrong").number_value(), 1024);
  EXPECT_EQ(d.at("steps").number_value(), 3);
  EXPECT_EQ(d.at("first_step").string_value(), "all_reduce 1 MiB in-place");
}

TEST(DiagnosisReportTest, ARunningSweepHasNoCulpritTable) {
  const std::string text = Report(Running());
  EXPECT_THAT(text, HasSubstr("(running)\nrunning: step 51 of 60"));
  EXPECT_THAT(text, Not(HasSubstr("VERDICT")));
  EXPECT_THAT(text, Not(HasSubstr("why:")));
  EXPECT_THAT(text, HasSubstr("evidence:"));
}

TEST(DiagnosisJsonTest, FailedSweepHasEveryKeyAndItsCulprits) {
  const std::string json = DiagnosisJson(Failed());
  google::protobuf::Struct doc = Parse(json);
  const auto& f = doc.fields();
  for (const char* key :
       {"sweep_id", "state", "summary", "step", "steps_total", "steps_done",
        "step_name", "started_unix_s", "ended_unix_s", "waited_s",
        "stall_after_s", "progress", "culprits", "wrong_data", "evidence"}) {
    EXPECT_EQ(f.count(key), 1u) << key << " in " << json;
  }
  EXPECT_EQ(f.size(), 15u) << json;
  EXPECT_EQ(f.at("wrong_data").list_value().values_size(), 0);  // clean
  EXPECT_EQ(f.at("state").string_value(), "failed");
  EXPECT_EQ(f.at("step").number_value(), 42);
  EXPECT_EQ(f.at("steps_total").number_value(), 60);
  EXPECT_EQ(f.at("steps_done").number_value(), 41);
  EXPECT_EQ(f.at("step_name").string_value(), "all_reduce 1 MiB");
  EXPECT_EQ(f.at("ended_unix_s").number_value(), 1800000003.5);
  // Not running: no progress figures.
  EXPECT_TRUE(f.at("waited_s").has_null_value());
  EXPECT_TRUE(f.at("stall_after_s").has_null_value());
  EXPECT_TRUE(f.at("progress").has_null_value());
  const auto& culprits = f.at("culprits").list_value().values();
  ASSERT_EQ(culprits.size(), 2);
  const auto& c = culprits[0].struct_value().fields();
  EXPECT_EQ(c.size(), 10u);
  EXPECT_EQ(c.at("rank").number_value(), 3);
  EXPECT_EQ(c.at("node").string_value(), "b \"x\"");
  EXPECT_TRUE(c.at("gpu").has_null_value());  // a CPU rank
  EXPECT_EQ(c.at("kind").string_value(), "never_joined");
  EXPECT_FALSE(c.at("low_confidence").bool_value());
  EXPECT_EQ(c.at("step").number_value(), 42);
  EXPECT_EQ(c.at("op").string_value(), "all_reduce");
  EXPECT_EQ(c.at("bytes").number_value(), 1 << 20);
  EXPECT_EQ(c.at("stuck_for_s").number_value(), 31.25);
  const auto& s = culprits[1].struct_value().fields();
  EXPECT_EQ(s.at("gpu").number_value(), 1);
  EXPECT_TRUE(s.at("low_confidence").bool_value());
  EXPECT_TRUE(s.at("step").has_null_value());
  EXPECT_TRUE(s.at("op").has_null_value());
  EXPECT_TRUE(s.at("bytes").has_null_value());
  EXPECT_TRUE(s.at("stuck_for_s").has_null_value());
  EXPECT_EQ(f.at("evidence").list_value().values_size(), 1);
}

TEST(DiagnosisJsonTest, RunningSweepHasItsProgressAndNoEnd) {
  google::protobuf::Struct doc = Parse(DiagnosisJson(Running()));
  const auto& f = doc.fields();
  EXPECT_EQ(f.at("state").string_value(), "running");
  EXPECT_TRUE(f.at("ended_unix_s").has_null_value());
  EXPECT_EQ(f.at("started_unix_s").number_value(), 1800000000);
  EXPECT_EQ(f.at("waited_s").number_value(), 12);
  EXPECT_EQ(f.at("stall_after_s").number_value(), 815);
  EXPECT_EQ(f.at("progress").string_value(),
            "all 4 ranks in all_reduce 1 GiB for 12.0s");
  EXPECT_EQ(f.at("culprits").list_value().values_size(), 0);
}

TEST(DiagnosisJsonTest, UnknownStepsAreNull) {
  v1::DiagnoseResponse r;
  r.set_sweep_id("x");
  r.set_state("aborted");
  google::protobuf::Struct doc = Parse(DiagnosisJson(r));
  EXPECT_TRUE(doc.fields().at("steps_total").has_null_value());
  EXPECT_TRUE(doc.fields().at("step_name").has_null_value());
  EXPECT_TRUE(doc.fields().at("started_unix_s").has_null_value());
}

TEST(DiagnosisCsvTest, OneRowPerCulpritEmptyWhereUnknown) {
  EXPECT_EQ(
      DiagnosisCsv(Failed()),
      "sweep_id,state,rank,node,gpu,kind,low_confidence,step,op,bytes,"
      "stuck_for_seconds,explanation\n"
      "20270115-080000-ab12,failed,3,\"b \"\"x\"\"\",,never_joined,false,42,"
      "all_reduce,1048576,31.25,never joined all_reduce #42 (1 MiB)\n"
      "20270115-080000-ab12,failed,1,a,1,joined_not_finished,true,,,,,\n");
  EXPECT_EQ(DiagnosisCsv(Running()),
            "sweep_id,state,rank,node,gpu,kind,low_confidence,step,op,bytes,"
            "stuck_for_seconds,explanation\n");
}

}  // namespace
}  // namespace fabricpulse::client
