// A small HTTP/1.0 GET client for tests of the /metrics endpoint: plain or
// TLS (OpenSSL), with a CA to verify the server, an optional client
// certificate and optional basic auth; and raw "slow" connections that send
// half a request and stall.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace fabricpulse::testing {

struct HttpGetOptions {
  std::string path = "/metrics";
  bool tls = false;
  std::string ca_file;    // with tls: verify the server (IP 127.0.0.1)
  std::string cert_file;  // with tls: present this client certificate
  std::string key_file;
  bool basic_auth = false;
  std::string user, password;
  absl::Duration timeout = absl::Seconds(10);
};

struct HttpResponse {
  int status = 0;    // e.g. 200, 401
  std::string head;  // status line and headers
  std::string body;
};

// GET https?://`address``path`. Sets SIGPIPE to be ignored in the process.
// Errors: UNAVAILABLE cannot connect, the TLS handshake failed (the message
// says why) or no HTTP answer came; DEADLINE_EXCEEDED no complete answer within
// the timeout.
absl::StatusOr<HttpResponse> HttpGet(const std::string& address,
                                     const HttpGetOptions& options = {});

// A TCP connection to `address` that has sent `prefix` (e.g. half a request
// head) and then nothing. Closes on destruction.
class StalledConnection {
 public:
  static absl::StatusOr<StalledConnection> Open(const std::string& address,
                                                const std::string& prefix);
  StalledConnection(StalledConnection&& other) noexcept;
  StalledConnection& operator=(StalledConnection&&) = delete;
  ~StalledConnection();

  // Waits up to `timeout` for the server to close the connection (EOF or
  // reset; bytes it sends first, such as a 408 answer, are read and
  // dropped). True when it did.
  bool WaitClosedByServer(absl::Duration timeout);

 private:
  explicit StalledConnection(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace fabricpulse::testing
