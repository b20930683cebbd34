// One step result as named fields, shared by the JSON and CSV printers so
// that both carry the same columns in the same order, each key naming its
// unit (docs/json.md).
#pragma once

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "client/output/output_options.h"
#include "fabricpulse/v1/coordinator.pb.h"

namespace fabricpulse::client {

// The redop as nccl-tests shows it: "none" for ops that do not reduce
// (all_gather, broadcast, alltoall, sendrecv, gather, scatter), else the
// step's redop. An op name core::ParseOp does not know keeps its redop.
std::string DisplayRedop(const v1::StepKey& step);

struct ResultField {
  enum class Kind {
    kString,   // text, quoted/escaped by the writer
    kLiteral,  // a number or true/false, written as is
    kNull,     // not measured, or a non-finite number: JSON null, empty
               // CSV field
    kObject,   // a JSON object, written as is in JSON and quoted in CSV
  };
  std::string key;
  Kind kind = Kind::kLiteral;
  std::string text;
};

// The key names, in order, with U = MachineBwUnit(options) (units.h):
// index, op, bytes, count, dtype, redop, root, in_place, round,
// time_seconds, algbw_U, busbw_U, wrong, slowest_rank,
// min_rank_time_seconds, mean_rank_time_seconds, max_rank_time_seconds,
// p50_seconds, p99_seconds, wrong_by_rank, last_arrival_rank,
// arrival_lateness_seconds, regression, baseline_sweeps, judged_on,
// baseline_time_seconds, baseline_busbw_U, iterations.
//
// time_seconds and the bandwidths are the slowest rank's (the
// coordinator's figures, which baselines and regressions use);
// --time-across-ranks changes only the table. Null when not measured or
// not known: round (not a pairwise matrix step), mean_rank_time_seconds
// (history stored before it was recorded: never derived), p50_seconds and
// p99_seconds, last_arrival_rank and arrival_lateness_seconds; judged_on,
// baseline_time_seconds and baseline_busbw_U when the step has no baseline
// (baseline_sweeps 0; judged_on is "time" for latency-bound steps, else
// "busbw"); iterations for history stored without it. wrong_by_rank is an
// object of rank (as a string key) to wrong count, only nonzero ranks ({}
// on a clean step).
std::vector<std::string> ResultFieldNames(const OutputOptions& options);

// The fields of `result` in ResultFieldNames(options) order.
std::vector<ResultField> ResultFields(const v1::StepResult& result,
                                      const OutputOptions& options);

// The fields of one pair of a pairwise matrix step, in this order:
// rank_a, rank_b, node_a, node_b, path, time_seconds, algbw_U, busbw_U,
// wrong, flagged.
std::vector<ResultField> PairFields(const v1::PairResult& pair,
                                    const OutputOptions& options);

}  // namespace fabricpulse::client
