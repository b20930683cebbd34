// `fabricpulse plans` and `fabricpulse schedules` in their three formats,
// and the aligned table they share.
#include <string>

#include "client/commands/nodes_command.h"
#include "client/commands/plans_command.h"
#include "client/commands/schedules_command.h"
#include "client/output/text_table.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::client {
namespace {
namespace FP_UNITY_ID {

using ::testing::HasSubstr;
using ::testing::Not;

v1::ListPlansResponse Plans() {
  v1::ListPlansResponse resp;
  resp.mutable_regression()->set_baseline_window(10);
  resp.mutable_regression()->set_baseline_min_sweeps(5);
  resp.mutable_regression()->set_threshold(0.9);
  v1::PlanInfo* quick = resp.add_plans();
  quick->set_name("quick");
  v1::SweepSpec* s = quick->mutable_spec();
  s->add_ops("all_reduce");
  s->add_ops("alltoall");
  s->set_min_bytes(1024);
  s->set_max_bytes(16384);
  s->set_factor(4);
  s->set_iters(3);
  s->set_warmup_iters(1);
  s->set_check(true);
  s->set_placement("both");
  s->set_timeout_seconds(60);
  quick->add_nodes("node-a");
  quick->add_nodes("node-b");
  quick->add_isolate_on("regression");
  quick->add_isolate_on("failure");
  v1::PlanInfo* adaptive = resp.add_plans();
  adaptive->set_name("adaptive");
  adaptive->mutable_spec()->add_ops("all_gather");
  adaptive->mutable_spec()->mutable_adaptive()->set_tolerance(0.02);
  adaptive->mutable_spec()->mutable_adaptive()->set_min_iters(5);
  adaptive->mutable_spec()->mutable_adaptive()->set_max_iters(100);
  adaptive->mutable_spec()->mutable_adaptive()->set_step_time_cap_seconds(2);
  return resp;
}

v1::ListSchedulesResponse Schedules() {
  v1::ListSchedulesResponse resp;
  v1::ScheduleInfo* hourly = resp.add_schedules();
  hourly->set_name("hourly");
  hourly->set_plan("quick");
  hourly->set_cron("0 * * * *");
  hourly->set_timezone("UTC");
  hourly->set_next_unix_seconds(1796090400);  // 2026-12-01 02:00 UTC
  hourly->set_pending(true);
  hourly->set_waiting_on("gpu_busy");
  v1::ScheduleInfo* nightly = resp.add_schedules();
  nightly->set_name("nightly-with-a-long-name");
  nightly->set_plan("adaptive");
  nightly->set_cron("30 2 * * *");
  nightly->set_timezone("UTC");
  nightly->set_allow_busy_gpus(true);
  nightly->set_next_unix_seconds(1796085000);
  nightly->mutable_last_run()->set_sweep_id("sweep-7");
  nightly->mutable_last_run()->set_status("succeeded");
  nightly->mutable_last_run()->set_started_unix_seconds(1796000000);
  nightly->mutable_last_run()->set_finished_unix_seconds(1796000060.5);
  return resp;
}

TEST(TextTableTest, ColumnsAreAsWideAsTheirWidestCell) {
  EXPECT_EQ(AlignedTable({{"A", "BB", "C"}, {"long-value", "x"}}),
            "A           BB  C\nlong-value  x\n");
  EXPECT_EQ(AlignedTable({}), "");
}

TEST(PlansOutputTest, TableHasEachPlanItsSpecAndTheRegressionRule) {
  const std::string text = FormatPlans(Plans(), OutputFormat::kTable);
  EXPECT_THAT(text, HasSubstr("PLAN "));
  EXPECT_THAT(text, HasSubstr("all_reduce,alltoall"));
  EXPECT_THAT(text, HasSubstr("1K to 16K (factor 4)"));
  EXPECT_THAT(text, HasSubstr("3 iters"));
  EXPECT_THAT(text, HasSubstr("node-a,node-b"));
  EXPECT_THAT(text, HasSubstr("ISOLATE_ON"));
  EXPECT_THAT(text, HasSubstr("regression,failure"));
  EXPECT_THAT(text, HasSubstr("  off                 -\n"));  // adaptive's
  EXPECT_THAT(text, HasSubstr("CAMPAIGN"));
  EXPECT_THAT(text, HasSubstr("iters auto (2 % tolerance, 5 to 100"));
  EXPECT_THAT(text, HasSubstr("# 2 plan(s); a step regresses when its busbw "
                              "is below 90 % of its baseline, the median of "
                              "the plan's last 10 succeeded sweeps (none from "
                              "fewer than 5)\n"));
}

TEST(PlansOutputTest, JsonIsTheResponseWithProtoFieldNames) {
  const std::string text = FormatPlans(Plans(), OutputFormat::kJson);
  EXPECT_THAT(text, HasSubstr("{\"plans\":[{\"name\":\"quick\""));
  EXPECT_THAT(text, HasSubstr("\"nodes\":[\"node-a\",\"node-b\"]"));
  EXPECT_THAT(text, HasSubstr("\"isolate_on\":[\"regression\",\"failure\"]"));
  EXPECT_THAT(text, HasSubstr("\"baseline_window\":10"));
  EXPECT_EQ(text.back(), '\n');
}

TEST(PlansOutputTest, CsvHasAHeaderAndOneLinePerPlan) {
  const std::string text = FormatPlans(Plans(), OutputFormat::kCsv);
  EXPECT_THAT(text, HasSubstr("plan,ops,min_bytes,max_bytes,"));
  EXPECT_THAT(text, HasSubstr("\nquick,all_reduce;alltoall,1024,16384,0,4,0,"
                              "float,sum,0,3,,,,,1,true,both,false,60,false,"
                              "node-a;node-b,regression;failure,\n"));
  EXPECT_THAT(text, HasSubstr("\nadaptive,all_gather,"));
  EXPECT_THAT(text, HasSubstr(",auto,0.02,5,100,2,"));
}

TEST(SchedulesOutputTest, TableSaysNextStateAndLastRun) {
  const std::string text = FormatSchedules(Schedules(), OutputFormat::kTable);
  EXPECT_THAT(text, HasSubstr("SCHEDULE "));
  EXPECT_THAT(text, HasSubstr("2026-12-01 02:00 UTC"));
  EXPECT_THAT(text, HasSubstr("waiting: GPUs busy"));
  EXPECT_THAT(text, HasSubstr("sweep-7"));
  EXPECT_THAT(text, HasSubstr("succeeded"));
  EXPECT_THAT(text, HasSubstr("# 2 schedule(s)\n"));
  // The long name does not push the next column out of line.
  const size_t header_plan = text.find("PLAN");
  const size_t row = text.find("nightly-with-a-long-name");
  const size_t row_plan = text.find("adaptive", row);
  EXPECT_EQ(row_plan - row, header_plan);
}

TEST(SchedulesOutputTest, JsonAndCsv) {
  const std::string json = FormatSchedules(Schedules(), OutputFormat::kJson);
  EXPECT_THAT(json, HasSubstr("\"waiting_on\":\"gpu_busy\""));
  EXPECT_THAT(json, HasSubstr("\"last_run\":{\"sweep_id\":\"sweep-7\""));
  const std::string csv = FormatSchedules(Schedules(), OutputFormat::kCsv);
  EXPECT_THAT(csv, HasSubstr("schedule,plan,cron,timezone,allow_busy_gpus,"));
  EXPECT_THAT(csv, HasSubstr("\nhourly,quick,0 * * * *,UTC,false,"
                             "1796090400.000,true,gpu_busy,,,,\n"));
  EXPECT_THAT(csv, HasSubstr(",sweep-7,succeeded,1796000000.000,"
                             "1796000060.500\n"));
  EXPECT_THAT(csv, Not(HasSubstr("\"")));
}

v1::ListNodesResponse Nodes() {
  v1::ListNodesResponse r;
  v1::NodeVerdictInfo* ok = r.add_nodes();
  ok->set_plan("nightly");
  ok->set_node("gpu-1");
  ok->set_verdict("pass");
  ok->set_since_unix_seconds(1796300000);
  ok->set_last_tested_unix_seconds(1796300000);
  v1::NodeEvidenceInfo* e = ok->add_evidence();
  e->set_sweep_id("s-1");
  e->add_group("gpu-1");
  e->add_group("gpu-2");
  e->set_finding("good");
  e->set_busbw_bytes_per_second(40e9);
  e->set_reference_busbw_bytes_per_second(41e9);
  e->set_detail("ok");
  v1::NodeVerdictInfo* bad = r.add_nodes();
  bad->set_plan("nightly");
  bad->set_node("gpu-2");
  bad->set_verdict("fail");
  v1::NodeEvidenceInfo* f = bad->add_evidence();
  f->set_sweep_id("s-2");
  f->add_group("gpu-2");
  f->add_group("gpu-3");
  f->set_finding("bad");
  f->set_busbw_bytes_per_second(4e9);
  f->set_reference_busbw_bytes_per_second(41e9);
  f->set_threshold_busbw_bytes_per_second(28.7e9);
  f->set_blamed(true);
  f->set_detail("below critical");
  v1::NodeVerdictInfo* never = r.add_nodes();
  never->set_plan("nightly");
  never->set_node("gpu-9");
  never->set_verdict("untested");
  v1::CampaignInfo* c = r.add_campaigns();
  c->set_campaign_id("c1");
  c->set_plan("nightly");
  c->set_grouping("pairs");
  c->set_status("finished");
  c->set_fleet(3);
  c->set_measured(2);
  c->set_pass(1);
  c->set_fail(1);
  c->set_untested(1);
  c->set_second_passes(2);
  return r;
}

TEST(NodesOutputTest, TableHasEachVerdictItsNewestEvidenceAndTheCampaign) {
  const std::string text = FormatNodes(Nodes(), OutputFormat::kTable);
  EXPECT_THAT(text, HasSubstr("PLAN "));
  EXPECT_THAT(text, HasSubstr("ok: 40.00 GB/s (reference 41.00 GB/s); group "
                              "gpu-1+gpu-2; sweep s-1"));
  EXPECT_THAT(text,
              HasSubstr("below critical: 4.00 GB/s (reference 41.00 GB/s, "
                        "threshold 28.70 GB/s); group gpu-2+gpu-3; sweep s-2"));
  EXPECT_THAT(text, HasSubstr("2026-12-03 12:13:20"));
  EXPECT_THAT(text, HasSubstr("untested  -"));
  EXPECT_THAT(text, HasSubstr("# campaign c1 of nightly (pairs) finished: 2 of "
                              "3 node(s) measured; pass 1, degraded 0, fail 1, "
                              "suspect 0, untested 1; 2 second pass(es)\n"));
  EXPECT_THAT(FormatNodes(v1::ListNodesResponse(), OutputFormat::kTable),
              HasSubstr("no node has a verdict"));
}

// The plan's measured noise (issue 28): how large a drop must be to be
// judged against peers; absent before the plan has enough results.
TEST(NodesOutputTest, TheCampaignLineSaysThePlansNoise) {
  v1::ListNodesResponse nodes = Nodes();
  nodes.mutable_campaigns(0)->set_plan_noise(0.063);
  EXPECT_THAT(FormatNodes(nodes, OutputFormat::kTable),
              HasSubstr("2 second pass(es); plan noise 6.3 % (against peers, "
                        "drops under 19 % are not judged)\n"));
  EXPECT_THAT(FormatNodes(nodes, OutputFormat::kJson),
              HasSubstr("\"plan_noise\":0.063"));
}

TEST(NodesOutputTest, CsvHasOneLinePerNodeAndJsonTheResponse) {
  const std::string csv = FormatNodes(Nodes(), OutputFormat::kCsv);
  EXPECT_THAT(csv, HasSubstr("plan,node,verdict,since_unix_s,"));
  EXPECT_THAT(csv, HasSubstr("\nnightly,gpu-2,fail,0,0,bad,4000000000,"
                             "41000000000,28700000000,gpu-2;gpu-3,s-2,below "
                             "critical\n"));
  EXPECT_THAT(csv, HasSubstr("\nnightly,gpu-9,untested,0,0,,,,,,,\n"));
  EXPECT_THAT(csv, HasSubstr("\nnightly,gpu-1,pass,1796300000,1796300000,"));
  const std::string json = FormatNodes(Nodes(), OutputFormat::kJson);
  EXPECT_THAT(json, HasSubstr("\"verdict\":\"fail\""));
  EXPECT_THAT(json, HasSubstr("\"campaign_id\":\"c1\""));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::client
