#include "client/output/table_printer.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "client/output/baseline_comparison.h"
#include "client/output/max_bytes_auto_text.h"
#include "client/output/moe_traffic.h"
#include "client/output/result_fields.h"
#include "client/output/table_devices.h"
#include "client/output/units.h"
#include "daemon/core/dtype.h"
#include "daemon/core/op_traits.h"
#include "daemon/core/redop.h"
#include "daemon/core/straggler.h"

namespace fabricpulse::client {
namespace {

// Column order: size, count, type, redop, root, then time, algbw, busbw,
// #wrong for out-of-place and again for in-place, then the rank that
// entered the collective late (by the straggler margin, core::LateRank) in
// either placement, "-" when none or not measured; with adaptive
// iterations, last, the iterations used.
constexpr int kKeyColumns = 5;
constexpr int kHalfColumns = 4;
constexpr absl::string_view kSeparator = "  ";
constexpr int kSeparatorWidth = 2;
// Long node lists are cut in the header.
constexpr int kMaxNodesShown = 8;

std::vector<int> ColumnWidths(bool raw, bool adaptive) {
  // nccl-tests' widths, a little wider for Gbps values and for raw numbers
  // (seconds with 9 decimals, bytes per second).
  const int time = raw ? 12 : 8;
  const int bw = raw ? 14 : 8;
  std::vector<int> widths = {12, 12, 8,    6,  6,  time, bw,
                             bw, 6,  time, bw, bw, 6,    7};
  if (adaptive) widths.push_back(9);
  return widths;
}

// Turns a line of header cells into a comment: the first column is right
// aligned and wide, so its first character is a space.
std::string Comment(std::string line) {
  if (!line.empty()) line[0] = '#';
  return line;
}

std::string Center(absl::string_view label, int width) {
  const int left =
      std::max<int>(0, (width - static_cast<int>(label.size())) / 2);
  std::string text = std::string(left, ' ') + std::string(label);
  text.resize(std::max<size_t>(text.size(), width), ' ');
  return text;
}

// The names the rows use ("float" for --dtype fp32); a name the core does
// not know is shown as given.
std::string CanonicalDType(const std::string& name) {
  absl::StatusOr<core::DType> dtype = core::ParseDType(name);
  return dtype.ok() ? std::string(core::DTypeName(*dtype)) : name;
}

std::string CanonicalRedOp(const std::string& name) {
  absl::StatusOr<core::RedOp> redop = core::ParseRedOp(name);
  return redop.ok() ? std::string(core::RedOpName(*redop)) : name;
}

std::string CommentLines(absl::string_view text) {
  return absl::StrReplaceAll(text, {{"\n", "\n# "}});
}

}  // namespace

TablePrinter::TablePrinter(const OutputOptions& options, std::ostream& out)
    : options_(options), out_(out) {}

void TablePrinter::Describe(const SweepContext& context) { context_ = context; }

void TablePrinter::Begin(const v1::SweepSpec& spec,
                         const v1::SweepStarted& started) {
  // An unknown placement is the coordinator's to refuse; show both then.
  placement_ =
      core::ParsePlacement(spec.placement()).value_or(core::Placement::kBoth);
  check_ = spec.check();
  adaptive_ = spec.has_adaptive();
  sweep_id_ = started.sweep_id();
  spec_ = spec;
  ranks_ = started.ranks();
  if (ranks_.empty() && context_.summary) ranks_ = context_.summary->ranks();

  std::vector<std::string> nodes(started.nodes().begin(),
                                 started.nodes().end());
  std::string node_list;
  if (static_cast<int>(nodes.size()) > kMaxNodesShown) {
    const int more = static_cast<int>(nodes.size()) - kMaxNodesShown;
    nodes.resize(kMaxNodesShown);
    node_list =
        absl::StrCat(absl::StrJoin(nodes, ", "), ", ... (+", more, " more)");
  } else {
    node_list = absl::StrJoin(nodes, ", ");
  }
  out_ << absl::StrFormat(
      "# fabricpulse sweep %s: %d ranks on %d node%s (%s), backend %s\n",
      started.sweep_id(), started.nranks(), started.nodes_size(),
      started.nodes_size() == 1 ? "" : "s", node_list, started.backend());
  out_ << BackendVersionLine(started, context_);
  const std::string step = spec.step_bytes() > 0
                               ? absl::StrCat(spec.step_bytes(), "(bytes)")
                               : absl::StrCat(spec.factor(), "(factor)");
  out_ << absl::StrFormat(
      "# ops: %s  minBytes: %d  maxBytes: %d  step: %s  dtype: %s  redop: %s  "
      "root: %d\n",
      absl::StrJoin(spec.ops(), ", "), spec.min_bytes(), spec.max_bytes(), step,
      CanonicalDType(spec.dtype()), CanonicalRedOp(spec.redop()), spec.root());
  out_ << MaxBytesAutoLine(spec);
  out_ << absl::StrFormat(
      "# warmup iters: %d  iters: %s  validation: %d  graph: %d  placement: "
      "%s  fresh comm: %d\n",
      spec.warmup_iters(),
      adaptive_ ? std::string("auto") : absl::StrCat(spec.iters()),
      spec.check(), spec.graph(), spec.placement(), spec.fresh_comm());
  if (adaptive_) {
    // An absent field is its default (the coordinator sends them all).
    const v1::AdaptiveIters& a = spec.adaptive();
    out_ << absl::StrFormat(
        "# adaptive iters: tolerance: %g  min iters: %d  max iters: %d  "
        "step time cap: %s\n",
        a.has_tolerance() ? a.tolerance() : core::kDefaultTolerance,
        a.has_min_iters() ? a.min_iters() : core::kDefaultMinIters,
        a.has_max_iters() ? a.max_iters() : core::kDefaultMaxIters,
        absl::FormatDuration(a.has_step_time_cap_seconds()
                                 ? absl::Seconds(a.step_time_cap_seconds())
                                 : core::kDefaultStepTimeCap));
  }
  out_ << "# time across ranks: "
       << TimeAcrossRanksName(options_.time_across_ranks)
       << " (--time-across-ranks; regressions and gates use the slowest "
          "rank)\n";
  out_ << UsingDevicesBlock(started, context_);
  out_.flush();
}

void TablePrinter::CommReady(const v1::SweepCommReady& ready) {
  if (ready.reused()) {
    out_ << "# communicator: reused\n";
  } else {
    out_ << absl::StrFormat("# communicator: new, init %.3f s\n",
                            ready.init_seconds());
  }
  out_.flush();
}

void TablePrinter::Add(const v1::StepResult& result) {
  const v1::StepKey& step = result.step();
  absl::StatusOr<core::Op> op_kind = core::ParseOp(step.op());
  if (op_kind.ok() && core::IsMoe(*op_kind) && moe_results_.size() < 3) {
    moe_results_.push_back(result);
  }
  const std::optional<ReportedFigures> shown =
      Reported(result, options_.time_across_ranks);
  if (shown && std::isfinite(shown->busbw_bytes_per_second)) {
    auto op = std::find_if(
        busbw_by_op_.begin(), busbw_by_op_.end(),
        [&](const BusbwSum& b) { return b.op == result.step().op(); });
    if (op == busbw_by_op_.end()) {
      busbw_by_op_.push_back({result.step().op()});
      op = busbw_by_op_.end() - 1;
    }
    op->sum += shown->busbw_bytes_per_second;
    ++op->count;
  }
  wrong_total_ += result.wrong();
  if (result.iterations() > 0) {
    iterations_total_ += result.iterations();
    iterations_min_ = iterations_results_ == 0
                          ? result.iterations()
                          : std::min(iterations_min_, result.iterations());
    iterations_max_ = std::max(iterations_max_, result.iterations());
    ++iterations_results_;
  }
  for (const auto& [rank, wrong] : result.wrong_by_rank()) {
    wrong_by_rank_[rank] += wrong;
  }
  if (result.regression()) regressed_.push_back(result);
  if (result.baseline_noisy()) ++noisy_;

  const bool in_place = step.in_place();
  auto it = std::find_if(pending_.begin(), pending_.end(), [&](const Row& r) {
    return r.op == step.op() && r.bytes == step.bytes() &&
           !(in_place ? r.in : r.out).has_value();
  });
  if (it == pending_.end()) {
    pending_.push_back(NewRow(step));
    it = pending_.end() - 1;
  }
  // A result the placement did not announce is still shown.
  if (in_place) {
    it->in = result;
    it->expect_in = true;
  } else {
    it->out = result;
    it->expect_out = true;
  }
  if ((!it->expect_out || it->out) && (!it->expect_in || it->in)) {
    const Row row = std::move(*it);
    pending_.erase(it);
    PrintRow(row);
  }
}

void TablePrinter::Finish(const v1::SweepFinished& finished) {
  for (const Row& row : pending_) PrintRow(row);
  pending_.clear();

  out_ << absl::StrFormat("# Out of bounds values : %d %s\n", wrong_total_,
                          wrong_total_ == 0 ? "OK" : "FAILED");
  if (!wrong_by_rank_.empty()) {
    std::vector<std::string> ranks;
    for (const auto& [rank, wrong] : wrong_by_rank_) {
      ranks.push_back(absl::StrCat("rank ", rank, ": ", wrong));
    }
    out_ << "# Wrong values by rank : " << absl::StrJoin(ranks, ", ") << "\n";
  }
  if (busbw_by_op_.empty()) out_ << "# Avg bus bandwidth    : N/A\n";
  // One line per op (nccl-tests runs one op per run); with several ops
  // each line names its op.
  for (const BusbwSum& b : busbw_by_op_) {
    const double mean = b.sum / b.count;
    out_ << "# Avg bus bandwidth    : "
         << (options_.raw
                 ? absl::StrFormat("%.0f B/s", mean)
                 : absl::StrFormat("%g %s", ToBwUnit(options_.unit, mean),
                                   BwUnitLabel(options_.unit)))
         << (busbw_by_op_.size() > 1 ? absl::StrCat(" (", b.op, ")") : "")
         << "\n";
  }
  if (unreported_ > 0) {
    out_ << absl::StrFormat(
        "# Time across ranks   : %s not recorded for %d result(s) (stored "
        "before it was): shown as n/a; --time-across-ranks max shows them\n",
        TimeAcrossRanksName(options_.time_across_ranks), unreported_);
  }
  if (iterations_results_ > 0) {
    out_ << absl::StrFormat(
        "# Timed iterations     : %d in %d results, %s per result\n",
        iterations_total_, iterations_results_,
        iterations_min_ == iterations_max_
            ? absl::StrCat(iterations_min_)
            : absl::StrCat(iterations_min_, " to ", iterations_max_));
  }
  for (const std::string& line :
       MoeTableLines(spec_, ranks_, moe_results_, options_)) {
    out_ << line << "\n";
  }
  out_ << absl::StrFormat("# Sweep duration       : %.3f s\n",
                          finished.duration_seconds());
  out_ << "#\n";
  const std::string& id =
      finished.sweep_id().empty() ? sweep_id_ : finished.sweep_id();
  out_ << "# sweep " << id << " " << finished.status();
  if (!finished.error().empty()) {
    out_ << ": " << CommentLines(finished.error());
  }
  out_ << "\n";
  if (!finished.straggler().empty()) {
    out_ << "# straggler: " << finished.straggler() << "\n";
  }
  if (!regressed_.empty()) {
    out_ << "# " << regressed_.size()
         << " step(s) regressed against their baseline:\n";
    for (const v1::StepResult& r : regressed_) {
      out_ << "#   " << DescribeComparison(r, options_.unit) << "\n";
    }
  }
  if (noisy_ > 0) {
    out_ << "# " << noisy_
         << " step(s) with a baseline too noisy to judge a drop to the "
            "regression threshold (3 spreads are more than that drop; "
            "baseline_noisy in JSON)\n";
  }
  out_.flush();
}

TablePrinter::Row TablePrinter::NewRow(const v1::StepKey& step) const {
  Row row;
  row.op = step.op();
  row.bytes = step.bytes();
  // An op name we do not know: assume it has an in-place variant and let
  // the placement decide.
  const absl::StatusOr<core::Op> op = core::ParseOp(step.op());
  const bool has_in_place = !op.ok() || core::SupportsInPlace(*op);
  row.expect_out = placement_ != core::Placement::kInPlace || !has_in_place;
  row.expect_in = placement_ != core::Placement::kOutOfPlace && has_in_place;
  return row;
}

void TablePrinter::PrintRow(const Row& row) {
  if (block_op_.empty() || block_op_ != row.op) PrintBlockHeader(row.op);
  const v1::StepResult& any = row.out ? *row.out : *row.in;
  const v1::StepKey& step = any.step();
  std::vector<std::string> cells = {
      absl::StrCat(step.bytes()), absl::StrCat(step.count()), step.dtype(),
      DisplayRedop(step), absl::StrCat(step.root())};
  AppendHalf(row.out, row.expect_out, cells);
  AppendHalf(row.in, row.expect_in, cells);
  cells.push_back(LateRankCell(row));
  if (adaptive_) cells.push_back(IterationsCell(row));
  out_ << FormatCells(cells) << "\n";
  out_.flush();
}

std::string TablePrinter::LateRankCell(const Row& row) {
  for (const std::optional<v1::StepResult>& r : {row.out, row.in}) {
    if (!r || !r->has_last_arrival_rank() ||
        !r->has_arrival_lateness_seconds()) {
      continue;
    }
    core::MergedStep m;
    m.time_seconds = r->time_seconds();
    m.last_arrival_rank = r->last_arrival_rank();
    m.arrival_lateness_seconds = r->arrival_lateness_seconds();
    if (std::optional<int> late = core::LateRank(m)) {
      return absl::StrCat(*late);
    }
  }
  return "-";
}

std::string TablePrinter::IterationsCell(const Row& row) {
  const int out = row.out ? row.out->iterations() : 0;
  const int in = row.in ? row.in->iterations() : 0;
  if (out > 0 && in > 0 && out != in) return absl::StrCat(out, "/", in);
  if (out > 0) return absl::StrCat(out);
  if (in > 0) return absl::StrCat(in);
  return "-";
}

void TablePrinter::PrintBlockHeader(absl::string_view op) {
  block_op_ = std::string(op);
  const std::vector<int> widths = ColumnWidths(options_.raw, adaptive_);
  int key_width = 0;
  for (int i = 0; i < kKeyColumns; ++i) {
    key_width += widths[i] + (i > 0 ? kSeparatorWidth : 0);
  }
  int half_width = 0;
  for (int i = kKeyColumns; i < kKeyColumns + kHalfColumns; ++i) {
    half_width += kSeparatorWidth + widths[i];
  }
  std::string banner = std::string(key_width, ' ') +
                       Center("out-of-place", half_width) +
                       Center("in-place", half_width);
  banner.erase(banner.find_last_not_of(' ') + 1);

  out_ << "#\n# " << op << "\n";
  out_ << Comment(banner) << "\n";
  std::vector<std::string> names = {
      "size",  "count",  "type", "redop", "root",  "time",   "algbw",
      "busbw", "#wrong", "time", "algbw", "busbw", "#wrong", "late"};
  if (adaptive_) names.push_back("iters");
  out_ << Comment(FormatCells(names)) << "\n";
  if (!options_.raw) {
    const std::string bw = absl::StrCat("(", BwUnitLabel(options_.unit), ")");
    std::vector<std::string> units = {"(B)",  "(elements)", "", "",      "",
                                      "(us)", bw,           bw, "",      "(us)",
                                      bw,     bw,           "", "(rank)"};
    if (adaptive_) units.push_back("(out/in)");
    out_ << Comment(FormatCells(units)) << "\n";
  }
}

void TablePrinter::AppendHalf(const std::optional<v1::StepResult>& result,
                              bool expected, std::vector<std::string>& cells) {
  if (!result) {
    const char* absent = expected ? "-" : "N/A";
    cells.insert(cells.end(), kHalfColumns, absent);
    return;
  }
  const std::optional<ReportedFigures> shown =
      Reported(*result, options_.time_across_ranks);
  if (!shown) {
    ++unreported_;
    cells.insert(cells.end(), kHalfColumns - 1, "n/a");
  } else if (options_.raw) {
    cells.push_back(absl::StrFormat("%.9f", shown->time_seconds));
    cells.push_back(absl::StrFormat("%.0f", shown->algbw_bytes_per_second));
    cells.push_back(absl::StrFormat("%.0f", shown->busbw_bytes_per_second));
  } else {
    cells.push_back(FormatTableMicros(ToMicros(shown->time_seconds)));
    cells.push_back(absl::StrFormat(
        "%.2f", ToBwUnit(options_.unit, shown->algbw_bytes_per_second)));
    cells.push_back(absl::StrFormat(
        "%.2f", ToBwUnit(options_.unit, shown->busbw_bytes_per_second)));
  }
  // N/A when not checked, also for results stored by a sweep that did not
  // check (the result carries no count then).
  cells.push_back(check_ && result->has_wrong() ? absl::StrCat(result->wrong())
                                                : "N/A");
}

std::string TablePrinter::FormatCells(
    const std::vector<std::string>& cells) const {
  const std::vector<int> widths = ColumnWidths(options_.raw, adaptive_);
  std::string line;
  for (size_t i = 0; i < widths.size() && i < cells.size(); ++i) {
    if (i > 0) absl::StrAppend(&line, kSeparator);
    absl::StrAppendFormat(&line, "%*s", widths[i], cells[i]);
  }
  line.erase(line.find_last_not_of(' ') + 1);
  return line;
}

}  // namespace fabricpulse::client
