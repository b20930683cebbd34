// Plain-text tables whose columns are as wide as their widest cell, so that
// no value overflows into the next column.
#pragma once

#include <string>
#include <vector>

namespace fabricpulse::client {

// `rows[0]` is the header. Every column but the last is padded to its
// widest cell and followed by two spaces; each row ends with a newline (no
// trailing spaces). Rows shorter than the header are padded with empty
// cells. Empty `rows`: "".
std::string AlignedTable(const std::vector<std::vector<std::string>>& rows);

}  // namespace fabricpulse::client
