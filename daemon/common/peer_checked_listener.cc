#include "daemon/common/peer_checked_listener.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/core/log.h"

namespace fabricpulse::common {

PeerCheckedListener::PeerCheckedListener(PeerCheckedListenerOptions options)
    : options_(std::move(options)), throttle_(options_.log_interval) {}

absl::StatusOr<std::unique_ptr<PeerCheckedListener>> PeerCheckedListener::Start(
    PeerCheckedListenerOptions options) {
  if (!options.check || !options.on_accepted || options.listener.fd() < 0) {
    return absl::InvalidArgumentError(
        "PeerCheckedListener: a listener, a check and on_accepted are needed");
  }
  std::unique_ptr<PeerCheckedListener> l(
      new PeerCheckedListener(std::move(options)));
  l->wake_.reset(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!l->wake_.valid()) {
    return absl::InternalError(
        absl::StrCat("cannot create an eventfd: ", strerror(errno)));
  }
  l->thread_ = std::thread([p = l.get()] { p->Run(); });
  return l;
}

PeerCheckedListener::~PeerCheckedListener() { Stop(); }

void PeerCheckedListener::Stop() {
  {
    absl::MutexLock lock(&stop_mu_);
    if (stopped_) return;
    stopped_ = true;
  }
  const uint64_t one = 1;
  // The accept thread polls the eventfd; a write cannot fail short of a
  // counter overflow, which one write cannot cause.
  [[maybe_unused]] ssize_t n = write(wake_.get(), &one, sizeof(one));
  if (thread_.joinable()) thread_.join();
  options_.listener.Close();
}

void PeerCheckedListener::LogThrottled(const std::string& line) {
  uint64_t held_back = 0;
  {
    absl::MutexLock lock(&log_mu_);
    if (!throttle_.ShouldLog(absl::Now(), &held_back)) return;
  }
  FP_LOG_WARNING(absl::StrCat(
      line, held_back == 0 ? ""
                           : absl::StrCat(" (", held_back,
                                          " more not logged since the "
                                          "last such line)")));
}

bool PeerCheckedListener::AcceptPending() {
  const std::string& path = options_.listener.path();
  while (true) {
    const int c = accept4(options_.listener.fd(), nullptr, nullptr,
                          SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (c < 0) {
      const int err = errno;
      if (err == EAGAIN || err == EWOULDBLOCK) return true;
      if (err == EINTR || err == ECONNABORTED) continue;
      // EMFILE and the like: the connection stays queued, so polling again
      // at once would spin.
      LogThrottled(
          absl::StrCat("cannot accept on ", path, ": ", strerror(err)));
      return false;
    }
    UniqueFd conn(c);
    auto peer = GetPeerCredentials(conn.get());
    absl::Status allowed = peer.ok() ? options_.check(*peer) : peer.status();
    if (!allowed.ok()) {
      refused_.fetch_add(1);
      LogThrottled(absl::StrCat("refused a connection on ", path, ": ",
                                allowed.message()));
      continue;  // `conn` closes here
    }
    options_.on_accepted(std::move(conn));
  }
}

void PeerCheckedListener::Run() {
  bool backoff = false;
  while (true) {
    pollfd fds[2] = {{wake_.get(), POLLIN, 0},
                     {options_.listener.fd(), POLLIN, 0}};
    // After an accept failure, wait (woken early by Stop) before retrying.
    const int ready = poll(fds, backoff ? 1 : 2, backoff ? 100 : -1);
    if (ready < 0 && errno != EINTR) {
      FP_LOG_ERROR(absl::StrCat("poll on ", options_.listener.path(),
                                " failed: ", strerror(errno),
                                "; no longer accepting connections"));
      return;
    }
    if (fds[0].revents != 0) return;
    backoff = false;
    if (ready > 0 && fds[1].revents != 0) backoff = !AcceptPending();
  }
}

}  // namespace fabricpulse::common
