#include "client/commands/health_command.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "client/commands/coordinator_connection.h"
#include "client/commands/exit_codes.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/grpcpp.h"

namespace fabricpulse::client {

int RunHealthCommand(const std::string& address, const std::string& service) {
  if (address.empty()) {
    PrintError("health: give HOST:PORT (a daemon's --health-listen address)");
    return kExitBadInput;
  }
  auto stub = grpc::health::v1::Health::NewStub(
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(5)));
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(service);
  grpc::health::v1::HealthCheckResponse response;
  const grpc::Status status = stub->Check(&context, request, &response);
  if (status.error_code() == grpc::StatusCode::NOT_FOUND) {
    PrintError(absl::StrCat("health: ", address, " does not serve '",
                            service.substr(0, 80), "'"));
    return kExitFailed;
  }
  if (!status.ok()) {
    PrintError(absl::StrCat("health: no answer from ", address, ": ",
                            status.error_message()));
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
