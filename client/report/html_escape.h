// Text from data (op names, node names, errors, plans) goes into the report
// only through these: nothing read from the coordinator is written raw.
#pragma once

#include <string>

#include "absl/strings/string_view.h"

namespace fabricpulse::client::report {

// `text` with & < > " ' replaced by entities: safe in element content and
// in quoted attribute values.
std::string EscapeHtml(absl::string_view text);

// `text` made into an id or class token: ASCII letters and digits kept
// (lowered), everything else '-'; "x" when empty. Distinct inputs may map
// to the same token; callers that need unique ids add an index.
std::string CssToken(absl::string_view text);

}  // namespace fabricpulse::client::report
