// Accepts connections on a Unix socket and passes on only those whose
// kernel-recorded peer credentials (SO_PEERCRED) pass a check: the worker
// serves its agent, and nobody else, this way (gRPC's own `unix:` listener
// shows no peer credentials).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "daemon/common/log_throttle.h"
#include "daemon/common/unique_fd.h"
#include "daemon/common/unix_socket.h"

namespace fabricpulse::common {

struct PeerCheckedListenerOptions {
  UnixListener listener;
  // Decides on each connection (on the accept thread): OK passes it on;
  // an error refuses it, and its message goes into the log line.
  std::function<absl::Status(const PeerCredentials&)> check;
  // Takes each connection that passed (non-blocking, close-on-exec), on
  // the accept thread; must not block.
  std::function<void(UniqueFd)> on_accepted;
  // Refusals are logged (warning) at most once per interval, the first at
  // once, each line with the count held back since the last one.
  absl::Duration log_interval = absl::Seconds(10);
};

// Thread-safe. One accept thread; a refused connection is closed at once,
// so a flood of them holds no descriptors (the listener's backlog bounds
// the connections not yet accepted).
class PeerCheckedListener {
 public:
  // Starts the accept thread. Errors: INVALID_ARGUMENT a callback is
  // missing or the listener is closed; INTERNAL no eventfd.
  static absl::StatusOr<std::unique_ptr<PeerCheckedListener>> Start(
      PeerCheckedListenerOptions options);
  ~PeerCheckedListener();  // Stop()

  // Stops accepting, joins the accept thread, closes the socket and
  // removes its file (UnixListener::Close). Idempotent.
  void Stop();

  // Connections refused so far.
  uint64_t refused() const { return refused_.load(); }

 private:
  explicit PeerCheckedListener(PeerCheckedListenerOptions options);
  void Run();
  // Accepts every pending connection; false after a failure other than
  // "none pending" (then the caller backs off before polling again).
  bool AcceptPending();
  void LogThrottled(const std::string& line);

  PeerCheckedListenerOptions options_;
  UniqueFd wake_;
  std::atomic<uint64_t> refused_{0};
  absl::Mutex log_mu_;
  LogThrottle throttle_ ABSL_GUARDED_BY(log_mu_);
  absl::Mutex stop_mu_;
  bool stopped_ ABSL_GUARDED_BY(stop_mu_) = false;
  std::thread thread_;
};

}  // namespace fabricpulse::common
