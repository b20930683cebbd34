#include "tests/integration/http_client.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <memory>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace fabricpulse::testing {
namespace {

absl::StatusOr<int> Connect(const std::string& address,
                            absl::Duration timeout) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("no port in ", address));
  }
  std::string host = address.substr(0, colon);
  if (host.size() > 1 && host.front() == '[')
    host = host.substr(1, host.size() - 2);
  const std::string port = address.substr(colon + 1);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0) {
    return absl::UnavailableError(absl::StrCat("cannot resolve ", address));
  }
  const int fd = socket(found->ai_family, found->ai_socktype | SOCK_CLOEXEC, 0);
  const bool connected =
      fd >= 0 && connect(fd, found->ai_addr, found->ai_addrlen) == 0;
  freeaddrinfo(found);
  if (!connected) {
    if (fd >= 0) close(fd);
    return absl::UnavailableError(absl::StrCat("cannot connect to ", address));
  }
  timeval tv{};
  tv.tv_sec = absl::ToInt64Seconds(timeout);
  tv.tv_usec = absl::ToInt64Microseconds(timeout) % 1000000;
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  return fd;
}

std::string SslError() {
  unsigned long last = 0;
  while (unsigned long e = ERR_get_error()) last = e;
  if (last == 0) return "no OpenSSL error";
  char text[256];
  ERR_error_string_n(last, text, sizeof(text));
  return text;
}

}  // namespace

absl::StatusOr<HttpResponse> HttpGet(const std::string& address,
                                     const HttpGetOptions& options) {
  // A server that refuses the client closes the socket: writing to it must
  // fail, not kill the test with SIGPIPE.
  signal(SIGPIPE, SIG_IGN);
  const absl::Time deadline = absl::Now() + options.timeout;
  absl::StatusOr<int> fd = Connect(address, options.timeout);
  if (!fd.ok()) return fd.status();
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> ctx(nullptr, SSL_CTX_free);
  std::unique_ptr<SSL, decltype(&SSL_free)> ssl(nullptr, SSL_free);
  auto fail = [&](const std::string& why) {
    close(*fd);
    return absl::UnavailableError(why);
  };
  if (options.tls) {
    ctx.reset(SSL_CTX_new(TLS_client_method()));
    if (!options.ca_file.empty()) {
      if (SSL_CTX_load_verify_locations(ctx.get(), options.ca_file.c_str(),
                                        nullptr) != 1) {
        return fail(absl::StrCat("cannot load CA: ", SslError()));
      }
      SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
      X509_VERIFY_PARAM_set1_ip_asc(SSL_CTX_get0_param(ctx.get()), "127.0.0.1");
    }
    if (!options.cert_file.empty() &&
        (SSL_CTX_use_certificate_chain_file(ctx.get(),
                                            options.cert_file.c_str()) != 1 ||
         SSL_CTX_use_PrivateKey_file(ctx.get(), options.key_file.c_str(),
                                     SSL_FILETYPE_PEM) != 1)) {
      return fail(absl::StrCat("cannot load client cert: ", SslError()));
    }
    ssl.reset(SSL_new(ctx.get()));
    SSL_set_fd(ssl.get(), *fd);
    if (SSL_connect(ssl.get()) != 1) {
      return fail(absl::StrCat("TLS handshake failed: ", SslError()));
    }
  }
  std::string request = absl::StrCat("GET ", options.path,
                                     " HTTP/1.0\r\nHost: ", address, "\r\n");
  if (options.basic_auth) {
    absl::StrAppend(
        &request, "Authorization: Basic ",
        absl::Base64Escape(absl::StrCat(options.user, ":", options.password)),
        "\r\n");
  }
  absl::StrAppend(&request, "Connection: close\r\n\r\n");
  const int sent =
      ssl ? SSL_write(ssl.get(), request.data(), request.size())
          : static_cast<int>(write(*fd, request.data(), request.size()));
  if (sent != static_cast<int>(request.size())) {
    return fail(absl::StrCat("cannot send the request",
                             ssl ? absl::StrCat(": ", SslError()) : ""));
  }
  std::string response;
  char buffer[16384];
  bool eof = false;
  while (absl::Now() < deadline) {
    const int n = ssl ? SSL_read(ssl.get(), buffer, sizeof(buffer))
                      : static_cast<int>(read(*fd, buffer, sizeof(buffer)));
    if (n <= 0) {
      eof = true;
      break;
    }
    response.append(buffer, n);
  }
  // A server that refuses the client certificate (TLS 1.3) says so on the
  // first read: keep OpenSSL's reason.
  const std::string read_error = ssl ? SslError() : "";
  close(*fd);
  if (!eof) return absl::DeadlineExceededError("no complete answer in time");
  const size_t head_end = response.find("\r\n\r\n");
  HttpResponse out;
  if (response.rfind("HTTP/1.", 0) != 0 || head_end == std::string::npos ||
      !absl::SimpleAtoi(response.substr(9, 3), &out.status)) {
    return absl::UnavailableError(absl::StrCat(
        "no HTTP answer from ", address, " (", response.size(), " bytes",
        read_error.empty() ? "" : ": " + read_error, ")"));
  }
  out.head = response.substr(0, head_end);
  out.body = response.substr(head_end + 4);
  return out;
}

absl::StatusOr<StalledConnection> StalledConnection::Open(
    const std::string& address, const std::string& prefix) {
  absl::StatusOr<int> fd = Connect(address, absl::Seconds(10));
  if (!fd.ok()) return fd.status();
  if (write(*fd, prefix.data(), prefix.size()) !=
      static_cast<ssize_t>(prefix.size())) {
    close(*fd);
    return absl::UnavailableError("cannot send the prefix");
  }
  return StalledConnection(*fd);
}

StalledConnection::StalledConnection(StalledConnection&& other) noexcept
    : fd_(other.fd_) {
  other.fd_ = -1;
}

StalledConnection::~StalledConnection() {
  if (fd_ >= 0) close(fd_);
}

bool StalledConnection::WaitClosedByServer(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  char buffer[4096];
  while (true) {
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) return false;
    pollfd p{fd_, POLLIN, 0};
    const int ready =
        poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(left)) + 1);
    if (ready <= 0) continue;
    const ssize_t n = recv(fd_, buffer, sizeof(buffer), MSG_DONTWAIT);
    if (n == 0) return true;  // EOF
    if (n < 0 && errno == ECONNRESET) return true;
  }
}

}  // namespace fabricpulse::testing
