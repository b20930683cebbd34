// The Gloo backend: collectives on CPUs over TCP.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "daemon/backend/collective_backend.h"
#include "daemon/backend/key_value_store.h"

namespace gloo::transport {
class Device;
}  // namespace gloo::transport

namespace fabricpulse::backend {

// Thread-safe: CreateCommunicator may be called from several threads.
class GlooBackend : public CollectiveBackend {
 public:
  // `hostname` is the host name or IP address the TCP device binds to (and
  // that peers connect to), e.g. "127.0.0.1". The device is created on the
  // first CreateCommunicator and shared by every communicator of this
  // backend; each pair listens on an ephemeral port. Creating the device
  // sets SIGPIPE to ignored when it has the default disposition (process
  // wide): Gloo writes to sockets without MSG_NOSIGNAL, so a peer resetting
  // a connection would otherwise kill the process.
  explicit GlooBackend(std::string hostname);
  ~GlooBackend() override;

  // "gloo".
  std::string name() const override;
  // "gloo <major>.<minor>.<patch>" from gloo/config.h.
  std::string version() const override;

  // Rendezvous through `store` under options.key_prefix (Gloo's
  // connectFullMesh: every rank publishes its pair addresses and connects
  // to every other rank). Store waits end at options.init_timeout after the
  // call; connecting a pair is bounded by the same duration. Never throws.
  // Errors: INVALID_ARGUMENT bad rank/nranks/init_timeout or null store;
  // DEADLINE_EXCEEDED peers did not arrive within options.init_timeout;
  // UNAVAILABLE the TCP device could not be created on `hostname`, the store
  // is unreachable or a connection failed; INTERNAL Gloo reported a broken
  // invariant.
  absl::StatusOr<std::unique_ptr<Communicator>> CreateCommunicator(
      const CommunicatorOptions& options, KeyValueStore* store) override;

  // Drops the shared TCP device: its loop thread, which polls every 10 ms
  // while the device exists, ends once the last context using it is gone
  // (the idle release drops the communicators first). The next
  // CreateCommunicator creates a new device. Never fails.
  absl::Status ReleaseDevice() override;

 private:
  // The shared TCP device, created on first use.
  absl::StatusOr<std::shared_ptr<::gloo::transport::Device>> SharedDevice();

  const std::string hostname_;
  std::mutex mu_;
  std::shared_ptr<::gloo::transport::Device> device_ ABSL_GUARDED_BY(mu_);
};

}  // namespace fabricpulse::backend
