// The nccl-tests table: a comment header, then per op a block of rows of
// size, count, type, redop, root, out-of-place time/algbw/busbw/#wrong,
// in-place time/algbw/busbw/#wrong and the slowest rank.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "client/output/output_options.h"
#include "client/output/result_printer.h"
#include "daemon/core/sweep_spec.h"

namespace fabricpulse::client {

// A row is printed, and flushed, as soon as every result expected for its
// (op, size) has arrived: out-of-place when the placement is "out_of_place"
// or "both" or the op has no in-place variant; in-place when the placement
// is "in_place" or "both" and the op has one. Columns of a placement that is
// not expected show "N/A"; columns of an expected result that never came
// (a failed sweep; the row is printed at Finish) show "-". #wrong shows
// "N/A" when the spec's check is off. The slowest rank is the out-of-place
// result's, or the in-place one's when there is none.
//
// The header names the backend's version and, when the rank map is known,
// lists the devices as nccl-tests' "# Using devices" block
// (table_devices.h); both come from Describe's context when it is given
// before Begin. The time column and both bandwidths are those of
// `options.time_across_ranks` (table_devices.h's Reported; avg by default,
// as nccl-tests): a result without that time (avg of history stored before
// it was recorded) shows "n/a" and the footer says how many did; "Avg bus
// bandwidth" averages the bandwidths shown. The regressions listed after
// the table are the coordinator's verdicts, on the slowest rank. The moe
// ops' rows are followed, at Finish, by their shape and the bytes each rank
// received by path with their bandwidths (moe_traffic.h).
//
// Bandwidths are in `options.unit` (named in the unit row). With
// `options.raw` there is no unit row, times are in seconds and bandwidths in
// bytes per second, as plain numbers.
//
// With adaptive iterations (the spec's `adaptive`) the header has a line of
// the adaptive settings and every row ends with an "iters" column (the
// iterations used: one count, or OUT/IN when the placements differ).
//
// Finish prints the remaining rows, the nccl-tests footer (out of bounds
// values, average bus bandwidth over all results), the timed iterations
// (total, results, per-result range; when reported) and "# sweep <id>
// <status>" followed by ": <error>" when there is one.
class TablePrinter : public ResultPrinter {
 public:
  TablePrinter(const OutputOptions& options, std::ostream& out);

  void Describe(const SweepContext& context) override;
  void Begin(const v1::SweepSpec& spec,
             const v1::SweepStarted& started) override;
  void CommReady(const v1::SweepCommReady& ready) override;
  void Add(const v1::StepResult& result) override;
  void Finish(const v1::SweepFinished& finished) override;

 private:
  // All results of one (op, size).
  struct Row {
    std::string op;
    uint64_t bytes = 0;
    bool expect_out = true;
    bool expect_in = true;
    std::optional<v1::StepResult> out;
    std::optional<v1::StepResult> in;
  };

  Row NewRow(const v1::StepKey& step) const;
  void PrintRow(const Row& row);
  // The rank that entered the row's collective late, or "-".
  static std::string LateRankCell(const Row& row);
  // The iterations of the row's results: one count, "OUT/IN" when the two
  // placements differ, "-" when not reported.
  static std::string IterationsCell(const Row& row);
  void PrintBlockHeader(absl::string_view op);
  // The four cells of one placement of `row`.
  void AppendHalf(const std::optional<v1::StepResult>& result, bool expected,
                  std::vector<std::string>& cells);
  std::string FormatCells(const std::vector<std::string>& cells) const;

  const OutputOptions options_;
  std::ostream& out_;
  SweepContext context_;
  // Results whose --time-across-ranks time was not recorded.
  int unreported_ = 0;
  core::Placement placement_ = core::Placement::kBoth;
  bool check_ = true;
  bool adaptive_ = false;  // the spec has adaptive iterations
  std::string sweep_id_;
  // Rows with results still to come, in arrival order.
  std::vector<Row> pending_;
  // The op of the block being printed; empty before the first row.
  std::string block_op_;
  // busbw summed per op (bytes per second) in the order the ops first
  // reported: nccl-tests' "Avg bus bandwidth" is one op's; averaging
  // different ops together means nothing. At most the spec's ops.
  struct BusbwSum {
    std::string op;
    double sum = 0;
    int count = 0;
  };
  std::vector<BusbwSum> busbw_by_op_;
  int64_t wrong_total_ = 0;
  // Iterations over the results that reported them.
  int64_t iterations_total_ = 0;
  int iterations_results_ = 0;
  int iterations_min_ = 0;
  int iterations_max_ = 0;
  // Summed per rank over the sweep; at most nranks entries.
  std::map<int, int64_t> wrong_by_rank_;
  // The regressed steps, listed after the table; at most the sweep's step
  // count.
  std::vector<v1::StepResult> regressed_;
  int noisy_ = 0;  // steps whose baseline was too noisy to judge
  // The moe results (at most 3), listed after the table with their traffic
  // (moe_traffic.h) from the spec and the rank map.
  std::vector<v1::StepResult> moe_results_;
  v1::SweepSpec spec_;
  google::protobuf::RepeatedPtrField<v1::RankPlacement> ranks_;
};

}  // namespace fabricpulse::client
