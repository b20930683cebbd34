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

ResultField String(absl::string_view key, absl::string_view text) {
  return {key, ResultField::Kind::kString, std::string(text)};
}

ResultField Integer(absl::string_view key, int64_t value) {
  return {key, ResultField::Kind::kLiteral, absl::StrCat(value)};
}

ResultField Unsigned(absl::string_view key, uint64_t value) {
  return {key, ResultField::Kind::kLiteral, absl::StrCat(value)};
}

ResultField Bool(absl::string_view key, bool value) {
  return {key, ResultField::Kind::kLiteral, value ? "true" : "false"};
}

ResultField Null(absl::string_view key) {
  return {key, ResultField::Kind::kNull, ""};
}

ResultField Number(absl::string_view key, double value) {
  if (!std::isfinite(value)) return {key, ResultField::Kind::kNull, ""};
  return {key, ResultField::Kind::kLiteral, FormatNumber(value)};
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

const std::vector<absl::string_view>& ResultFieldNames() {
  static const auto* const kNames =
      new std::vector<absl::string_view>{"op",
                                         "bytes",
                                         "count",
                                         "dtype",
                                         "redop",
                                         "root",
                                         "in_place",
                                         "time_us",
                                         "algbw_gbps",
                                         "busbw_gbps",
                                         "wrong",
                                         "slowest_rank",
                                         "min_rank_time_us",
                                         "max_rank_time_us",
                                         "p50_us",
                                         "p99_us",
                                         "wrong_by_rank",
                                         "last_arrival_rank",
                                         "arrival_lateness_us",
                                         "regression",
                                         "baseline_sweeps",
                                         "judged_on",
                                         "baseline_time_us",
                                         "baseline_busbw_gbps",
                                         "iterations"};
  return *kNames;
}

std::vector<ResultField> ResultFields(const v1::StepResult& result,
                                      BwUnit unit) {
  const v1::StepKey& step = result.step();
  const bool baseline = result.baseline_sweeps() > 0;
  return {
      String("op", step.op()),
      Unsigned("bytes", step.bytes()),
      Unsigned("count", step.count()),
      String("dtype", step.dtype()),
      String("redop", DisplayRedop(step)),
      Integer("root", step.root()),
      Bool("in_place", step.in_place()),
      Number("time_us", ToMicros(result.time_seconds())),
      Number("algbw_gbps", ToBwUnit(unit, result.algbw_bytes_per_second())),
      Number("busbw_gbps", ToBwUnit(unit, result.busbw_bytes_per_second())),
      Integer("wrong", result.wrong()),
      Integer("slowest_rank", result.slowest_rank()),
      Number("min_rank_time_us", ToMicros(result.min_rank_time_seconds())),
      Number("max_rank_time_us", ToMicros(result.max_rank_time_seconds())),
      result.has_p50_seconds()
          ? Number("p50_us", ToMicros(result.p50_seconds()))
          : Null("p50_us"),
      result.has_p99_seconds()
          ? Number("p99_us", ToMicros(result.p99_seconds()))
          : Null("p99_us"),
      WrongByRank(result),
      result.has_last_arrival_rank()
          ? Integer("last_arrival_rank", result.last_arrival_rank())
          : Null("last_arrival_rank"),
      result.has_arrival_lateness_seconds()
          ? Number("arrival_lateness_us",
                   ToMicros(result.arrival_lateness_seconds()))
          : Null("arrival_lateness_us"),
      Bool("regression", result.regression()),
      Integer("baseline_sweeps", result.baseline_sweeps()),
      baseline ? String("judged_on", JudgedOnTime(result) ? "time" : "busbw")
               : Null("judged_on"),
      baseline
          ? Number("baseline_time_us", ToMicros(result.baseline_time_seconds()))
          : Null("baseline_time_us"),
      baseline
          ? Number("baseline_busbw_gbps",
                   ToBwUnit(unit, result.baseline_busbw_bytes_per_second()))
          : Null("baseline_busbw_gbps"),
      result.iterations() > 0 ? Integer("iterations", result.iterations())
                              : Null("iterations"),
  };
}

}  // namespace fabricpulse::client
