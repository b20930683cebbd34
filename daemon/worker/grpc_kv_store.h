// The rendezvous store as the coordinator serves it (KvSet/KvGet).
#pragma once

#include <memory>
#include <string>

#include "daemon/backend/key_value_store.h"
#include "fabricpulse/v1/coordinator.grpc.pb.h"

namespace fabricpulse::worker {

// Thread-safe (gRPC stubs are).
class GrpcKeyValueStore : public backend::KeyValueStore {
 public:
  explicit GrpcKeyValueStore(std::shared_ptr<grpc::Channel> channel);

  absl::Status Set(const std::string& key, const std::string& value) override;
  absl::StatusOr<std::string> Get(const std::string& key,
                                  absl::Duration timeout) override;

 private:
  std::unique_ptr<v1::CoordinatorService::Stub> stub_;
};

}  // namespace fabricpulse::worker
