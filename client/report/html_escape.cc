#include "client/report/html_escape.h"

#include "absl/strings/ascii.h"

namespace fabricpulse::client::report {

std::string EscapeHtml(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string CssToken(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    out += absl::ascii_isalnum(static_cast<unsigned char>(c))
               ? absl::ascii_tolower(static_cast<unsigned char>(c))
               : '-';
  }
  return out.empty() ? "x" : out;
}

}  // namespace fabricpulse::client::report
