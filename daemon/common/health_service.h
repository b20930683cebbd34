// grpc.health.v1.Health for a daemon: one status for the server as a whole
// ("") and for each of the daemon's service names. NOT_SERVING until
// SetServing(true), and for good once Shutdown() is called.
//
// Check answers the status, NOT_FOUND for another service name. Watch sends
// the status, then each change; SERVICE_UNKNOWN for another name (the
// stream stays open, as the protocol says). At most kMaxWatchers Watch
// calls at once (more: RESOURCE_EXHAUSTED); Shutdown() sends them
// NOT_SERVING and ends them, so they never hold a server's shutdown.
//
// Thread-safety: thread-safe. The service must outlive the servers it is
// registered on (their Shutdown returns only after every call ended).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "grpc/health/v1/health.grpc.pb.h"

namespace fabricpulse::common {

class HealthService final : public grpc::health::v1::Health::CallbackService {
 public:
  static constexpr int kMaxWatchers = 16;
  using Response = grpc::health::v1::HealthCheckResponse;

  explicit HealthService(std::vector<std::string> services);
  ~HealthService() override;

  void SetServing(bool serving);
  void Shutdown();
  bool serving() const;

  grpc::ServerUnaryReactor* Check(
      grpc::CallbackServerContext* context,
      const grpc::health::v1::HealthCheckRequest* request,
      Response* response) override;
  grpc::ServerWriteReactor<Response>* Watch(
      grpc::CallbackServerContext* context,
      const grpc::health::v1::HealthCheckRequest* request) override;

  class Watcher;  // one Watch call (health_service.cc)

 private:
  // The status for `service`: SERVING / NOT_SERVING, or `unknown` for a
  // name this daemon does not serve.
  Response::ServingStatus StatusOf(const std::string& service,
                                   Response::ServingStatus unknown) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);
  void Remove(Watcher* watcher);

  const std::vector<std::string> services_;
  mutable absl::Mutex mu_;
  bool serving_ ABSL_GUARDED_BY(mu_) = false;
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
  // Each open Watch call and the service name it asked about.
  std::map<Watcher*, std::string> watched_ ABSL_GUARDED_BY(mu_);
  absl::CondVar watchers_gone_;
};

}  // namespace fabricpulse::common
