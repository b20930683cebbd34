// A small HTTP/1.x server on one event thread (epoll), for endpoints such
// as /metrics: every connection is non-blocking, so a slow or stalled
// client costs a file descriptor and a few KiB, never a thread. Complete
// requests are answered by a handler on a small pool of threads (it may be
// slow: a bcrypt check, a collection); one request per connection (no
// keep-alive), plain or TLS (OpenSSL, non-blocking).
//
// Bounds (the caller chooses them; metrics_server.h states the daemons'):
// - `max_connections` open at once; a connection accepted when that many
//   are open closes the oldest one that is not being answered, so a new
//   client always gets in however many stall.
// - `request_timeout` from accept to a complete request head (the TLS
//   handshake included; a client that dribbles bytes is cut too), then
//   `write_timeout` for the reply once it is ready.
// - `max_head_bytes` per request head (431 beyond).
// - `handler_threads` threads answer; at most `max_pending` complete
//   requests wait for them (503 beyond).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "daemon/common/http_head.h"

typedef struct ssl_ctx_st SSL_CTX;

namespace fabricpulse::common {

class HttpEventServer {
 public:
  struct Options {
    std::string host;  // a numeric address or a name; "" listens on all
    int port = 0;      // 0 picks a free one
    // TLS when set: not owned, configured by the caller, and it must
    // outlive the server.
    SSL_CTX* tls = nullptr;
    int max_connections = 512;
    absl::Duration request_timeout = absl::Seconds(5);
    absl::Duration write_timeout = absl::Seconds(5);
    size_t max_head_bytes = 16 * 1024;
    int handler_threads = 4;
    int max_pending = 64;
    int listen_backlog = 128;
  };
  // Called on a handler thread for each complete, well-formed request.
  using Handler = std::function<HttpReply(const HttpRequest&)>;

  // Binds, listens and starts the threads. Errors: UNAVAILABLE "cannot
  // listen on HOST:PORT: <reason>"; INTERNAL when the event loop cannot be
  // set up.
  static absl::StatusOr<std::unique_ptr<HttpEventServer>> Start(
      Options options, Handler handler);

  // Stops accepting, closes every connection and joins the threads (a
  // handler that is running is waited for).
  ~HttpEventServer();

  int port() const { return port_; }
  // Connections open now, as the event thread last counted them.
  int open_connections() const;

 private:
  struct Loop;
  HttpEventServer() = default;

  std::unique_ptr<Loop> loop_;
  int port_ = 0;
};

}  // namespace fabricpulse::common
