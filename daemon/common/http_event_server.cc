#include "daemon/common/http_event_server.h"

#include <fcntl.h>
#include <netdb.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <exception>
#include <limits>
#include <thread>
#include <unordered_map>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "daemon/common/address.h"

namespace fabricpulse::common {
namespace {

using SteadyClock = std::chrono::steady_clock;
constexpr SteadyClock::time_point kNever = SteadyClock::time_point::max();
constexpr size_t kReadChunk = 4096;

SteadyClock::duration ToSteady(absl::Duration d) {
  return std::chrono::duration_cast<SteadyClock::duration>(
      absl::ToChronoNanoseconds(d));
}

// A peer that vanishes mid-write must not kill the process (the daemons
// ignore SIGPIPE already; a test binary may not).
void IgnoreSigpipeIfDefault() {
  struct sigaction current {};
  if (sigaction(SIGPIPE, nullptr, &current) != 0) return;
  if (current.sa_handler != SIG_DFL) return;
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, nullptr);
}

absl::StatusOr<int> Listen(const std::string& host, int port, int backlog) {
  const std::string where = JoinHostPort(host, port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = absl::StrCat(port);
  int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(),
                       &hints, &found);
  if (rc != 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", where, ": ", gai_strerror(rc)));
  }
  std::string reason = "no address";
  int fd = -1;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                a->ai_protocol);
    if (fd < 0) {
      reason = std::strerror(errno);
      continue;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, backlog) == 0) {
      break;
    }
    reason = std::strerror(errno);
    close(fd);
    fd = -1;
  }
  freeaddrinfo(found);
  if (fd < 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", where, ": ", reason));
  }
  return fd;
}

int BoundPort(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return 0;
  if (addr.ss_family == AF_INET6) {
    return ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
  }
  return ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
}

}  // namespace

// Named (not anonymous): HttpEventServer::Loop holds them.
namespace http_event_detail {

enum class Phase { kHandshake, kHead, kAnswering, kWrite };

struct Connection {
  int fd = -1;
  uint64_t id = 0;
  SSL* ssl = nullptr;
  Phase phase = Phase::kHead;
  std::string in;
  std::string out;
  size_t written = 0;
  SteadyClock::time_point opened;
  SteadyClock::time_point deadline = kNever;
  uint32_t interest = 0;  // epoll events asked for; 0: not registered
};

}  // namespace http_event_detail

namespace {

using http_event_detail::Connection;
using http_event_detail::Phase;

// What one non-blocking read or write step came to.
enum class Io { kProgress, kWantRead, kWantWrite, kClosed };

Io ErrorOf(Connection& c, int rc) {
  if (c.ssl != nullptr) {
    switch (SSL_get_error(c.ssl, rc)) {
      case SSL_ERROR_WANT_READ:
        return Io::kWantRead;
      case SSL_ERROR_WANT_WRITE:
        return Io::kWantWrite;
      default:
        ERR_clear_error();
        return Io::kClosed;
    }
  }
  if (rc < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return Io::kWantRead;
  if (rc < 0 && errno == EINTR) return Io::kProgress;
  return Io::kClosed;
}

Io ReadSome(Connection& c) {
  char buffer[kReadChunk];
  int rc = c.ssl != nullptr
               ? SSL_read(c.ssl, buffer, sizeof(buffer))
               : static_cast<int>(recv(c.fd, buffer, sizeof(buffer), 0));
  if (rc > 0) {
    c.in.append(buffer, static_cast<size_t>(rc));
    return Io::kProgress;
  }
  if (rc == 0 && c.ssl == nullptr) return Io::kClosed;
  return ErrorOf(c, rc);
}

Io WriteSome(Connection& c) {
  const char* data = c.out.data() + c.written;
  const size_t left = c.out.size() - c.written;
  int rc = c.ssl != nullptr
               ? SSL_write(c.ssl, data, static_cast<int>(left))
               : static_cast<int>(send(c.fd, data, left, MSG_NOSIGNAL));
  if (rc > 0) {
    c.written += static_cast<size_t>(rc);
    return Io::kProgress;
  }
  Io io = ErrorOf(c, rc);
  // A plain socket that cannot take more waits for EPOLLOUT.
  if (c.ssl == nullptr && io == Io::kWantRead) return Io::kWantWrite;
  return io;
}

}  // namespace

using http_event_detail::Connection;
using http_event_detail::Phase;

struct HttpEventServer::Loop {
  Options options;
  Handler handler;
  int listen_fd = -1;
  int epoll_fd = -1;
  int wake_fd = -1;
  std::atomic<int> open{0};

  // Event thread only.
  std::unordered_map<int, std::unique_ptr<Connection>> connections;
  uint64_t next_id = 1;

  struct Job {
    int fd = -1;
    uint64_t id = 0;
    HttpRequest request;
  };
  struct Done {
    int fd = -1;
    uint64_t id = 0;
    std::string bytes;
  };
  absl::Mutex mu;
  std::deque<Job> jobs ABSL_GUARDED_BY(mu);
  std::vector<Done> done ABSL_GUARDED_BY(mu);
  bool stopping ABSL_GUARDED_BY(mu) = false;

  std::thread event_thread;
  std::vector<std::thread> handler_threads;

  bool HasWorkOrStopping() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    return stopping || !jobs.empty();
  }

  ~Loop() {
    for (auto& [fd, c] : connections) {
      if (c->ssl != nullptr) SSL_free(c->ssl);
      close(fd);
    }
    for (int fd : {listen_fd, epoll_fd, wake_fd}) {
      if (fd >= 0) close(fd);
    }
  }

  void Wake() {
    uint64_t one = 1;
    ssize_t n = write(wake_fd, &one, sizeof(one));
    (void)n;
  }

  void Watch(Connection& c, uint32_t events) {
    if (c.interest == events) return;
    epoll_event ev{};
    ev.events = events;
    ev.data.fd = c.fd;
    int op = c.interest == 0 ? EPOLL_CTL_ADD
                             : (events == 0 ? EPOLL_CTL_DEL : EPOLL_CTL_MOD);
    epoll_ctl(epoll_fd, op, c.fd, &ev);
    c.interest = events;
  }

  void Close(Connection& c) {
    Watch(c, 0);
    if (c.ssl != nullptr) SSL_free(c.ssl);
    const int fd = c.fd;
    close(fd);
    connections.erase(fd);
    open.store(static_cast<int>(connections.size()));
  }

  void Reply(Connection& c, const HttpReply& reply) {
    c.out = SerializeReply(reply);
    c.written = 0;
    c.phase = Phase::kWrite;
    c.deadline = SteadyClock::now() + ToSteady(options.write_timeout);
  }

  // Hands a complete head to the handler threads (or answers it here).
  void Dispatch(Connection& c, size_t head_end) {
    std::optional<HttpRequest> request =
        ParseHead(absl::string_view(c.in).substr(0, head_end));
    if (!request) return Reply(c, PlainReply(400));
    {
      absl::MutexLock lock(&mu);
      if (static_cast<int>(jobs.size()) < options.max_pending) {
        jobs.push_back(Job{c.fd, c.id, *std::move(request)});
        c.phase = Phase::kAnswering;
        c.deadline = kNever;
        c.in.clear();
        return;
      }
    }
    Reply(c, PlainReply(503));
  }

  // Moves `c` as far as its socket allows; it may be closed on return.
  void Progress(Connection& c) {
    Io io = Io::kProgress;
    if (c.phase == Phase::kHandshake) {
      ERR_clear_error();
      int rc = SSL_accept(c.ssl);
      if (rc == 1) {
        c.phase = Phase::kHead;
      } else {
        io = ErrorOf(c, rc);
      }
    }
    while (io == Io::kProgress && c.phase == Phase::kHead) {
      io = ReadSome(c);
      if (std::optional<size_t> end = HeadEnd(c.in)) {
        if (*end > options.max_head_bytes) {
          Reply(c, PlainReply(431));
        } else {
          Dispatch(c, *end);
        }
        io = Io::kProgress;
      } else if (c.in.size() > options.max_head_bytes) {
        Reply(c, PlainReply(431));
        io = Io::kProgress;
      }
    }
    while (io == Io::kProgress && c.phase == Phase::kWrite) {
      if (c.written == c.out.size()) {
        if (c.ssl != nullptr) SSL_shutdown(c.ssl);  // best effort
        return Close(c);
      }
      io = WriteSome(c);
    }
    switch (io) {
      case Io::kClosed:
        return Close(c);
      case Io::kWantRead:
        return Watch(c, EPOLLIN);
      case Io::kWantWrite:
        return Watch(c, EPOLLOUT);
      case Io::kProgress:  // answering: nothing to watch until the reply
        return Watch(c, 0);
    }
  }

  // The oldest connection not being answered, closed to make room.
  bool EvictOldest() {
    Connection* oldest = nullptr;
    for (auto& [fd, c] : connections) {
      if (c->phase == Phase::kAnswering) continue;
      if (oldest == nullptr || c->opened < oldest->opened) oldest = c.get();
    }
    if (oldest == nullptr) return false;
    Close(*oldest);
    return true;
  }

  void AcceptAll() {
    while (true) {
      int fd =
          accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        if ((errno == EMFILE || errno == ENFILE) && EvictOldest()) continue;
        return;  // EAGAIN, or nothing left to free
      }
      if (static_cast<int>(connections.size()) >= options.max_connections &&
          !EvictOldest()) {
        close(fd);
        continue;
      }
      auto c = std::make_unique<Connection>();
      c->fd = fd;
      c->id = next_id++;
      c->opened = SteadyClock::now();
      c->deadline = c->opened + ToSteady(options.request_timeout);
      if (options.tls != nullptr) {
        c->ssl = SSL_new(options.tls);
        if (c->ssl == nullptr || SSL_set_fd(c->ssl, fd) != 1) {
          if (c->ssl != nullptr) SSL_free(c->ssl);
          ERR_clear_error();
          close(fd);
          continue;
        }
        SSL_set_mode(c->ssl, SSL_MODE_ENABLE_PARTIAL_WRITE |
                                 SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
        SSL_set_accept_state(c->ssl);
        c->phase = Phase::kHandshake;
      }
      Connection& ref = *c;
      connections[fd] = std::move(c);
      open.store(static_cast<int>(connections.size()));
      Watch(ref, EPOLLIN);
    }
  }

  void TakeReplies() {
    std::vector<Done> ready;
    {
      absl::MutexLock lock(&mu);
      ready.swap(done);
    }
    for (Done& d : ready) {
      auto it = connections.find(d.fd);
      if (it == connections.end() || it->second->id != d.id) continue;
      Connection& c = *it->second;
      c.out = std::move(d.bytes);
      c.written = 0;
      c.phase = Phase::kWrite;
      c.deadline = SteadyClock::now() + ToSteady(options.write_timeout);
      Progress(c);
    }
  }

  // Closes the connections past their deadline; the wait until the next.
  int ExpireAndNextWaitMs() {
    const SteadyClock::time_point now = SteadyClock::now();
    SteadyClock::time_point next = kNever;
    std::vector<int> expired;
    for (auto& [fd, c] : connections) {
      if (c->deadline <= now) {
        expired.push_back(fd);
      } else if (c->deadline < next) {
        next = c->deadline;
      }
    }
    for (int fd : expired) Close(*connections[fd]);
    if (next == kNever) return -1;
    auto ms = std::chrono::ceil<std::chrono::milliseconds>(next - now).count();
    return static_cast<int>(std::min<int64_t>(ms, 60000));
  }

  void RunEvents() {
    std::vector<epoll_event> events(64);
    while (true) {
      const int wait_ms = ExpireAndNextWaitMs();
      int n = epoll_wait(epoll_fd, events.data(),
                         static_cast<int>(events.size()), wait_ms);
      if (n < 0 && errno != EINTR) return;
      for (int i = 0; i < n; ++i) {
        const int fd = events[i].data.fd;
        if (fd == wake_fd) {
          uint64_t count = 0;
          ssize_t r = read(wake_fd, &count, sizeof(count));
          (void)r;
          {
            absl::MutexLock lock(&mu);
            if (stopping) return;
          }
          TakeReplies();
        } else if (fd == listen_fd) {
          AcceptAll();
        } else if (auto it = connections.find(fd); it != connections.end()) {
          Progress(*it->second);
        }
      }
    }
  }

  void RunHandler() {
    while (true) {
      Job job;
      {
        absl::MutexLock lock(&mu);
        mu.Await(absl::Condition(this, &Loop::HasWorkOrStopping));
        if (stopping) return;
        job = std::move(jobs.front());
        jobs.pop_front();
      }
      HttpReply reply;
      try {
        reply = handler(job.request);
      } catch (const std::exception&) {
        reply = PlainReply(500);
      }
      if (job.request.method == "HEAD") reply.omit_body = true;
      std::string bytes = SerializeReply(reply);
      {
        absl::MutexLock lock(&mu);
        done.push_back(Done{job.fd, job.id, std::move(bytes)});
      }
      Wake();
    }
  }
};

absl::StatusOr<std::unique_ptr<HttpEventServer>> HttpEventServer::Start(
    Options options, Handler handler) {
  IgnoreSigpipeIfDefault();
  std::unique_ptr<HttpEventServer> server(new HttpEventServer());
  server->loop_ = std::make_unique<Loop>();
  Loop& loop = *server->loop_;
  loop.options = std::move(options);
  loop.handler = std::move(handler);
  auto fd =
      Listen(loop.options.host, loop.options.port, loop.options.listen_backlog);
  if (!fd.ok()) return fd.status();
  loop.listen_fd = *fd;
  server->port_ = BoundPort(loop.listen_fd);
  loop.epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  loop.wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (loop.epoll_fd < 0 || loop.wake_fd < 0) {
    return absl::InternalError(absl::StrCat(
        "http server: cannot set up epoll: ", std::strerror(errno)));
  }
  for (int watched : {loop.listen_fd, loop.wake_fd}) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = watched;
    epoll_ctl(loop.epoll_fd, EPOLL_CTL_ADD, watched, &ev);
  }
  loop.event_thread = std::thread([&loop] { loop.RunEvents(); });
  for (int i = 0; i < loop.options.handler_threads; ++i) {
    loop.handler_threads.emplace_back([&loop] { loop.RunHandler(); });
  }
  return server;
}

HttpEventServer::~HttpEventServer() {
  if (loop_ == nullptr) return;
  {
    absl::MutexLock lock(&loop_->mu);
    loop_->stopping = true;
  }
  loop_->Wake();
  if (loop_->event_thread.joinable()) loop_->event_thread.join();
  for (std::thread& t : loop_->handler_threads) t.join();
}

int HttpEventServer::open_connections() const {
  return loop_ == nullptr ? 0 : loop_->open.load();
}

}  // namespace fabricpulse::common
