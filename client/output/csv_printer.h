// CSV: a header line, then one line per step result as it arrives.
#pragma once

#include <ostream>
#include <string>

#include "absl/strings/string_view.h"
#include "client/output/output_options.h"
#include "client/output/result_printer.h"

namespace fabricpulse::client {

// Columns are ResultFieldNames(options) (result_fields.h), the same keys as
// the JSON document's steps, each naming its unit: times in seconds,
// bandwidths in MachineBwUnit(options) (bytes per second unless --bw-unit
// is given; always with --raw). A pairwise step's pairs are not in CSV (see
// the JSON document).
// The header is written at Begin (or before the first line if Begin was not
// called); each result line is flushed as it is written. Finish writes
// nothing, so the output stays one table; the sweep's status is the caller's
// to report. A non-finite number is an empty field.
class CsvPrinter : public ResultPrinter {
 public:
  CsvPrinter(const OutputOptions& options, std::ostream& out);

  void Begin(const v1::SweepSpec& spec,
             const v1::SweepStarted& started) override;
  void CommReady(const v1::SweepCommReady& ready) override;
  void Add(const v1::StepResult& result) override;
  void Finish(const v1::SweepFinished& finished) override;

 private:
  void MaybeWriteHeader();

  const OutputOptions options_;
  std::ostream& out_;
  bool header_written_ = false;
};

// `field` quoted as RFC 4180 asks only when it holds a comma, quote, CR, LF
// or leading/trailing space; quotes inside are doubled.
std::string CsvField(absl::string_view field);

}  // namespace fabricpulse::client
