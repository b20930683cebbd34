// One step result as named fields, shared by the JSON and CSV printers so
// that both carry the same columns in the same order.
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
  absl::string_view key;
  Kind kind = Kind::kLiteral;
  std::string text;
};

// The key names, in order: op, bytes, count, dtype, redop, root, in_place,
// time_us, algbw_gbps, busbw_gbps, wrong, slowest_rank, min_rank_time_us,
// max_rank_time_us, p50_us, p99_us, wrong_by_rank, last_arrival_rank,
// arrival_lateness_us, regression, baseline_sweeps, judged_on,
// baseline_time_us, baseline_busbw_gbps, iterations. p50_us, p99_us,
// last_arrival_rank and
// arrival_lateness_us are null when not measured; wrong_by_rank is an
// object of rank (as a string key) to wrong count, only nonzero ranks ({}
// on a clean step). Of the baseline fields,
// judged_on, baseline_time_us and baseline_busbw_gbps are null (empty in
// CSV) when the step has no baseline (baseline_sweeps 0); judged_on is
// "time" for latency-bound steps, else "busbw". iterations is the timed
// iterations every rank ran (the spec's iters, or what adaptive iteration
// counts chose); null for history stored without it.
const std::vector<absl::string_view>& ResultFieldNames();

// The fields of `result` in ResultFieldNames() order. Times are in
// microseconds; algbw_gbps and busbw_gbps are in `unit` (GB/s or Gbit/s).
std::vector<ResultField> ResultFields(const v1::StepResult& result,
                                      BwUnit unit);

}  // namespace fabricpulse::client
