// Unix stream sockets made by hand rather than by gRPC's `unix:` listener,
// so that the file's mode is ours to set and each connection's peer
// credentials (SO_PEERCRED) can be checked before gRPC sees it.
#pragma once

#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "daemon/common/unique_fd.h"

namespace fabricpulse::common {

// The longest path a Unix socket can be bound to (sun_path less its NUL).
inline constexpr size_t kMaxUnixSocketPath = sizeof(sockaddr_un::sun_path) - 1;

// Who is at the other end of a connected Unix socket, as the kernel
// recorded it at connect() (for a client: the server's listen()).
struct PeerCredentials {
  pid_t pid = 0;
  uid_t uid = 0;
  gid_t gid = 0;
};

// The one process at the other end a socket is meant for: its uid and
// pid, and how messages name it.
struct AllowedPeer {
  uid_t uid = 0;
  pid_t pid = 0;
  std::string name;  // e.g. "this worker's agent"
};

// OK when `peer` has `allowed`'s uid and pid; else PERMISSION_DENIED naming
// the peer and what differs. Pure.
absl::Status CheckPeer(const PeerCredentials& peer, const AllowedPeer& allowed);

// SO_PEERCRED of the connected Unix socket `fd`. Errors: INTERNAL
// getsockopt failed (naming why). Thread-safe.
absl::StatusOr<PeerCredentials> GetPeerCredentials(int fd);

// A listening Unix stream socket and the file it is bound to. Move-only;
// not thread-safe (one owner).
class UnixListener {
 public:
  // Binds and listens at `path`, replacing a stale file there (unlink).
  // The file is private from the moment it exists: it is bound under umask
  // 0177 (mode 0600), chmod'ed to 0600 again (a default ACL on the folder
  // would override the umask) and checked with CheckPrivateSocket before
  // listen(), so nothing can connect while it might be wider. The socket
  // is non-blocking and close-on-exec; `backlog` bounds the connections
  // waiting for accept(). umask is process-wide: call this before threads
  // that create files start, or accept that their files made in the same
  // instant get mode 0600. Errors: INVALID_ARGUMENT `path` is empty or
  // longer than kMaxUnixSocketPath (naming both lengths); UNAVAILABLE
  // socket, bind or listen failed (naming the path and why);
  // FAILED_PRECONDITION the bound file is not private (as
  // CheckPrivateSocket).
  static absl::StatusOr<UnixListener> Bind(const std::string& path,
                                           int backlog);

  UnixListener() = default;  // none: fd() < 0
  UnixListener(UnixListener&& other) noexcept;
  UnixListener& operator=(UnixListener&& other) noexcept;
  ~UnixListener();  // Close()

  int fd() const { return fd_.get(); }
  const std::string& path() const { return path_; }

  // Closes the socket and removes its file, unless the file at the path is
  // no longer the one this listener bound (same device and inode): a newer
  // socket there is left alone. Idempotent.
  void Close();

 private:
  UniqueFd fd_;
  std::string path_;
  dev_t dev_ = 0;
  ino_t ino_ = 0;
};

// Connects a non-blocking, close-on-exec stream socket to the Unix socket
// at `path` (a Unix connect completes at once or fails). Errors:
// INVALID_ARGUMENT `path` too long; NOT_FOUND no file there; UNAVAILABLE
// nothing listens, its backlog is full, or it cannot be reached (naming
// why, e.g. "Permission denied").
absl::StatusOr<UniqueFd> ConnectUnixSocket(const std::string& path);

// OK when the socket file at `path` is private to `server.uid`
// (CheckPrivateSocket) and the process that listens on it is `server`
// (a probe connection's SO_PEERCRED, closed at once). Errors: as
// CheckPrivateSocket and ConnectUnixSocket (NOT_FOUND / UNAVAILABLE: not
// there or not listening yet); PERMISSION_DENIED another process listens
// there (naming it).
absl::Status CheckSocketServer(const std::string& path,
                               const AllowedPeer& server);

}  // namespace fabricpulse::common
