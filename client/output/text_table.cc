#include "client/output/text_table.h"

#include <algorithm>

namespace fabricpulse::client {

std::string AlignedTable(const std::vector<std::vector<std::string>>& rows) {
  if (rows.empty()) return "";
  const size_t columns = rows[0].size();
  std::vector<size_t> width(columns, 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c < columns && c < row.size(); ++c) {
      width[c] = std::max(width[c], row[c].size());
    }
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < columns; ++c) {
      const std::string cell = c < row.size() ? row[c] : "";
      line += cell;
      if (c + 1 < columns) line.append(width[c] - cell.size() + 2, ' ');
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  }
  return out;
}

}  // namespace fabricpulse::client
