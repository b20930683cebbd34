#include "client/output/result_printer.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "client/output/csv_printer.h"
#include "client/output/json_printer.h"
#include "client/output/output_options.h"
#include "client/output/progress_line.h"
#include "client/output/result_fields.h"
#include "client/output/units.h"
#include "daemon/core/op_traits.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::client {
namespace {
namespace FP_UNITY_ID {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr uint64_t kMiB = 1 << 20;
constexpr int kRanks = 4;

v1::SweepSpec Spec(std::vector<std::string> ops, const std::string& placement,
                   bool check = true) {
  v1::SweepSpec spec;
  for (const std::string& op : ops) spec.add_ops(op);
  spec.set_min_bytes(kMiB);
  spec.set_max_bytes(2 * kMiB);
  spec.set_factor(2);
  spec.set_dtype("float");
  spec.set_redop("sum");
  spec.set_iters(20);
  spec.set_warmup_iters(5);
  spec.set_check(check);
  spec.set_placement(placement);
  return spec;
}

v1::SweepStarted Started() {
  v1::SweepStarted started;
  started.set_sweep_id("s-1");
  started.set_nranks(kRanks);
  started.add_nodes("node-a");
  started.add_nodes("node-b");
  started.set_backend("nccl");
  return started;
}

// A result the way the coordinator merges it: algbw = bytes / time, busbw =
// algbw x the op's nccl-tests factor.
v1::StepResult Result(const std::string& op, uint64_t bytes, bool in_place,
                      double seconds, int slowest = 3) {
  v1::StepResult result;
  v1::StepKey* step = result.mutable_step();
  const core::Op parsed = core::ParseOp(op).value();
  step->set_op(op);
  step->set_bytes(bytes);
  step->set_count(bytes / 4);
  step->set_dtype("float");
  step->set_redop("sum");
  step->set_root(core::IsRooted(parsed) ? 0 : -1);
  step->set_in_place(in_place);
  result.set_time_seconds(seconds);
  result.set_algbw_bytes_per_second(bytes / seconds);
  result.set_busbw_bytes_per_second(bytes / seconds *
                                    core::BusBandwidthFactor(parsed, kRanks));
  result.set_wrong(0);  // checked, clean
  result.set_slowest_rank(slowest);
  result.set_min_rank_time_seconds(seconds * 0.9);
  result.set_max_rank_time_seconds(seconds);
  // The table's default (avg) then shows the coordinator's figures.
  result.set_mean_rank_time_seconds(seconds);
  result.set_p50_seconds(seconds);
  result.set_p99_seconds(seconds * 1.1);
  return result;
}

v1::SweepFinished Finished(const std::string& status = "succeeded",
                           const std::string& error = "") {
  v1::SweepFinished finished;
  finished.set_sweep_id("s-1");
  finished.set_status(status);
  finished.set_error(error);
  finished.set_duration_seconds(1.5);
  return finished;
}

// Lines that are not comments: the table's data rows.
std::vector<std::string> DataRows(const std::string& text) {
  std::vector<std::string> rows;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!line.empty() && line[0] != '#') rows.emplace_back(line);
  }
  return rows;
}

std::vector<std::string> Cells(absl::string_view row) {
  return absl::StrSplit(row, ' ', absl::SkipEmpty());
}

struct Printer {
  explicit Printer(OutputOptions options) {
    printer = ResultPrinter::Create(options, out);
  }
  std::ostringstream out;
  std::unique_ptr<ResultPrinter> printer;
};

OutputOptions Format(OutputFormat format, BwUnit unit = BwUnit::kGBps,
                     bool raw = false) {
  OutputOptions options;
  options.format = format;
  options.unit = unit;
  options.raw = raw;
  return options;
}

TEST(OutputOptionsTest, ParsesFormatsAndUnits) {
  EXPECT_EQ(ParseOutputFormat("table").value(), OutputFormat::kTable);
  EXPECT_EQ(ParseOutputFormat("JSON").value(), OutputFormat::kJson);
  EXPECT_EQ(ParseOutputFormat("csv").value(), OutputFormat::kCsv);
  absl::StatusOr<OutputFormat> bad = ParseOutputFormat("xml");
  ASSERT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(),
            "--output: unknown format 'xml'; allowed: table, json, csv");

  EXPECT_EQ(ParseBwUnit("GBps").value(), BwUnit::kGBps);
  EXPECT_EQ(ParseBwUnit("Gbps").value(), BwUnit::kGbps);
  absl::StatusOr<BwUnit> unit = ParseBwUnit("gbps");
  ASSERT_EQ(unit.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(
      absl::StartsWith(unit.status().message(),
                       "--bw-unit: unknown unit 'gbps'; allowed: GBps"));
}

TEST(UnitsTest, HandComputedBandwidths) {
  // 1 MiB in 100 us: 1048576 / 1e-4 = 10.48576e9 bytes/s.
  const double bps = kMiB / 100e-6;
  EXPECT_NEAR(ToBwUnit(BwUnit::kGBps, bps), 10.48576, 1e-9);
  EXPECT_NEAR(ToBwUnit(BwUnit::kGbps, bps), 83.88608, 1e-9);  // 8x
  EXPECT_EQ(BwUnitLabel(BwUnit::kGBps), "GB/s");
  EXPECT_EQ(BwUnitName(BwUnit::kGbps), "Gbps");
  EXPECT_EQ(FormatNumber(ToMicros(100e-6)), "100");
  EXPECT_EQ(FormatNumber(1e-5), "1e-05");
  EXPECT_EQ(FormatTableMicros(12345.6), "12346");
  EXPECT_EQ(FormatTableMicros(250.26), "250.3");
  EXPECT_EQ(FormatTableMicros(5), "5.00");
}

TEST(TablePrinterTest, HeaderNamesSweepRanksNodesBackend) {
  Printer p(Format(OutputFormat::kTable));
  p.printer->Begin(Spec({"all_reduce"}, "both"), Started());
  EXPECT_THAT(p.out.str(), HasSubstr("# fabricpulse sweep s-1: 4 ranks on 2 "
                                     "nodes (node-a, node-b), backend nccl"));
  v1::SweepCommReady ready;
  ready.set_init_seconds(0.123);
  p.printer->CommReady(ready);
  EXPECT_THAT(p.out.str(), HasSubstr("# communicator: new, init 0.123 s\n"));
  ready.set_reused(true);
  p.printer->CommReady(ready);
  EXPECT_THAT(p.out.str(), HasSubstr("# communicator: reused\n"));
}

TEST(TablePrinterTest, RowAppearsOnlyWhenBothPlacementsArrived) {
  Printer p(Format(OutputFormat::kTable));
  p.printer->Begin(Spec({"all_reduce"}, "both"), Started());
  p.printer->Add(Result("all_reduce", kMiB, false, 100e-6));
  EXPECT_TRUE(DataRows(p.out.str()).empty());
  p.printer->Add(Result("all_reduce", kMiB, true, 200e-6, 1));
  // Printed before Finish: rows stream while the sweep runs.
  const std::vector<std::string> rows = DataRows(p.out.str());
  ASSERT_EQ(rows.size(), 1u);
  // busbw = 10.48576 x 2(n-1)/n = 15.73 for 4 ranks; in-place takes 2x.
  EXPECT_EQ(Cells(rows[0]),
            (std::vector<std::string>{"1048576", "262144", "float", "sum", "-1",
                                      "100.0", "10.49", "15.73", "0", "200.0",
                                      "5.24", "7.86", "0", "-"}));
  EXPECT_THAT(p.out.str(), HasSubstr("(GB/s)"));
  EXPECT_THAT(p.out.str(), HasSubstr("(us)"));
}

TEST(TablePrinterTest, AllToAllHasNoInPlaceColumns) {
  Printer p(Format(OutputFormat::kTable));
  p.printer->Begin(Spec({"alltoall"}, "both"), Started());
  p.printer->Add(Result("alltoall", kMiB, false, 100e-6));
  const std::vector<std::string> rows = DataRows(p.out.str());
  ASSERT_EQ(rows.size(), 1u);
  const std::vector<std::string> cells = Cells(rows[0]);
  ASSERT_EQ(cells.size(), 14u);
  EXPECT_EQ(cells[3], "none");  // redop
  EXPECT_EQ(cells[4], "-1");    // root
  for (int i = 9; i < 13; ++i) EXPECT_EQ(cells[i], "N/A") << i;
}

TEST(TablePrinterTest, PlacementDecidesWhichColumnsAreExpected) {
  Printer p(Format(OutputFormat::kTable));
  p.printer->Begin(Spec({"broadcast", "sendrecv"}, "in_place"), Started());
  p.printer->Add(Result("broadcast", kMiB, true, 100e-6));
  // sendrecv has no in-place variant: it runs out of place regardless.
  p.printer->Add(Result("sendrecv", kMiB, false, 100e-6));
  const std::vector<std::string> rows = DataRows(p.out.str());
  ASSERT_EQ(rows.size(), 2u);
  std::vector<std::string> bcast = Cells(rows[0]);
  EXPECT_EQ(bcast[3], "none");
  EXPECT_EQ(bcast[4], "0");
  EXPECT_EQ(bcast[5], "N/A");
  EXPECT_EQ(bcast[9], "100.0");
  std::vector<std::string> sendrecv = Cells(rows[1]);
  EXPECT_EQ(sendrecv[5], "100.0");
  EXPECT_EQ(sendrecv[9], "N/A");
  EXPECT_THAT(p.out.str(), HasSubstr("#\n# broadcast\n"));
  EXPECT_THAT(p.out.str(), HasSubstr("#\n# sendrecv\n"));
}

TEST(TablePrinterTest, GbpsIsEightTimesGBps) {
  Printer p(Format(OutputFormat::kTable, BwUnit::kGbps));
  p.printer->Begin(Spec({"all_reduce"}, "out_of_place"), Started());
  p.printer->Add(Result("all_reduce", kMiB, false, 100e-6));
  const std::vector<std::string> rows = DataRows(p.out.str());
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(Cells(rows[0])[6], "83.89");
  EXPECT_THAT(p.out.str(), HasSubstr("(Gbps)"));
  EXPECT_THAT(p.out.str(), Not(HasSubstr("GB/s")));
}

TEST(TablePrinterTest, RawHasNoUnitsAndPlainNumbers) {
  Printer p(Format(OutputFormat::kTable, BwUnit::kGBps, /*raw=*/true));
  p.printer->Begin(Spec({"all_reduce"}, "out_of_place"), Started());
  p.printer->Add(Result("all_reduce", kMiB, false, 100e-6));
  p.printer->Finish(Finished());
  const std::string text = p.out.str();
  EXPECT_THAT(text, Not(HasSubstr("GB/s")));
  EXPECT_THAT(text, Not(HasSubstr("(us)")));
  const std::vector<std::string> rows = DataRows(text);
  ASSERT_EQ(rows.size(), 1u);
  const std::vector<std::string> cells = Cells(rows[0]);
  EXPECT_EQ(cells[5], "0.000100000");
  EXPECT_EQ(cells[6], "10485760000");
  EXPECT_EQ(cells[7], "15728640000");
}

TEST(TablePrinterTest, FooterAndStatus) {
  Printer p(Format(OutputFormat::kTable));
  p.printer->Begin(Spec({"all_reduce"}, "both"), Started());
  p.printer->Add(Result("all_reduce", kMiB, false, 100e-6));
  p.printer->Add(Result("all_reduce", kMiB, true, 100e-6));
  p.printer->Finish(Finished());
  const std::string text = p.out.str();
  EXPECT_THAT(text, HasSubstr("# Out of bounds values : 0 OK\n"));
  EXPECT_THAT(text, HasSubstr("# Avg bus bandwidth    : 15.7286 GB/s\n"));
  EXPECT_TRUE(absl::EndsWith(text, "#\n# sweep s-1 succeeded\n")) << text;
}

TEST(TablePrinterTest, AverageBusBandwidthIsPerOpNeverMixed) {
  Printer p(Format(OutputFormat::kTable));
  p.printer->Begin(Spec({"all_reduce", "all_gather"}, "out_of_place"),
                   Started());
  p.printer->Add(Result("all_reduce", kMiB, false, 100e-6));
  p.printer->Add(Result("all_gather", kMiB, false, 100e-6));
  p.printer->Finish(Finished());
  const std::string text = p.out.str();
  // 4 ranks, 10.4858 GB/s of algbw each: all_reduce's busbw is 2 (n-1)/n of
  // it, all_gather's (n-1)/n. One line mixing them would say 11.7965 GB/s.
  EXPECT_THAT(
      text, HasSubstr("# Avg bus bandwidth    : 15.7286 GB/s (all_reduce)\n"));
  EXPECT_THAT(
      text, HasSubstr("# Avg bus bandwidth    : 7.86432 GB/s (all_gather)\n"));
  EXPECT_THAT(text, Not(HasSubstr("11.7965")));
  EXPECT_THAT(text, Not(HasSubstr("GB/s\n# Out")));
}

TEST(TablePrinterTest, StragglerIsTheLastLine) {
  Printer p(Format(OutputFormat::kTable));
  p.printer->Begin(Spec({"all_reduce"}, "both"), Started());
  v1::SweepFinished finished = Finished();
  finished.set_straggler("rank 2 (node b) slowest in 9 of 10 steps");
  p.printer->Finish(finished);
  EXPECT_TRUE(absl::EndsWith(p.out.str(),
                             "# sweep s-1 succeeded\n# straggler: rank 2 (node "
                             "b) slowest in 9 of 10 steps\n"))
      << p.out.str();
}

TEST(TablePrinterTest, FailedSweepPrintsPartialRowAndError) {
  Printer p(Format(OutputFormat::kTable));
  p.printer->Begin(Spec({"all_reduce"}, "both"), Started());
  v1::StepResult bad = Result("all_reduce", kMiB, false, 100e-6);
  bad.set_wrong(7);
  p.printer->Add(bad);
  EXPECT_TRUE(DataRows(p.out.str()).empty());
  p.printer->Finish(Finished("failed", "rank 2 lost\nagent node-b gone"));
  const std::string text = p.out.str();
  const std::vector<std::string> rows = DataRows(text);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(Cells(rows[0])[8], "7");
  EXPECT_EQ(Cells(rows[0])[9], "-");  // expected but never came
  EXPECT_THAT(text, HasSubstr("# Out of bounds values : 7 FAILED\n"));
  EXPECT_THAT(text, HasSubstr("# sweep s-1 failed: rank 2 lost\n# agent"));
}

TEST(TablePrinterTest, LateColumnNamesARankLateByTheMargin) {
  Printer p(Format(OutputFormat::kTable));
  p.printer->Begin(Spec({"all_reduce"}, "out_of_place"), Started());
  // 5 ms after the median rank on a 6 ms step: late.
  v1::StepResult late = Result("all_reduce", kMiB, false, 6e-3);
  late.set_last_arrival_rank(3);
  late.set_arrival_lateness_seconds(5e-3);
  p.printer->Add(late);
  // 20 us after the median rank: the ordinary spread, not late.
  v1::StepResult spread = Result("all_reduce", 2 * kMiB, false, 6e-3);
  spread.set_last_arrival_rank(1);
  spread.set_arrival_lateness_seconds(20e-6);
  p.printer->Add(spread);
  const std::vector<std::string> rows = DataRows(p.out.str());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(Cells(rows[0]).back(), "3");
  EXPECT_EQ(Cells(rows[1]).back(), "-");
  EXPECT_THAT(p.out.str(), HasSubstr(" late\n"));
}

TEST(TablePrinterTest, WrongByRankInTheFooterOnlyWhenAny) {
  Printer p(Format(OutputFormat::kTable));
  p.printer->Begin(Spec({"all_reduce"}, "both"), Started());
  v1::StepResult out = Result("all_reduce", kMiB, false, 100e-6);
  out.set_wrong(5);
  (*out.mutable_wrong_by_rank())[2] = 5;
  v1::StepResult in = Result("all_reduce", kMiB, true, 100e-6);
  in.set_wrong(9);
  (*in.mutable_wrong_by_rank())[2] = 1;
  (*in.mutable_wrong_by_rank())[0] = 8;
  p.printer->Add(out);
  p.printer->Add(in);
  p.printer->Finish(Finished());
  EXPECT_THAT(p.out.str(), HasSubstr("# Out of bounds values : 14 FAILED\n# "
                                     "Wrong values by rank : rank 0: 8, rank "
                                     "2: 6\n"));
  Printer clean(Format(OutputFormat::kTable));
  clean.printer->Begin(Spec({"all_reduce"}, "both"), Started());
  clean.printer->Add(Result("all_reduce", kMiB, false, 100e-6));
  clean.printer->Finish(Finished());
  EXPECT_THAT(clean.out.str(), Not(HasSubstr("Wrong values by rank")));
}

TEST(TablePrinterTest, WrongIsNotApplicableWithoutCheck) {
  Printer p(Format(OutputFormat::kTable));
  p.printer->Begin(Spec({"all_reduce"}, "out_of_place", false), Started());
  p.printer->Add(Result("all_reduce", kMiB, false, 100e-6));
  EXPECT_EQ(Cells(DataRows(p.out.str())[0])[8], "N/A");
}

v1::SweepSpec AutoSpec() {
  v1::SweepSpec spec = Spec({"all_reduce", "all_gather"}, "both");
  v1::MaxBytesAuto* a = spec.mutable_max_bytes_auto();
  a->set_fraction(0.05);
  a->set_free_bytes(100ull << 30);
  a->set_least_free("rank 1 (node \"b\", GPU 1)");
  a->set_budget_bytes(5ull << 30);
  v1::OpMaxBytes* ar = a->add_ops();
  ar->set_op("all_reduce");
  ar->set_max_bytes(2ull << 30);
  ar->set_buffer_bytes(4ull << 30);
  v1::OpMaxBytes* ag = a->add_ops();
  ag->set_op("all_gather");
  ag->set_max_bytes(4ull << 30);
  ag->set_buffer_bytes(5ull << 30);
  return spec;
}

TEST(TablePrinterTest, HeaderShowsWhatMaxBytesAutoPicked) {
  Printer p(Format(OutputFormat::kTable));
  p.printer->Begin(AutoSpec(), Started());
  EXPECT_THAT(p.out.str(),
              HasSubstr("# maxBytes auto:0.05: all_reduce 2G, all_gather 4G "
                        "(budget 5 GiB = 0.05 x 100 GiB free on rank 1 (node "
                        "\"b\", GPU 1))\n"));
  Printer plain(Format(OutputFormat::kTable));
  plain.printer->Begin(Spec({"all_reduce"}, "both"), Started());
  EXPECT_THAT(plain.out.str(), Not(HasSubstr("maxBytes auto")));
}

TEST(CsvPrinterTest, QuotesOnlyWhenNeeded) {
  EXPECT_EQ(CsvField("all_reduce"), "all_reduce");
  EXPECT_EQ(CsvField("a,b"), "\"a,b\"");
  EXPECT_EQ(CsvField("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(CsvField("two\nlines"), "\"two\nlines\"");
}

// Everything written to a pipe's write end, once it is closed.
std::string Drain(int read_fd) {
  std::string got;
  char buf[512];
  ssize_t n;
  while ((n = read(read_fd, buf, sizeof(buf))) > 0) got.append(buf, n);
  return got;
}

TEST(ProgressLineTest, OffATerminalAPlainLineEveryTenSecondsAndTheLast) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  absl::Time now = absl::FromUnixSeconds(1000);
  {
    ProgressLine line(fds[1], ProgressMode::kAuto, [&] { return now; });
    EXPECT_TRUE(line.enabled());
    EXPECT_FALSE(line.terminal());
    now += absl::Seconds(2);
    line.Update(1, 5, "all_reduce 1M");  // 2 s in: quiet
    now += absl::Seconds(9);
    line.Update(2, 5, "all_reduce 2M");  // 11 s in: shown
    now += absl::Seconds(3);
    line.Update(3, 5, "all_reduce 4M");  // 3 s after the last line: quiet
    now += absl::Seconds(8);
    line.Update(4, 5, "all_reduce 8M");  // 11 s after it: shown
    now += absl::Seconds(1);
    line.Update(5, 5, "all_reduce 16M");  // the last: shown
    line.Clear();                         // nothing to erase
  }
  close(fds[1]);
  EXPECT_EQ(Drain(fds[0]),
            "fabricpulse: progress: step 2 of 5 (all_reduce 2M), 11.0 s "
            "elapsed, about 16 s left\n"
            "fabricpulse: progress: step 4 of 5 (all_reduce 8M), 22.0 s "
            "elapsed, about 6 s left\n"
            "fabricpulse: progress: step 5 of 5 (all_reduce 16M), 23.0 s "
            "elapsed\n");
  close(fds[0]);
}

TEST(ProgressLineTest, AShortSweepOffATerminalStaysQuiet) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  absl::Time now = absl::FromUnixSeconds(1000);
  {
    ProgressLine line(fds[1], ProgressMode::kAuto, [&] { return now; });
    for (int i = 1; i <= 3; ++i) {
      now += absl::Seconds(2);
      line.Update(i, 3, "x");  // 6 s in all: no line, not even the last
    }
  }
  close(fds[1]);
  EXPECT_EQ(Drain(fds[0]), "");
  close(fds[0]);
}

TEST(ProgressLineTest, AlwaysWritesEveryStepAndNeverNothing) {
  for (ProgressMode mode : {ProgressMode::kAlways, ProgressMode::kNever}) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    absl::Time now = absl::FromUnixSeconds(1000);
    {
      ProgressLine line(fds[1], mode, [&] { return now; });
      for (int i = 1; i <= 3; ++i) {
        now += absl::Seconds(1);
        line.Update(i, 3, "x");
      }
    }
    close(fds[1]);
    const std::string got = Drain(fds[0]);
    close(fds[0]);
    if (mode == ProgressMode::kNever) {
      EXPECT_EQ(got, "");
    } else {
      EXPECT_EQ(std::count(got.begin(), got.end(), '\n'), 3) << got;
    }
  }
}

TEST(ProgressLineTest, ModesParseAndABadOneIsNamed) {
  EXPECT_EQ(*ParseProgressMode("auto"), ProgressMode::kAuto);
  EXPECT_EQ(*ParseProgressMode("always"), ProgressMode::kAlways);
  EXPECT_EQ(*ParseProgressMode("never"), ProgressMode::kNever);
  EXPECT_EQ(ParseProgressMode("sometimes").status().message(),
            "--progress: unknown mode 'sometimes'; allowed: auto, always, "
            "never");
}

TEST(ProgressLineTest, RedrawsInPlaceOnATerminal) {
  const int master = posix_openpt(O_RDWR | O_NOCTTY);
  ASSERT_GE(master, 0);
  ASSERT_EQ(grantpt(master), 0);
  ASSERT_EQ(unlockpt(master), 0);
  const int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
  ASSERT_GE(slave, 0);
  struct winsize size {};
  size.ws_col = 80;
  ASSERT_EQ(ioctl(slave, TIOCSWINSZ, &size), 0);
  {
    ProgressLine line(slave);
    ASSERT_TRUE(line.terminal());
    line.Update(12, 48, "all_reduce 1M");
    line.Update(13, 48, "x");
    line.Clear();
  }
  const std::string want = std::string("\r[12/48] all_reduce 1M") +
                           "\r[13/48] x" + std::string(12, ' ') + "\r" +
                           std::string(9, ' ') + "\r";
  std::string got;
  pollfd pfd{master, POLLIN, 0};
  while (got.size() < want.size() && poll(&pfd, 1, 2000) == 1) {
    char buf[256];
    const ssize_t n = read(master, buf, sizeof(buf));
    if (n <= 0) break;
    got.append(buf, n);
  }
  EXPECT_EQ(got, want);
  close(slave);
  close(master);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::client
