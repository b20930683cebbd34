#include "client/commands/health_command.h"

#include <cstdio>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "client/commands/coordinator_connection.h"
#include "client/commands/exit_codes.h"
#include "daemon/security/credentials.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/grpcpp.h"

namespace fabricpulse::client {

int RunHealthCommand(const HealthFlags& flags,
                     const security::TlsOptions& tls) {
  const std::string& address = flags.address;
  if (address.empty()) {
    PrintError("health: give HOST:PORT (a daemon's --health-listen address)");
    return kExitBadInput;
  }
  std::shared_ptr<grpc::ChannelCredentials> channel_creds =
      grpc::InsecureChannelCredentials();
  // Kept for the refusal reason: gRPC reports a refused handshake as a bare
  // UNAVAILABLE.
  std::shared_ptr<security::Credentials> creds;
  if (!flags.tls_server.empty()) {
    absl::StatusOr<security::Role> role = security::ParseRole(flags.tls_server);
    if (!role.ok()) {
      PrintError(
          absl::StrCat("health: --tls-server: ", role.status().message()));
      return kExitBadInput;
    }
    auto made = security::Credentials::Create(tls);
    if (!made.ok()) {
      PrintError(absl::StrCat("health: ", made.status().message()));
      return kExitBadInput;
    }
    creds = *std::move(made);
    channel_creds = creds->Channel({*role, ""});
  }
  auto stub = grpc::health::v1::Health::NewStub(
      grpc::CreateChannel(address, channel_creds));
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(5)));
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(flags.service);
  grpc::health::v1::HealthCheckResponse response;
  const grpc::Status status = stub->Check(&context, request, &response);
  if (status.error_code() == grpc::StatusCode::NOT_FOUND) {
    PrintError(absl::StrCat("health: ", address, " does not serve '",
                            flags.service.substr(0, 80), "'"));
    return kExitFailed;
  }
  if (!status.ok()) {
    const std::string refusal = creds ? creds->LastRefusal() : "";
    PrintError(absl::StrCat("health: no answer from ", address, ": ",
                            refusal.empty()
                                ? status.error_message()
                                : absl::StrCat("refused: ", refusal)));
    return kExitUnreachable;
  }
  const std::string name =
      grpc::health::v1::HealthCheckResponse::ServingStatus_Name(
          response.status());
  std::printf("%s\n", name.c_str());
  return response.status() == grpc::health::v1::HealthCheckResponse::SERVING
             ? kExitOk
             : kExitFailed;
}

}  // namespace fabricpulse::client
