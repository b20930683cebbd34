#include "daemon/common/grpc_server.h"

#include "absl/strings/str_cat.h"
#include "daemon/common/channel_args.h"

namespace fabricpulse::common {

absl::StatusOr<ListeningServer> StartGrpcServer(
    const std::string& listen, grpc::Service* service,
    std::shared_ptr<grpc::ServerCredentials> credentials, int max_receive_bytes,
    const ServerCallLimits& limits, grpc::Service* health) {
  ListeningServer out;
  grpc::ServerBuilder builder;
  builder.SetMaxReceiveMessageSize(max_receive_bytes);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS,
                             limits.max_streams_per_connection);
  // gRPC sets SO_REUSEPORT on Linux by default, so a second daemon could
  // bind the same port and take half the connections: one listener only.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  NoBdpProbe(builder);  // channel_args.h
  builder.AddListeningPort(listen, std::move(credentials), &out.port);
  builder.RegisterService(service);
  if (health != nullptr) builder.RegisterService(health);
  out.server = builder.BuildAndStart();
  if (!out.server || out.port == 0) {
    return absl::UnavailableError(
        absl::StrCat("--listen: cannot listen on ", listen));
  }
  return out;
}

}  // namespace fabricpulse::common
