// The table's nccl-tests header lines (backend version, "# Using devices")
// and --time-across-ranks.
#include "client/output/table_devices.h"

#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "client/output/result_printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::client {
namespace {
namespace FP_UNITY_ID {

using ::testing::HasSubstr;
using ::testing::Not;

v1::SweepStarted Started() {
  v1::SweepStarted started;
  started.set_sweep_id("s-1");
  started.set_nranks(2);
  started.add_nodes("node-a");
  started.set_backend("nccl");
  v1::RankPlacement* gpu = started.add_ranks();
  gpu->set_rank(0);
  gpu->set_node("node-a");
  gpu->set_gpu(3);
  gpu->set_gpu_model("NVIDIA H200");
  gpu->set_pci_bus_id("00000000:1B:00.0");
  v1::RankPlacement* unknown = started.add_ranks();
  unknown->set_rank(1);
  unknown->set_node("node-a");
  unknown->set_local_index(1);
  unknown->set_gpu(4);
  return started;
}

v1::StepResult Result(double max, double mean, double min) {
  v1::StepResult r;
  r.mutable_step()->set_op("all_reduce");
  r.mutable_step()->set_bytes(1000000);
  r.mutable_step()->set_count(250000);
  r.mutable_step()->set_dtype("float");
  r.mutable_step()->set_redop("sum");
  r.set_time_seconds(max);
  r.set_max_rank_time_seconds(max);
  r.set_min_rank_time_seconds(min);
  if (mean > 0) r.set_mean_rank_time_seconds(mean);
  r.set_algbw_bytes_per_second(1000000 / max);
  r.set_busbw_bytes_per_second(1000000 / max);  // 2 ranks: factor 1
  return r;
}

TEST(TableDevicesTest, UsingDevicesAsNcclTestsPrintsIt) {
  SweepContext context;
  context.pids[0] = 1234;
  EXPECT_EQ(UsingDevicesBlock(Started(), context),
            "#\n# Using devices\n"
            "#  Rank  0 Group  0 Pid   1234 on     node-a device  3 [0x1b] "
            "NVIDIA H200\n"
            "#  Rank  1 Group  0 Pid      - on     node-a device  4 "
            "[unknown]\n");
  v1::SweepStarted cpu;
  v1::RankPlacement* r = cpu.add_ranks();
  r->set_node("n");
  r->set_gpu(-1);
  EXPECT_THAT(UsingDevicesBlock(cpu, {}),
              HasSubstr("#  Rank  0 Group  0 Pid      - on          n device "
                        "cpu\n"));
  // No rank map (history from before it): no block.
  EXPECT_EQ(UsingDevicesBlock(v1::SweepStarted(), {}), "");
  EXPECT_EQ(PciBusNumber("0000:18:00.0"), "0x18");
  EXPECT_EQ(PciBusNumber("18:00.0"), "0x18");
  EXPECT_EQ(PciBusNumber("odd"), "odd");
}

TEST(TableDevicesTest, VersionLineFromTheHistoryElseUnknown) {
  SweepContext context;
  EXPECT_EQ(BackendVersionLine(Started(), context),
            "# nccl (version unknown)\n");
  context.summary.emplace().set_backend_version("nccl 2.28.9");
  EXPECT_EQ(BackendVersionLine(Started(), context), "# nccl 2.28.9\n");
}

TEST(TableDevicesTest, ReportedFiguresFollowTheChosenRankTime) {
  const v1::StepResult r = Result(4e-3, 2e-3, 1e-3);
  const ReportedFigures max = *Reported(r, TimeAcrossRanks::kMax);
  EXPECT_DOUBLE_EQ(max.time_seconds, 4e-3);
  EXPECT_DOUBLE_EQ(max.busbw_bytes_per_second, 2.5e8);
  const ReportedFigures avg = *Reported(r, TimeAcrossRanks::kAvg);
  EXPECT_DOUBLE_EQ(avg.time_seconds, 2e-3);
  EXPECT_DOUBLE_EQ(avg.algbw_bytes_per_second, 5e8);
  EXPECT_DOUBLE_EQ(avg.busbw_bytes_per_second, 5e8);
  EXPECT_DOUBLE_EQ(Reported(r, TimeAcrossRanks::kMin)->time_seconds, 1e-3);
  // Not recorded (history from before): absent, never the max instead.
  EXPECT_FALSE(Reported(Result(4e-3, 0, 1e-3), TimeAcrossRanks::kAvg));
}

std::string Table(TimeAcrossRanks which, const SweepContext& context,
                  const std::vector<v1::StepResult>& results) {
  OutputOptions options;
  options.time_across_ranks = which;
  std::ostringstream out;
  auto printer = ResultPrinter::Create(options, out);
  printer->Describe(context);
  v1::SweepSpec spec;
  spec.add_ops("all_reduce");
  spec.set_dtype("float");
  spec.set_placement("out_of_place");
  printer->Begin(spec, Started());
  for (const v1::StepResult& r : results) printer->Add(r);
  v1::SweepFinished finished;
  finished.set_status("succeeded");
  printer->Finish(finished);
  return out.str();
}

TEST(TablePrinterTimeTest, HeaderHasVersionDevicesAndTheChoice) {
  SweepContext context;
  context.summary.emplace().set_backend_version("nccl 2.28.9");
  const std::string text =
      Table(TimeAcrossRanks::kAvg, context, {Result(4e-3, 2e-3, 1e-3)});
  EXPECT_THAT(text, HasSubstr("\n# nccl 2.28.9\n"));
  EXPECT_THAT(text, HasSubstr("# time across ranks: avg "));
  EXPECT_THAT(text, HasSubstr("# Using devices\n#  Rank  0 Group  0 Pid"));
  // avg: 2000 us, 0.50 GB/s; the average bus bandwidth follows it.
  EXPECT_THAT(text, HasSubstr("2000.0      0.50      0.50"));
  EXPECT_THAT(text, HasSubstr("# Avg bus bandwidth    : 0.5 GB/s\n"));
  const std::string max =
      Table(TimeAcrossRanks::kMax, context, {Result(4e-3, 2e-3, 1e-3)});
  EXPECT_THAT(max, HasSubstr("4000.0      0.25      0.25"));
  const std::string min =
      Table(TimeAcrossRanks::kMin, context, {Result(4e-3, 2e-3, 1e-3)});
  EXPECT_THAT(min, HasSubstr("1000.0      1.00      1.00"));
}

TEST(TablePrinterTimeTest, AnAverageNotRecordedIsNotApplicableAndSaid) {
  const std::string text =
      Table(TimeAcrossRanks::kAvg, {}, {Result(4e-3, 0, 1e-3)});
  EXPECT_THAT(text, HasSubstr("n/a       n/a       n/a"));
  EXPECT_THAT(text, Not(HasSubstr("4000.0")));
  EXPECT_THAT(text, HasSubstr("# Time across ranks   : avg not recorded for 1 "
                              "result(s)"));
  EXPECT_THAT(text, HasSubstr("# Avg bus bandwidth    : N/A\n"));
}

TEST(TablePrinterTimeTest, HeaderEchoesCanonicalNames) {
  std::ostringstream out;
  auto printer = ResultPrinter::Create(OutputOptions(), out);
  v1::SweepSpec spec;
  spec.add_ops("all_reduce");
  spec.set_dtype("fp32");
  spec.set_redop("sum");
  printer->Begin(spec, Started());
  EXPECT_THAT(out.str(), HasSubstr("  dtype: float  redop: sum  "));
  EXPECT_THAT(out.str(), Not(HasSubstr("fp32")));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::client
