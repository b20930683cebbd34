#include "client/output/csv_printer.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "client/output/result_fields.h"

namespace fabricpulse::client {

CsvPrinter::CsvPrinter(const OutputOptions& options, std::ostream& out)
    : options_(options), out_(out) {}

void CsvPrinter::Begin(const v1::SweepSpec& spec,
                       const v1::SweepStarted& started) {
  MaybeWriteHeader();
  out_.flush();
}

void CsvPrinter::CommReady(const v1::SweepCommReady& ready) {}

void CsvPrinter::Add(const v1::StepResult& result) {
  MaybeWriteHeader();
  std::vector<std::string> cells;
  for (const ResultField& field : ResultFields(result, options_)) {
    const bool quoted = field.kind == ResultField::Kind::kString ||
                        field.kind == ResultField::Kind::kObject;
    cells.push_back(quoted ? CsvField(field.text) : field.text);
  }
  out_ << absl::StrJoin(cells, ",") << "\n";
  out_.flush();
}

void CsvPrinter::Finish(const v1::SweepFinished& finished) {
  MaybeWriteHeader();
  out_.flush();
}

void CsvPrinter::MaybeWriteHeader() {
  if (header_written_) return;
  header_written_ = true;
  out_ << absl::StrJoin(ResultFieldNames(options_), ",") << "\n";
}

std::string CsvField(absl::string_view field) {
  const bool needs_quotes =
      field.find_first_of(",\"\r\n") != absl::string_view::npos ||
      (!field.empty() && (field.front() == ' ' || field.back() == ' '));
  if (!needs_quotes) return std::string(field);
  return absl::StrCat("\"", absl::StrReplaceAll(field, {{"\"", "\"\""}}), "\"");
}

}  // namespace fabricpulse::client
