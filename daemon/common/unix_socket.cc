#include "daemon/common/unix_socket.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "daemon/common/private_path.h"

namespace fabricpulse::common {
namespace {

absl::StatusOr<sockaddr_un> SocketAddress(const std::string& path) {
  if (path.empty() || path.size() > kMaxUnixSocketPath) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Unix socket path ", path.substr(0, 64), path.size() > 64 ? "..." : "",
        " is ", path.size(), " bytes; allowed: 1 to ", kMaxUnixSocketPath));
  }
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.data(), path.size());
  return addr;
}

}  // namespace

absl::Status CheckPeer(const PeerCredentials& peer,
                       const AllowedPeer& allowed) {
  if (peer.uid == allowed.uid && peer.pid == allowed.pid) {
    return absl::OkStatus();
  }
  return absl::PermissionDeniedError(absl::StrCat(
      "peer pid ", peer.pid, " uid ", peer.uid, " is not ", allowed.name,
      " (pid ", allowed.pid, " uid ", allowed.uid, ")"));
}

absl::StatusOr<PeerCredentials> GetPeerCredentials(int fd) {
  ucred cred{};
  socklen_t len = sizeof(cred);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
      len != sizeof(cred)) {
    return absl::InternalError(
        absl::StrCat("cannot read the peer's credentials: ", strerror(errno)));
  }
  return PeerCredentials{cred.pid, cred.uid, cred.gid};
}

absl::StatusOr<UnixListener> UnixListener::Bind(const std::string& path,
                                                int backlog) {
  auto addr = SocketAddress(path);
  if (!addr.ok()) return addr.status();
  UnixListener l;
  l.fd_.reset(socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!l.fd_.valid()) {
    return absl::UnavailableError(
        absl::StrCat("cannot create a Unix socket: ", strerror(errno)));
  }
  unlink(path.c_str());
  const mode_t old_umask = umask(0177);
  const int bound = bind(l.fd_.get(), reinterpret_cast<const sockaddr*>(&*addr),
                         sizeof(sockaddr_un));
  const int bind_errno = errno;
  umask(old_umask);
  if (bound != 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot bind ", path, ": ", strerror(bind_errno)));
  }
  l.path_ = path;
  struct stat st;
  if (chmod(path.c_str(), 0600) != 0 || lstat(path.c_str(), &st) != 0) {
    const int err = errno;
    l.Close();
    return absl::UnavailableError(
        absl::StrCat("cannot set mode 0600 on ", path, ": ", strerror(err)));
  }
  l.dev_ = st.st_dev;
  l.ino_ = st.st_ino;
  absl::Status private_file = CheckPrivateSocket(path, geteuid());
  if (!private_file.ok()) {
    l.Close();
    return private_file;
  }
  if (listen(l.fd_.get(), backlog) != 0) {
    const int err = errno;
    l.Close();
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", path, ": ", strerror(err)));
  }
  return l;
}

UnixListener::UnixListener(UnixListener&& other) noexcept {
  *this = std::move(other);
}

UnixListener& UnixListener::operator=(UnixListener&& other) noexcept {
  if (this != &other) {
    Close();
    fd_ = std::move(other.fd_);
    path_ = std::exchange(other.path_, std::string());
    dev_ = other.dev_;
    ino_ = other.ino_;
  }
  return *this;
}

UnixListener::~UnixListener() { Close(); }

void UnixListener::Close() {
  if (!path_.empty()) {
    struct stat st;
    if (lstat(path_.c_str(), &st) == 0 && st.st_dev == dev_ &&
        st.st_ino == ino_) {
      unlink(path_.c_str());
    }
    path_.clear();
  }
  fd_.reset();
}

absl::StatusOr<UniqueFd> ConnectUnixSocket(const std::string& path) {
  auto addr = SocketAddress(path);
  if (!addr.ok()) return addr.status();
  UniqueFd fd(socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) {
    return absl::UnavailableError(
        absl::StrCat("cannot create a Unix socket: ", strerror(errno)));
  }
  if (connect(fd.get(), reinterpret_cast<const sockaddr*>(&*addr),
              sizeof(sockaddr_un)) != 0) {
    const int err = errno;
    const std::string why =
        absl::StrCat("cannot connect to ", path, ": ", strerror(err));
    if (err == ENOENT) return absl::NotFoundError(why);
    return absl::UnavailableError(why);
  }
  return fd;
}

absl::Status CheckSocketServer(const std::string& path,
                               const AllowedPeer& server) {
  absl::Status private_file = CheckPrivateSocket(path, server.uid);
  if (!private_file.ok()) return private_file;
  auto fd = ConnectUnixSocket(path);
  if (!fd.ok()) return fd.status();
  auto peer = GetPeerCredentials(fd->get());
  if (!peer.ok()) return peer.status();
  absl::Status matches = CheckPeer(*peer, server);
  if (!matches.ok()) {
    return absl::PermissionDeniedError(
        absl::StrCat("socket ", path, ": ", matches.message()));
  }
  return absl::OkStatus();
}

}  // namespace fabricpulse::common
