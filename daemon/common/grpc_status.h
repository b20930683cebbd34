// The one place where gRPC and Abseil statuses convert, and a unary call on
// the callback API answered at once with one.
#pragma once

#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"

namespace fabricpulse::common {

grpc::Status ToGrpcStatus(const absl::Status& status);
absl::Status FromGrpcStatus(const grpc::Status& status);

// The call's default reactor, finished with `status` (the handler has
// filled the response, if any).
grpc::ServerUnaryReactor* FinishNow(grpc::CallbackServerContext* context,
                                    const absl::Status& status);

}  // namespace fabricpulse::common
