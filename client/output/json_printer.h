// JSON: one pretty-printed document (2-space indent) written at Finish.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "client/output/output_options.h"
#include "client/output/result_printer.h"

namespace fabricpulse::client {

// The document:
//   {"sweep_id", "status", "error" (only when non-empty), "nranks",
//    "backend", "nodes": [...], "max_bytes_auto" (only with --max-bytes
//    auto: MaxBytesAutoJson), "bw_unit": "GBps"|"Gbps", "comm_reused",
//    "comm_init_s", "duration_s", "results": [{ResultFieldNames()...}]}
// Bandwidths are in `options.unit`; `options.raw` is ignored (the keys name
// their units). Non-finite numbers are null; so are comm_reused and
// comm_init_s when CommReady never came. Nothing is written before Finish,
// and nothing at all if Finish is never called.
class JsonPrinter : public ResultPrinter {
 public:
  JsonPrinter(const OutputOptions& options, std::ostream& out);

  void Begin(const v1::SweepSpec& spec,
             const v1::SweepStarted& started) override;
  void CommReady(const v1::SweepCommReady& ready) override;
  void Add(const v1::StepResult& result) override;
  void Finish(const v1::SweepFinished& finished) override;

 private:
  const OutputOptions options_;
  std::ostream& out_;
  v1::SweepStarted started_;
  std::string max_bytes_auto_;  // MaxBytesAutoJson of the spec
  std::optional<v1::SweepCommReady> ready_;
  std::vector<v1::StepResult> results_;
};

// `text` as a JSON string literal, quotes included. Escapes '"', '\\' and
// control characters; other bytes (UTF-8) pass through.
std::string JsonString(absl::string_view text);

}  // namespace fabricpulse::client
