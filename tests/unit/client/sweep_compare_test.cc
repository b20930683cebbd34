// CompareSweeps on synthetic stored sweeps: which rows match, what is
// compared, and when a difference counts as beyond noise.
#include "client/output/sweep_compare.h"

#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::client {
namespace {
namespace FP_UNITY_ID {

using ::testing::HasSubstr;

v1::StepResult Row(const std::string& op, uint64_t bytes, bool in_place,
                   double busbw, double p50_over_mean = 1.0,
                   double p99_over_mean = 1.02) {
  v1::StepResult r;
  r.mutable_step()->set_op(op);
  r.mutable_step()->set_bytes(bytes);
  r.mutable_step()->set_in_place(in_place);
  r.mutable_step()->set_dtype("float");
  r.mutable_step()->set_redop("sum");
  const double seconds = bytes / busbw;
  r.set_time_seconds(seconds);
  r.set_algbw_bytes_per_second(busbw);
  r.set_busbw_bytes_per_second(busbw);
  r.set_p50_seconds(seconds * p50_over_mean);
  r.set_p99_seconds(seconds * p99_over_mean);
  return r;
}

v1::GetSweepResponse Sweep(const std::string& id,
                           std::vector<v1::StepResult> rows) {
  v1::GetSweepResponse s;
  s.mutable_sweep()->set_sweep_id(id);
  s.mutable_sweep()->set_nranks(2);
  s.mutable_sweep()->set_backend("gloo");
  s.mutable_sweep()->set_status("succeeded");
  for (v1::StepResult& r : rows) *s.add_results() = std::move(r);
  return s;
}

TEST(CompareSweepsTest, ASlowerRowBeyondNoiseIsMarked) {
  // B's 1 MiB all_reduce delivers 80 % of A's; its spread is 2 %.
  const auto a = Sweep("a", {Row("all_reduce", 1 << 20, false, 100e9),
                             Row("all_reduce", 1 << 24, false, 200e9)});
  const auto b = Sweep("b", {Row("all_reduce", 1 << 20, false, 80e9),
                             Row("all_reduce", 1 << 24, false, 201e9)});
  const SweepComparison c = CompareSweeps(a, b, 0.05);
  ASSERT_EQ(c.rows.size(), 2u);
  EXPECT_EQ(c.rows[0].figure, "busbw");
  EXPECT_DOUBLE_EQ(c.rows[0].ratio, 0.8);
  EXPECT_EQ(c.rows[0].verdict, CompareVerdict::kSlower);
  EXPECT_EQ(c.rows[1].verdict, CompareVerdict::kSame);
  EXPECT_EQ(c.slower, 1);
  EXPECT_EQ(c.faster, 0);
}

TEST(CompareSweepsTest, SameSweepsMarkNothing) {
  const auto a = Sweep("a", {Row("all_reduce", 1 << 20, false, 100e9),
                             Row("all_gather", 1 << 20, true, 90e9)});
  const auto b = Sweep("b", {Row("all_reduce", 1 << 20, false, 98e9),
                             Row("all_gather", 1 << 20, true, 93e9)});
  const SweepComparison c = CompareSweeps(a, b, 0.05);
  EXPECT_EQ(c.slower + c.faster, 0);
  EXPECT_EQ(c.rows.size(), 2u);
}

TEST(CompareSweepsTest, AChangeWithinTheRowsOwnSpreadIsNoise) {
  // 20 % slower, but the iterations themselves spread 50 % (p50 to p99).
  const auto a = Sweep("a", {Row("sendrecv", 4096, false, 1e9, 1.0, 1.5)});
  const auto b = Sweep("b", {Row("sendrecv", 4096, false, 0.8e9, 1.0, 1.5)});
  const SweepComparison c = CompareSweeps(a, b, 0.05);
  ASSERT_EQ(c.rows.size(), 1u);
  ASSERT_TRUE(c.rows[0].spread.has_value());
  EXPECT_DOUBLE_EQ(*c.rows[0].spread, 0.5);
  EXPECT_EQ(c.rows[0].verdict, CompareVerdict::kSame);
}

TEST(CompareSweepsTest, WithoutPercentilesTheThresholdDecides) {
  v1::StepResult fast = Row("all_reduce", 1 << 20, false, 100e9);
  v1::StepResult faster = Row("all_reduce", 1 << 20, false, 130e9);
  fast.clear_p50_seconds();
  faster.clear_p99_seconds();
  const SweepComparison c =
      CompareSweeps(Sweep("a", {fast}), Sweep("b", {faster}), 0.05);
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_FALSE(c.rows[0].spread.has_value());
  EXPECT_EQ(c.rows[0].verdict, CompareVerdict::kFaster);
}

TEST(CompareSweepsTest, OneRankComparesAlgbwAndUnmatchedRowsAreCounted) {
  v1::StepResult a1 = Row("all_reduce", 1 << 20, false, 0);
  a1.set_algbw_bytes_per_second(50e9);
  a1.set_time_seconds((1 << 20) / 50e9);
  v1::StepResult b1 = a1;
  b1.set_algbw_bytes_per_second(25e9);
  const auto a = Sweep("a", {a1, Row("alltoall", 1 << 20, false, 10e9)});
  const auto b = Sweep("b", {b1, Row("broadcast", 1 << 20, false, 10e9),
                             Row("broadcast", 1 << 22, false, 10e9)});
  const SweepComparison c = CompareSweeps(a, b, 0.05);
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].figure, "algbw");
  EXPECT_DOUBLE_EQ(c.rows[0].ratio, 0.5);
  EXPECT_EQ(c.only_in_a, 1);
  EXPECT_EQ(c.only_in_b, 2);
}

TEST(CompareSweepsTest, PrintsTableJsonAndCsv) {
  const auto a = Sweep("sweep-a", {Row("all_reduce", 1 << 20, false, 100e9)});
  const auto b = Sweep("sweep-b", {Row("all_reduce", 1 << 20, false, 50e9)});
  const SweepComparison c = CompareSweeps(a, b, 0.05);
  std::ostringstream table, json, csv;
  PrintComparison(c, OutputOptions{}, table);
  EXPECT_THAT(table.str(), HasSubstr("# compare A sweep-a (2 ranks, gloo, "
                                     "succeeded)"));
  EXPECT_THAT(table.str(), HasSubstr("100.00"));
  EXPECT_THAT(table.str(), HasSubstr("0.500"));
  EXPECT_THAT(table.str(), HasSubstr("slower"));
  EXPECT_THAT(table.str(),
              HasSubstr("# 1 row(s) compared: 1 slower, 0 faster beyond noise; "
                        "0 only in A, 0 only in B\n"));
  OutputOptions as_json;
  as_json.format = OutputFormat::kJson;
  PrintComparison(c, as_json, json);
  EXPECT_THAT(json.str(), HasSubstr("\"a\":\"sweep-a\",\"b\":\"sweep-b\""));
  EXPECT_THAT(json.str(), HasSubstr("\"ratio\":0.5"));
  EXPECT_THAT(json.str(), HasSubstr("\"verdict\":\"slower\""));
  EXPECT_THAT(json.str(), HasSubstr("\"slower\":1,\"faster\":0}"));
  OutputOptions as_csv;
  as_csv.format = OutputFormat::kCsv;
  PrintComparison(c, as_csv, csv);
  EXPECT_THAT(csv.str(), HasSubstr("op,bytes,in_place,dtype,redop,figure,a,b,"
                                   "ratio,spread,verdict\n"));
  EXPECT_THAT(csv.str(),
              HasSubstr("all_reduce,1048576,false,float,sum,busbw,"));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::client
