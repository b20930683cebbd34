#include "daemon/backend/gloo/gloo_backend.h"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "daemon/backend/gloo/gloo_communicator.h"
#include "daemon/backend/gloo/gloo_status.h"
#include "daemon/backend/gloo/kv_store_adapter.h"
#include "gloo/config.h"
#include "gloo/rendezvous/context.h"
#include "gloo/rendezvous/prefix_store.h"
#include "gloo/transport/tcp/device.h"

namespace fabricpulse::backend {
namespace {

// Gloo writes to its sockets with writev and no MSG_NOSIGNAL, so a peer that
// resets a connection (a lost rank, an Abort) would raise SIGPIPE and kill
// the process. A handler someone installed is left alone.
void IgnoreSigpipeIfDefault() {
  struct sigaction current = {};
  if (sigaction(SIGPIPE, nullptr, &current) != 0) return;
  if (current.sa_handler != SIG_DFL) return;
  struct sigaction ignore = {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGPIPE, &ignore, nullptr);
}

}  // namespace

GlooBackend::GlooBackend(std::string hostname)
    : hostname_(std::move(hostname)) {}

GlooBackend::~GlooBackend() = default;

std::string GlooBackend::name() const { return "gloo"; }

std::string GlooBackend::version() const {
  return absl::StrCat("gloo ", GLOO_VERSION_MAJOR, ".", GLOO_VERSION_MINOR, ".",
                      GLOO_VERSION_PATCH);
}

absl::StatusOr<std::shared_ptr<::gloo::transport::Device>>
GlooBackend::SharedDevice() {
  std::lock_guard<std::mutex> lock(mu_);
  if (device_ != nullptr) return device_;
  IgnoreSigpipeIfDefault();
  try {
    ::gloo::transport::tcp::attr attr;
    attr.hostname = hostname_;
    device_ = ::gloo::transport::tcp::CreateDevice(attr);
  } catch (...) {
    absl::Status status = gloo_impl::GlooExceptionToStatus(
        std::current_exception(),
        absl::StrCat("creating the gloo TCP device on '", hostname_, "'"));
    return absl::UnavailableError(
        absl::StrCat(status.message(),
                     "; check that the host name resolves to an "
                     "address of this machine"));
  }
  return device_;
}

absl::Status GlooBackend::ReleaseDevice() {
  std::lock_guard<std::mutex> lock(mu_);
  device_.reset();
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Communicator>> GlooBackend::CreateCommunicator(
    const CommunicatorOptions& options, KeyValueStore* store) {
  if (store == nullptr) {
    return absl::InvalidArgumentError("CreateCommunicator: store is null");
  }
  if (options.nranks < 1 || options.rank < 0 ||
      options.rank >= options.nranks) {
    return absl::InvalidArgumentError(
        absl::StrCat("CreateCommunicator: rank ", options.rank, " of ",
                     options.nranks, " ranks; need 0 <= rank < nranks"));
  }
  if (options.init_timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("CreateCommunicator: init_timeout must be positive; got ",
                     absl::FormatDuration(options.init_timeout)));
  }
  absl::StatusOr<std::shared_ptr<::gloo::transport::Device>> device =
      SharedDevice();
  if (!device.ok()) return device.status();

  const absl::Time deadline = absl::Now() + options.init_timeout;
  gloo_impl::KvStoreAdapter adapter(store, deadline);
  const std::string what =
      absl::StrCat("rendezvous of rank ", options.rank, " of ", options.nranks,
                   " (prefix '", options.key_prefix, "')");
  try {
    ::gloo::rendezvous::PrefixStore prefixed(options.key_prefix, adapter);
    auto context = std::make_shared<gloo_impl::AbortableContext>(
        options.rank, options.nranks);
    // Gloo waits up to 5x the context timeout for a pair to connect; store
    // waits are bounded by the adapter's deadline instead.
    const absl::Duration connect_timeout = std::clamp(
        options.init_timeout / 5, absl::Milliseconds(1), absl::Hours(24));
    context->setTimeout(absl::ToChronoMilliseconds(connect_timeout));
    context->connectFullMesh(prefixed, *device);
    context->TrackUnboundBuffers();
    return std::make_unique<GlooCommunicator>(std::move(context));
  } catch (...) {
    // The adapter's own error keeps the store's status code (e.g.
    // UNAVAILABLE store unreachable) that Gloo's exception would lose.
    absl::Status store_error = adapter.error();
    if (!store_error.ok()) {
      return absl::Status(store_error.code(),
                          absl::StrCat(what, ": ", store_error.message()));
    }
    return gloo_impl::GlooExceptionToStatus(std::current_exception(), what);
  }
}

}  // namespace fabricpulse::backend
