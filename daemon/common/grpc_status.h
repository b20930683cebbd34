// The one place where gRPC and Abseil statuses convert.
#pragma once

#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"

namespace fabricpulse::common {

grpc::Status ToGrpcStatus(const absl::Status& status);
absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace fabricpulse::common
