// The event-driven HTTP server under the /metrics endpoint, on 127.0.0.1:0
// with raw sockets: answers, refusals, the pending bound, the connection
// bound, the timeouts and a prompt stop. And the endpoint's own scrape:
// only the daemons' series (no prometheus-cpp `exposer_*`).
#include "daemon/common/http_event_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "daemon/common/metrics_server.h"
#include "gtest/gtest.h"

namespace fabricpulse::common {
namespace {
namespace FP_UNITY_ID {

// A connected socket to 127.0.0.1:`port` (closed on destruction).
class Client {
 public:
  explicit Client(int port) : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ =
        connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  }
  ~Client() { close(fd_); }
  bool connected() const { return connected_; }
  void Send(const std::string& bytes) {
    ASSERT_EQ(send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(bytes.size()));
  }
  // Everything the server sent until it closed, or nullopt when it has
  // not closed within `timeout` (what came is kept for the next call).
  std::optional<std::string> ReadToClose(absl::Duration timeout) {
    const absl::Time deadline = absl::Now() + timeout;
    char buffer[4096];
    while (absl::Now() < deadline) {
      pollfd p{fd_, POLLIN, 0};
      int ms = static_cast<int>(
          absl::ToInt64Milliseconds(deadline - absl::Now()) + 1);
      if (poll(&p, 1, ms) <= 0) continue;
      ssize_t n = recv(fd_, buffer, sizeof(buffer), 0);
      if (n <= 0) return got_;
      got_.append(buffer, static_cast<size_t>(n));
    }
    return std::nullopt;
  }

 private:
  int fd_;
  bool connected_ = false;
  std::string got_;
};

std::unique_ptr<HttpEventServer> StartOrDie(HttpEventServer::Options options,
                                            HttpEventServer::Handler handler) {
  options.host = "127.0.0.1";
  auto server = HttpEventServer::Start(std::move(options), std::move(handler));
  EXPECT_TRUE(server.ok()) << server.status();
  return server.ok() ? *std::move(server) : nullptr;
}

HttpReply Echo(const HttpRequest& r) {
  HttpReply reply;
  reply.body = absl::StrCat(r.method, " ", r.path, " [", r.authorization, "]");
  return reply;
}

std::string Ask(int port, const std::string& request) {
  Client c(port);
  EXPECT_TRUE(c.connected());
  c.Send(request);
  return c.ReadToClose(absl::Seconds(5)).value_or("(no close)");
}

TEST(HttpEventServerTest, AnswersOneRequestPerConnection) {
  auto server = StartOrDie({}, Echo);
  ASSERT_NE(server, nullptr);
  std::string got = Ask(server->port(),
                        "GET /metrics?a=b HTTP/1.1\r\nAuthorization: Basic "
                        "eDp5\r\n\r\n");
  EXPECT_TRUE(absl::StartsWith(got, "HTTP/1.1 200 OK\r\n")) << got;
  EXPECT_TRUE(absl::EndsWith(got, "GET /metrics [Basic eDp5]")) << got;
  got = Ask(server->port(), "HEAD /x HTTP/1.0\r\n\r\n");
  EXPECT_TRUE(absl::EndsWith(got, "\r\n\r\n")) << got;
  EXPECT_TRUE(absl::StrContains(got, "Content-Length: 10\r\n")) << got;
}

TEST(HttpEventServerTest, BadAndOversizedHeadsAreRefused) {
  HttpEventServer::Options options;
  options.max_head_bytes = 64;
  auto server = StartOrDie(options, Echo);
  ASSERT_NE(server, nullptr);
  EXPECT_TRUE(
      absl::StartsWith(Ask(server->port(), "HELLO\r\n\r\n"), "HTTP/1.1 400 "));
  EXPECT_TRUE(absl::StartsWith(
      Ask(server->port(), "GET / HTTP/1.1\r\nX: " + std::string(100, 'a')),
      "HTTP/1.1 431 "));
}

TEST(HttpEventServerTest, RequestsBeyondThePendingBoundGet503) {
  HttpEventServer::Options options;
  options.handler_threads = 1;
  options.max_pending = 1;
  absl::Notification release, entered;
  auto server = StartOrDie(options, [&](const HttpRequest& r) {
    if (!entered.HasBeenNotified()) entered.Notify();
    release.WaitForNotification();
    return Echo(r);
  });
  ASSERT_NE(server, nullptr);
  Client running(server->port()), second(server->port()), third(server->port());
  running.Send("GET /a HTTP/1.0\r\n\r\n");
  ASSERT_TRUE(entered.WaitForNotificationWithTimeout(absl::Seconds(10)));
  // /a runs; of /b and /c one waits and the other finds the queue full
  // (which one depends on the order the server reads them).
  second.Send("GET /b HTTP/1.0\r\n\r\n");
  third.Send("GET /c HTTP/1.0\r\n\r\n");
  Client* refused = nullptr;
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (refused == nullptr && absl::Now() < deadline) {
    for (Client* c : {&second, &third}) {
      if (c->ReadToClose(absl::Milliseconds(20)).has_value()) refused = c;
    }
  }
  ASSERT_NE(refused, nullptr);
  Client* waiting = refused == &second ? &third : &second;
  auto answer = refused->ReadToClose(absl::Seconds(1));
  EXPECT_TRUE(absl::StartsWith(*answer, "HTTP/1.1 503 ")) << *answer;
  release.Notify();
  auto a = running.ReadToClose(absl::Seconds(10));
  auto w = waiting->ReadToClose(absl::Seconds(10));
  ASSERT_TRUE(a.has_value() && w.has_value());
  EXPECT_TRUE(absl::EndsWith(*a, "GET /a []")) << *a;
  EXPECT_TRUE(absl::StartsWith(*w, "HTTP/1.1 200 ")) << *w;
}

TEST(HttpEventServerTest, AStalledClientIsCutAtTheRequestTimeout) {
  HttpEventServer::Options options;
  options.request_timeout = absl::Milliseconds(300);
  auto server = StartOrDie(options, Echo);
  ASSERT_NE(server, nullptr);
  Client stalled(server->port());
  stalled.Send("GET /metr");
  const absl::Time start = absl::Now();
  auto got = stalled.ReadToClose(absl::Seconds(10));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got, "");
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(250));
}

TEST(HttpEventServerTest, AtTheConnectionBoundTheOldestIsClosedForANewOne) {
  HttpEventServer::Options options;
  options.max_connections = 4;
  auto server = StartOrDie(options, Echo);
  ASSERT_NE(server, nullptr);
  std::vector<std::unique_ptr<Client>> stalled;
  for (int i = 0; i < 4; ++i) {
    stalled.push_back(std::make_unique<Client>(server->port()));
    stalled.back()->Send("G");
  }
  std::string got = Ask(server->port(), "GET / HTTP/1.0\r\n\r\n");
  EXPECT_TRUE(absl::StartsWith(got, "HTTP/1.1 200 ")) << got;
  EXPECT_TRUE(stalled.front()->ReadToClose(absl::Seconds(5)).has_value());
  EXPECT_LE(server->open_connections(), 4);
}

TEST(HttpEventServerTest, StoppingClosesOpenConnectionsPromptly) {
  auto server = StartOrDie({}, Echo);
  ASSERT_NE(server, nullptr);
  Client stalled(server->port());
  stalled.Send("GET /");
  const absl::Time start = absl::Now();
  server.reset();
  EXPECT_LT(absl::Now() - start, absl::Seconds(1));
  EXPECT_TRUE(stalled.ReadToClose(absl::Seconds(1)).has_value());
}

TEST(MetricsEndpointTest, ServesOnlyTheDaemonsSeries) {
  auto metrics = MetricsServer::Start("127.0.0.1:0", "test");
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  const int port = std::stoi(
      (*metrics)->address().substr((*metrics)->address().rfind(':') + 1));
  std::string got = Ask(port, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_TRUE(absl::StartsWith(got, "HTTP/1.1 200 OK\r\n")) << got;
  EXPECT_TRUE(absl::StrContains(got, "text/plain; version=0.0.4")) << got;
  EXPECT_TRUE(absl::StrContains(got, "fabricpulse_build_info{")) << got;
  EXPECT_FALSE(absl::StrContains(got, "exposer_")) << got;
  EXPECT_TRUE(
      absl::StartsWith(Ask(port, "GET / HTTP/1.0\r\n\r\n"), "HTTP/1.1 404 "));
  EXPECT_TRUE(absl::StartsWith(Ask(port, "POST /metrics HTTP/1.0\r\n\r\n"),
                               "HTTP/1.1 405 "));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::common
