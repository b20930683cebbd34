// The coordinator's isolation after a sweep as `results --sweep` prints it
// (isolation_output.h): the table's lines and the JSON document's key.
#include "client/output/isolation_output.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <string>

#include "client/output/output_options.h"
#include "client/output/sweep_json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::client {
namespace {
namespace FP_UNITY_ID {

using google::protobuf::Struct;
using google::protobuf::Value;
using ::testing::HasSubstr;

v1::SweepIsolation Isolation() {
  v1::SweepIsolation i;
  i.set_cause("regression");
  i.set_op("all_reduce");
  i.set_bytes(524288);
  i.set_verdict("node");
  i.add_culprits("node-2");
  i.set_summary("node node-2: pairwise node-0<->node-2 0.0023 GB/s (slow)");
  i.set_started_unix_seconds(1796000000);
  i.set_finished_unix_seconds(1796000030);
  v1::IsolationRound* all = i.add_rounds();
  all->set_role("all");
  for (const char* n : {"node-0", "node-1", "node-2", "node-3"}) {
    all->add_nodes(n);
  }
  all->set_ok(true);
  all->set_busbw_bytes_per_second(2.3e6);
  all->set_sweep_id("iso-1");
  v1::IsolationRound* half = i.add_rounds();
  half->set_role("half");
  half->add_nodes("node-2");
  half->add_nodes("node-3");
  half->set_ok(false);
  half->set_error("timed out");
  return i;
}

TEST(IsolationOutputTest, TableNamesTheCulpritWithItsMeasurements) {
  const std::string text = IsolationLines(Isolation());
  EXPECT_THAT(text, HasSubstr("# isolation: node node-2 (2 measurements: all "
                              "node-0,node-1,node-2,node-3: 0.0023 GB/s; half "
                              "node-2,node-3: failed (timed out)); after a "
                              "regression of all_reduce 524288 B\n"));
  EXPECT_THAT(text, HasSubstr("# isolation summary: node node-2: pairwise"));
  v1::SweepIsolation link = Isolation();
  link.set_verdict("link");
  link.clear_culprits();
  link.add_culprits("node-0");
  link.add_culprits("node-1");
  EXPECT_THAT(IsolationLines(link),
              HasSubstr("# isolation: link node-0<->node-1 ("));
  v1::SweepIsolation gave_up;
  gave_up.set_cause("failure");
  gave_up.set_op("broadcast");
  gave_up.set_bytes(8);
  gave_up.set_verdict("gave_up");
  gave_up.set_summary("gave way for 10m and gave up: node-1 is busy");
  EXPECT_EQ(IsolationLines(gave_up),
            "# isolation: gave up; after a failure of broadcast 8 B\n"
            "# isolation summary: gave way for 10m and gave up: node-1 is "
            "busy\n");
}

TEST(IsolationOutputTest, JsonHasTheIsolationOnlyWhenThereIsOne) {
  SweepDocument doc;
  doc.sweep.set_sweep_id("s-1");
  doc.sweep.set_status("succeeded");
  OutputOptions options;
  std::string text = SweepsJson({doc}, options);
  EXPECT_THAT(text, ::testing::Not(HasSubstr("\"isolation\"")));
  *doc.sweep.mutable_isolation() = Isolation();
  text = SweepsJson({doc}, options);
  Struct parsed;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(text, &parsed).ok())
      << text;
  const Struct& isolation = parsed.fields()
                                .at("sweeps")
                                .list_value()
                                .values(0)
                                .struct_value()
                                .fields()
                                .at("isolation")
                                .struct_value();
  EXPECT_EQ(isolation.fields().at("verdict").string_value(), "node");
  EXPECT_EQ(isolation.fields().at("cause").string_value(), "regression");
  EXPECT_EQ(isolation.fields().at("bytes").number_value(), 524288);
  EXPECT_EQ(
      isolation.fields().at("culprits").list_value().values(0).string_value(),
      "node-2");
  EXPECT_EQ(isolation.fields().at("started_at").string_value(),
            "2026-11-30T00:53:20.000Z");
  const auto& rounds = isolation.fields().at("rounds").list_value();
  ASSERT_EQ(rounds.values_size(), 2);
  const Struct& all = rounds.values(0).struct_value();
  EXPECT_EQ(all.fields().at("busbw_bytes_per_second").number_value(), 2.3e6);
  EXPECT_EQ(all.fields().at("sweep_id").string_value(), "iso-1");
  const Struct& half = rounds.values(1).struct_value();
  EXPECT_FALSE(half.fields().at("ok").bool_value());
  EXPECT_EQ(half.fields().at("busbw_bytes_per_second").kind_case(),
            Value::kNullValue);
  EXPECT_EQ(half.fields().at("error").string_value(), "timed out");
  EXPECT_EQ(half.fields().at("sweep_id").kind_case(), Value::kNullValue);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::client
