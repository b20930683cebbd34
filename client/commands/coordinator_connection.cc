#include "client/commands/coordinator_connection.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "client/commands/coordinator_address.h"
#include "client/commands/exit_codes.h"
#include "daemon/common/channel_args.h"
#include "daemon/common/grpc_status.h"
#include "daemon/security/credentials.h"

namespace fabricpulse::client {
namespace {

constexpr absl::Duration kConnectTimeout = absl::Seconds(5);

}  // namespace

absl::StatusOr<std::unique_ptr<v1::CoordinatorService::Stub>>
ConnectCoordinator(const CoordinatorTarget& target) {
  const std::string& address = target.address;
  if (address.empty()) {
    return absl::InvalidArgumentError(
        "--coordinator: required (HOST:PORT, or FABRICPULSE_COORDINATOR); "
        "or run `fabricpulse local ...` for a system on this machine");
  }
  if (absl::Status checked = CheckCoordinatorAddress(address); !checked.ok()) {
    return checked;
  }
  auto creds = security::Credentials::Create(target.tls);
  if (!creds.ok()) return creds.status();
  if (absl::Status resolved = ResolveCoordinatorHost(address); !resolved.ok()) {
    return resolved;
  }
  auto channel = grpc::CreateCustomChannel(
      address, (*creds)->Channel({security::Role::kCoordinator, ""}),
      common::ClientChannelArguments());
  // Fail on the first refused connection rather than retrying for the
  // whole timeout: a typo'd port should answer at once.
  const auto deadline = absl::ToChronoTime(absl::Now() + kConnectTimeout);
  grpc_connectivity_state state = channel->GetState(/*try_to_connect=*/true);
  while (state != GRPC_CHANNEL_READY) {
    if (state == GRPC_CHANNEL_TRANSIENT_FAILURE ||
        state == GRPC_CHANNEL_SHUTDOWN) {
      const std::string refusal = (*creds)->LastRefusal();
      if (!refusal.empty()) {
        return absl::UnavailableError(absl::StrCat(
            "refused the coordinator at ", address, ": ", refusal));
      }
      return absl::UnavailableError(absl::StrCat(
          "cannot reach the coordinator at ", address,
          ": the connection or its TLS handshake failed (is "
          "fabricpulse-coordinator running there",
          target.tls.insecure
              ? ", and in plaintext (--insecure) too?)"
              : ", and do --tls-cert and --tls-ca belong to its CA?)"));
    }
    if (!channel->WaitForStateChange(state, deadline)) {
      return absl::UnavailableError(
          absl::StrCat("cannot reach the coordinator at ", address, " within ",
                       absl::FormatDuration(kConnectTimeout)));
    }
    state = channel->GetState(/*try_to_connect=*/true);
  }
  return v1::CoordinatorService::NewStub(channel);
}

int ReportConnectError(const absl::Status& status) {
  PrintError(std::string(status.message()));
  return status.code() == absl::StatusCode::kInvalidArgument ? kExitBadInput
                                                             : kExitUnreachable;
}

int ReportCallError(const std::string& command, const grpc::Status& status,
                    bool named) {
  const absl::Status s = common::FromGrpcStatus(status);
  // The address answers gRPC, but not as the coordinator (an agent's port):
  // the same exit as any other place the coordinator is not.
  if (s.code() == absl::StatusCode::kUnimplemented) {
    PrintError(absl::StrCat(
        command,
        ": the --coordinator address answers gRPC but not as a FabricPulse "
        "coordinator (an agent's port?)"));
    return kExitUnreachable;
  }
  if (s.code() == absl::StatusCode::kUnavailable) {
    PrintError(absl::StrCat(command, ": lost the coordinator: ", s.message()));
    return kExitUnreachable;
  }
  const int code = named && s.code() == absl::StatusCode::kNotFound
                       ? kExitBadInput
                       : ExitCodeFor(s);
  PrintError(absl::StrCat(
      command, ": ", code == kExitUnreachable ? "refused: " : "", s.message()));
  return code;
}

void PrintError(const std::string& message) {
  // One line, whatever the message holds.
  std::string line = absl::StrReplaceAll(message, {{"\n", " "}});
  std::fprintf(stderr, "fabricpulse: %s\n", line.c_str());
}

}  // namespace fabricpulse::client
