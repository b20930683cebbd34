#include "client/output/result_printer.h"

#include "client/output/csv_printer.h"
#include "client/output/json_printer.h"
#include "client/output/table_printer.h"

namespace fabricpulse::client {

std::unique_ptr<ResultPrinter> ResultPrinter::Create(
    const OutputOptions& options, std::ostream& out) {
  switch (options.format) {
    case OutputFormat::kJson:
      return std::make_unique<JsonPrinter>(options, out);
    case OutputFormat::kCsv:
      return std::make_unique<CsvPrinter>(options, out);
    case OutputFormat::kTable:
      break;
  }
  return std::make_unique<TablePrinter>(options, out);
}

}  // namespace fabricpulse::client
