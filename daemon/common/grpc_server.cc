#include "daemon/common/grpc_server.h"

#include "absl/strings/str_cat.h"

namespace fabricpulse::common {

absl::StatusOr<ListeningServer> StartGrpcServer(const std::string& listen,
                                                grpc::Service* service,
                                                int max_receive_bytes) {
  ListeningServer out;
  grpc::ServerBuilder builder;
  builder.SetMaxReceiveMessageSize(max_receive_bytes);
  builder.AddListeningPort(listen, grpc::InsecureServerCredentials(),
                           &out.port);
  builder.RegisterService(service);
  out.server = builder.BuildAndStart();
  if (!out.server || out.port == 0) {
    return absl::UnavailableError(
        absl::StrCat("--listen: cannot listen on ", listen));
  }
  return out;
}

}  // namespace fabricpulse::common
