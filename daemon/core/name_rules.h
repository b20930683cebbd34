// The one validator for names and other strings that clients send and that
// reach log lines, metric labels, error messages or the history: node
// names, ids, addresses and free text, plus the quoting every error uses for
// a client's string.
//
// Node names are 1 to 253 characters of [A-Za-z0-9._-], the first a letter
// or a digit. That admits every Kubernetes node name (a DNS-1123 subdomain,
// at most 253 characters) and every hostname (letters, digits, '-', '.';
// some carry upper case or '_'), and nothing that needs quoting in a shell,
// a log line, a Prometheus label or a file name: no control characters, no
// spaces, no '/'.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace fabricpulse::core {

// `text` with every control character (below 0x20, and 0x7f) written as
// \n, \r, \t or \xNN, and a backslash as \\, so that it stays on one line.
std::string EscapeControl(absl::string_view text);

// A client's string for an error message: at most kQuotedPrefixLength of
// its bytes, escaped (bytes of 0x80 and above as \xNN too), in single quotes;
// when cut, "..." and its length follow ("'abcd...' (3145728 bytes)").
std::string QuotePrefix(absl::string_view value);

// Errors: INVALID_ARGUMENT "<field>: <quoted prefix> is N bytes long;
// allowed: 1 to `max` bytes ..." when `value` is longer than `max` (or
// empty, unless `allow_empty`). OK otherwise; the characters are not
// checked.
absl::Status CheckLength(absl::string_view field, absl::string_view value,
                         size_t max, bool allow_empty = false);

// A node name (rule above). Errors: INVALID_ARGUMENT naming `field`, the
// rule, the value's length and, for a bad character, its position.
absl::Status ValidateNodeName(absl::string_view field, absl::string_view value);
bool IsValidNodeName(absl::string_view value);

// An id (sweep, agent, instance, boot, incarnation): up to `max` (default
// kMaxIdLength) of [A-Za-z0-9._:-]; empty only when `allow_empty`. Errors:
// as above.
absl::Status ValidateId(absl::string_view field, absl::string_view value,
                        bool allow_empty, size_t max = 0);

// HOST:PORT as an agent advertises it: 1 to kMaxAddressLength of
// [A-Za-z0-9._:[]%-]. Errors: as above.
absl::Status ValidateAddress(absl::string_view field, absl::string_view value);

// Free text (a backend version): up to `max` printable ASCII characters
// (0x20 to 0x7e). Errors: as above.
absl::Status ValidateText(absl::string_view field, absl::string_view value,
                          size_t max);

}  // namespace fabricpulse::core
