// The iterations every rank ran, in each output: the table's header line,
// "iters" column (adaptive only) and footer, and the JSON/CSV field.
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "client/output/output_options.h"
#include "client/output/result_fields.h"
#include "client/output/result_printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::client {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr uint64_t kMiB = 1 << 20;

v1::SweepSpec Spec(bool adaptive) {
  v1::SweepSpec spec;
  spec.add_ops("all_reduce");
  spec.set_min_bytes(kMiB);
  spec.set_max_bytes(kMiB);
  spec.set_factor(2);
  spec.set_dtype("float");
  spec.set_redop("sum");
  spec.set_iters(20);
  spec.set_warmup_iters(5);
  spec.set_check(true);
  spec.set_placement("both");
  if (adaptive) {
    spec.mutable_adaptive()->set_tolerance(0.02);
    spec.mutable_adaptive()->set_min_iters(5);
    spec.mutable_adaptive()->set_max_iters(100);
    // step_time_cap_seconds absent: the default, 2 s.
  }
  return spec;
}

v1::SweepStarted Started() {
  v1::SweepStarted started;
  started.set_sweep_id("s-1");
  started.set_nranks(2);
  started.add_nodes("node-a");
  started.set_backend("gloo");
  return started;
}

v1::StepResult Result(bool in_place, int iterations) {
  v1::StepResult result;
  v1::StepKey* step = result.mutable_step();
  step->set_op("all_reduce");
  step->set_bytes(kMiB);
  step->set_count(kMiB / 4);
  step->set_dtype("float");
  step->set_redop("sum");
  step->set_root(-1);
  step->set_in_place(in_place);
  result.set_time_seconds(100e-6);
  result.set_algbw_bytes_per_second(kMiB / 100e-6);
  result.set_busbw_bytes_per_second(kMiB / 100e-6);
  result.set_iterations(iterations);
  return result;
}

std::string Print(OutputFormat format, bool adaptive,
                  const std::vector<v1::StepResult>& results) {
  OutputOptions options;
  options.format = format;
  std::ostringstream out;
  std::unique_ptr<ResultPrinter> printer = ResultPrinter::Create(options, out);
  printer->Begin(Spec(adaptive), Started());
  for (const v1::StepResult& r : results) printer->Add(r);
  v1::SweepFinished finished;
  finished.set_sweep_id("s-1");
  finished.set_status("succeeded");
  printer->Finish(finished);
  return out.str();
}

std::vector<std::string> DataRowCells(const std::string& text) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!line.empty() && line[0] != '#') {
      return absl::StrSplit(line, ' ', absl::SkipEmpty());
    }
  }
  return {};
}

TEST(IterationsOutputTest, FixedTableHasNoColumnButAFooter) {
  const std::string text =
      Print(OutputFormat::kTable, false, {Result(false, 20), Result(true, 20)});
  EXPECT_THAT(text, HasSubstr("  iters: 20  "));
  EXPECT_THAT(text, Not(HasSubstr("adaptive")));
  EXPECT_EQ(DataRowCells(text).size(), 14u) << text;
  EXPECT_THAT(text, HasSubstr("# Timed iterations     : 40 in 2 results, "
                              "20 per result\n"));
}

TEST(IterationsOutputTest, AdaptiveTableShowsSettingsAndAColumn) {
  const std::string text =
      Print(OutputFormat::kTable, true, {Result(false, 5), Result(true, 12)});
  EXPECT_THAT(text, HasSubstr("  iters: auto  "));
  EXPECT_THAT(text, HasSubstr("# adaptive iters: tolerance: 0.02  min iters: "
                              "5  max iters: 100  step time cap: 2s\n"));
  EXPECT_THAT(text, HasSubstr("iters\n"));
  EXPECT_THAT(text, HasSubstr("(out/in)\n"));
  const std::vector<std::string> cells = DataRowCells(text);
  ASSERT_EQ(cells.size(), 15u) << text;
  EXPECT_EQ(cells.back(), "5/12");
  EXPECT_THAT(text, HasSubstr("# Timed iterations     : 17 in 2 results, "
                              "5 to 12 per result\n"));
}

TEST(IterationsOutputTest, AdaptiveColumnIsOneCountWhenPlacementsAgree) {
  const std::string text =
      Print(OutputFormat::kTable, true, {Result(false, 7), Result(true, 7)});
  EXPECT_EQ(DataRowCells(text).back(), "7");
}

TEST(IterationsOutputTest, UnreportedIterationsAreNullAndLeaveNoFooter) {
  const std::string table =
      Print(OutputFormat::kTable, false, {Result(false, 0), Result(true, 0)});
  EXPECT_THAT(table, Not(HasSubstr("Timed iterations")));
  const std::string json =
      Print(OutputFormat::kJson, false, {Result(false, 0)});
  EXPECT_THAT(json, HasSubstr("\"iterations\": null\n"));
}

TEST(IterationsOutputTest, JsonAndCsvCarryTheCount) {
  EXPECT_THAT(Print(OutputFormat::kJson, true, {Result(false, 37)}),
              HasSubstr("\"iterations\": 37\n"));
  const std::string csv = Print(OutputFormat::kCsv, true, {Result(false, 37)});
  const std::vector<std::string> lines = absl::StrSplit(csv, '\n');
  ASSERT_GE(lines.size(), 2u);
  EXPECT_THAT(lines[0], ::testing::EndsWith(",iterations"));
  EXPECT_THAT(lines[1], ::testing::EndsWith(",37"));
  EXPECT_EQ(ResultFieldNames(OutputOptions()).back(), "iterations");
}

}  // namespace
}  // namespace fabricpulse::client
