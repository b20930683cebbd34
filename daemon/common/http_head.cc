#include "daemon/common/http_head.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace fabricpulse::common {
namespace {

const char* Reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "Unknown";
  }
}

}  // namespace

std::optional<size_t> HeadEnd(absl::string_view received) {
  size_t crlf = received.find("\r\n\r\n");
  if (crlf != absl::string_view::npos) return crlf + 4;
  // Bare LF line ends, as lenient servers accept them.
  size_t lf = received.find("\n\n");
  if (lf != absl::string_view::npos) return lf + 2;
  return std::nullopt;
}

std::optional<HttpRequest> ParseHead(absl::string_view head) {
  std::vector<absl::string_view> lines = absl::StrSplit(head, '\n');
  if (lines.empty()) return std::nullopt;
  absl::string_view first = absl::StripSuffix(lines[0], "\r");
  std::vector<absl::string_view> parts =
      absl::StrSplit(first, ' ', absl::SkipEmpty());
  if (parts.size() != 3) return std::nullopt;
  if (parts[2] != "HTTP/1.0" && parts[2] != "HTTP/1.1") return std::nullopt;
  if (parts[0].empty() || parts[1].empty() || parts[1][0] != '/') {
    return std::nullopt;
  }
  HttpRequest request;
  request.method = std::string(parts[0]);
  absl::string_view target = parts[1];
  request.path = std::string(target.substr(0, target.find('?')));
  for (size_t i = 1; i < lines.size(); ++i) {
    absl::string_view line = absl::StripSuffix(lines[i], "\r");
    size_t colon = line.find(':');
    if (colon == absl::string_view::npos) continue;
    if (absl::EqualsIgnoreCase(line.substr(0, colon), "authorization")) {
      request.authorization =
          std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)));
    }
  }
  return request;
}

std::string SerializeReply(const HttpReply& reply) {
  std::string out = absl::StrCat(
      "HTTP/1.1 ", reply.status, " ", Reason(reply.status),
      "\r\nContent-Type: ", reply.content_type,
      "\r\nContent-Length: ", reply.body.size(), "\r\nConnection: close\r\n");
  for (const auto& [name, value] : reply.headers) {
    absl::StrAppend(&out, name, ": ", value, "\r\n");
  }
  absl::StrAppend(&out, "\r\n");
  if (!reply.omit_body) absl::StrAppend(&out, reply.body);
  return out;
}

HttpReply PlainReply(int status) {
  HttpReply reply;
  reply.status = status;
  reply.body = absl::StrCat(Reason(status), "\n");
  return reply;
}

std::optional<std::pair<std::string, std::string>> ParseBasicCredentials(
    absl::string_view authorization) {
  absl::string_view value = absl::StripAsciiWhitespace(authorization);
  if (value.size() < 6 ||
      !absl::EqualsIgnoreCase(value.substr(0, 6), "basic ")) {
    return std::nullopt;
  }
  std::string decoded;
  if (!absl::Base64Unescape(absl::StripAsciiWhitespace(value.substr(6)),
                            &decoded)) {
    return std::nullopt;
  }
  size_t colon = decoded.find(':');
  if (colon == std::string::npos) return std::nullopt;
  return std::make_pair(decoded.substr(0, colon), decoded.substr(colon + 1));
}

}  // namespace fabricpulse::common
