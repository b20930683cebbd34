// The request head of an HTTP/1.x request, as the /metrics endpoint reads
// it: the request line and the one header it acts on (Authorization), and
// the reply it writes (status, a few headers, a body; the connection closes
// after it).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace fabricpulse::common {

struct HttpRequest {
  std::string method;         // "GET", "HEAD", ...
  std::string path;           // the target without its query
  std::string authorization;  // the Authorization header's value, or ""
};

struct HttpReply {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // HEAD: the headers (Content-Length included) without the body.
  bool omit_body = false;
};

// Where the head ends in `received` (the index just past the blank line
// that closes it), or nullopt while it is incomplete.
std::optional<size_t> HeadEnd(absl::string_view received);

// Parses a complete head (what HeadEnd delimits). nullopt: not an HTTP/1.0
// or 1.1 request line (the caller answers 400).
std::optional<HttpRequest> ParseHead(absl::string_view head);

// "HTTP/1.1 <status> <reason>", Content-Type, Content-Length,
// Connection: close, the extra headers, then the body.
std::string SerializeReply(const HttpReply& reply);

// A reply of `status` whose body is its reason phrase.
HttpReply PlainReply(int status);

// "user:password" from an Authorization value "Basic <base64>"; nullopt
// for any other scheme or a malformed value.
std::optional<std::pair<std::string, std::string>> ParseBasicCredentials(
    absl::string_view authorization);

}  // namespace fabricpulse::common
