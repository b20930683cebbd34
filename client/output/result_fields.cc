#include "client/output/result_fields.h"

#include <cmath>
#include <cstdint>
#include <map>

#include "absl/strings/str_cat.h"
#include "client/output/baseline_comparison.h"
#include "client/output/units.h"
#include "daemon/core/op_traits.h"

namespace fabricpulse::client {
namespace {

ResultField String(std::string key, absl::string_view text) {
  return {std::move(key), ResultField::Kind::kString, std::string(text)};
}

ResultField Integer(std::string key, int64_t value) {
  return {std::move(key), ResultField::Kind::kLiteral, absl::StrCat(value)};
}

ResultField Unsigned(std::string key, uint64_t value) {
  return {std::move(key), ResultField::Kind::kLiteral, absl::StrCat(value)};
}

ResultField Bool(std::string key, bool value) {
  return {std::move(key), ResultField::Kind::kLiteral,
          value ? "true" : "false"};
}

ResultField Null(std::string key) {
  return {std::move(key), ResultField::Kind::kNull, ""};
}

ResultField Number(std::string key, double value) {
  if (!std::isfinite(value)) return Null(std::move(key));
  return {std::move(key), ResultField::Kind::kLiteral, FormatNumber(value)};
}

// A value that may be absent: Number when `present`, else null.
ResultField Optional(std::string key, bool present, double value) {
  return present ? Number(std::move(key), value) : Null(std::move(key));
}

ResultField WrongByRank(const v1::StepResult& result) {
  // Sorted by rank (a proto map has no order).
  std::map<int32_t, int64_t> sorted(result.wrong_by_rank().begin(),
                                    result.wrong_by_rank().end());
  std::string text = "{";
  for (const auto& [rank, wrong] : sorted) {
    absl::StrAppend(&text, text.size() > 1 ? ", " : "", "\"", rank,
                    "\": ", wrong);
  }
  text += "}";
  return {"wrong_by_rank", ResultField::Kind::kObject, text};
}

}  // namespace

std::string DisplayRedop(const v1::StepKey& step) {
  absl::StatusOr<core::Op> op = core::ParseOp(step.op());
  if (op.ok() && !core::IsReduction(*op)) return "none";
  return step.redop();
}

std::vector<std::string> ResultFieldNames(const OutputOptions& options) {
  std::vector<std::string> names;
  for (const ResultField& field : ResultFields(v1::StepResult(), options)) {
    names.push_back(field.key);
  }
  return names;
}

std::vector<ResultField> ResultFields(const v1::StepResult& result,
                                      const OutputOptions& options) {
  const v1::StepKey& step = result.step();
  const std::string bw(MachineBwUnit(options));
  const bool baseline = result.baseline_sweeps() > 0;
  return {
      Integer("index", step.index()),
      String("op", step.op()),
      Unsigned("bytes", step.bytes()),
      Unsigned("count", step.count()),
      String("dtype", step.dtype()),
      String("redop", DisplayRedop(step)),
      Integer("root", step.root()),
      Bool("in_place", step.in_place()),
      step.has_round() && step.round() >= 0 ? Integer("round", step.round())
                                            : Null("round"),
      Number("time_seconds", result.time_seconds()),
      Number("algbw_" + bw,
             ToMachineBw(options, result.algbw_bytes_per_second())),
      Number("busbw_" + bw,
             ToMachineBw(options, result.busbw_bytes_per_second())),
      result.has_wrong() ? Integer("wrong", result.wrong()) : Null("wrong"),
      Integer("slowest_rank", result.slowest_rank()),
      Number("min_rank_time_seconds", result.min_rank_time_seconds()),
      Optional("mean_rank_time_seconds", result.has_mean_rank_time_seconds(),
               result.mean_rank_time_seconds()),
      Number("max_rank_time_seconds", result.max_rank_time_seconds()),
      Optional("p50_seconds", result.has_p50_seconds(), result.p50_seconds()),
      Optional("p99_seconds", result.has_p99_seconds(), result.p99_seconds()),
      WrongByRank(result),
      result.has_last_arrival_rank()
          ? Integer("last_arrival_rank", result.last_arrival_rank())
          : Null("last_arrival_rank"),
      Optional("arrival_lateness_seconds",
               result.has_arrival_lateness_seconds(),
               result.arrival_lateness_seconds()),
      Bool("regression", result.regression()),
      baseline ? Bool("baseline_noisy", result.baseline_noisy())
               : Null("baseline_noisy"),
      Integer("baseline_sweeps", result.baseline_sweeps()),
      baseline ? String("judged_on", JudgedOnTime(result) ? "time" : "busbw")
               : Null("judged_on"),
      Optional("baseline_time_seconds", baseline,
               result.baseline_time_seconds()),
      Optional("baseline_busbw_" + bw, baseline,
               ToMachineBw(options, result.baseline_busbw_bytes_per_second())),
      result.iterations() > 0 ? Integer("iterations", result.iterations())
                              : Null("iterations"),
  };
}

std::vector<ResultField> PairFields(const v1::PairResult& pair,
                                    const OutputOptions& options) {
  const std::string bw(MachineBwUnit(options));
  return {
      Integer("rank_a", pair.rank_a()),
      Integer("rank_b", pair.rank_b()),
      String("node_a", pair.node_a()),
      String("node_b", pair.node_b()),
      String("path", pair.path()),
      Number("time_seconds", pair.time_seconds()),
      Number("algbw_" + bw,
             ToMachineBw(options, pair.algbw_bytes_per_second())),
      Number("busbw_" + bw,
             ToMachineBw(options, pair.busbw_bytes_per_second())),
      Integer("wrong", pair.wrong()),
      Bool("flagged", pair.flagged()),
  };
}

}  // namespace fabricpulse::client
