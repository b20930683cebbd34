#include "daemon/common/grpc_status.h"

#include <string>

#include "daemon/core/status_reason.h"
#include "fabricpulse/v1/status.pb.h"

namespace fabricpulse::common {
namespace {

// The proto enum of a reason, and back (the enum's value names are the
// reasons' names).
v1::ErrorReason ToProto(core::StatusReason reason) {
  v1::ErrorReason out = v1::ERROR_REASON_UNSPECIFIED;
  v1::ErrorReason_Parse(std::string(core::StatusReasonName(reason)), &out);
  return out;
}

core::StatusReason FromProto(v1::ErrorReason reason) {
  return core::StatusReasonFromName(v1::ErrorReason_Name(reason));
}

}  // namespace

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  const auto code = static_cast<grpc::StatusCode>(status.code());
  std::string message(status.message());
  const core::StatusReason reason = core::ReasonOf(status);
  if (reason == core::StatusReason::kNone) return grpc::Status(code, message);
  v1::RpcStatus details;
  details.set_code(static_cast<int>(code));
  details.set_message(message);
  v1::ErrorInfo info;
  info.set_reason(ToProto(reason));
  details.add_details()->PackFrom(info);
  return grpc::Status(code, message, details.SerializeAsString());
}

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  absl::Status out(static_cast<absl::StatusCode>(status.error_code()),
                   status.error_message());
  v1::RpcStatus details;
  if (status.error_details().empty() ||
      !details.ParseFromString(status.error_details())) {
    return out;
  }
  for (const google::protobuf::Any& any : details.details()) {
    v1::ErrorInfo info;
    if (any.Is<v1::ErrorInfo>() && any.UnpackTo(&info)) {
      return core::WithReason(std::move(out), FromProto(info.reason()));
    }
  }
  return out;
}

grpc::ServerUnaryReactor* FinishNow(grpc::CallbackServerContext* context,
                                    const absl::Status& status) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

}  // namespace fabricpulse::common
