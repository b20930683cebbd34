#include "client/commands/campaign_command.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "client/commands/exit_codes.h"
#include "client/commands/nodes_command.h"
#include "fabricpulse/v1/coordinator.grpc.pb.h"

namespace fabricpulse::client {
namespace {

constexpr absl::Duration kCallDeadline = absl::Seconds(10);
constexpr absl::Duration kPoll = absl::Seconds(1);

// Whether a poll that failed so is worth another while --timeout lasts: a
// coordinator too busy to answer in time, or a connection that dropped.
bool Transient(const absl::Status& status) {
  return absl::IsDeadlineExceeded(status) || absl::IsUnavailable(status) ||
         absl::IsResourceExhausted(status);
}

// The campaign `id` as the coordinator lists it now; nullopt when the
// newest campaign of its plan is another (a later one replaced it).
absl::StatusOr<std::optional<v1::CampaignInfo>> Poll(
    v1::CoordinatorService::Stub& stub, const std::string& plan,
    const std::string& id) {
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + kCallDeadline));
  v1::ListNodesRequest request;
  request.set_plan(plan);
  request.set_campaigns_only(true);
  v1::ListNodesResponse response;
  grpc::Status status = stub.ListNodes(&ctx, request, &response);
  if (!status.ok()) {
    return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                        status.error_message());
  }
  for (const v1::CampaignInfo& c : response.campaigns()) {
    if (c.campaign_id() == id) return std::optional<v1::CampaignInfo>(c);
  }
  return std::optional<v1::CampaignInfo>();
}

}  // namespace

int RunCampaignCommand(const CoordinatorTarget& coordinator,
                       const CampaignFlags& flags) {
  auto stub = ConnectCoordinator(coordinator);
  if (!stub.ok()) return ReportConnectError(stub.status());
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + kCallDeadline));
  v1::StartCampaignRequest request;
  request.set_plan(flags.plan);
  request.set_grouping(flags.grouping);
  v1::StartCampaignResponse response;
  grpc::Status started = (**stub).StartCampaign(&ctx, request, &response);
  if (started.error_code() == grpc::StatusCode::ALREADY_EXISTS) {
    PrintError(absl::StrCat("campaign: ", started.error_message()));
    return kExitBusy;
  }
  if (!started.ok()) return ReportCallError("campaign", started);
  const std::string& id = response.campaign_id();
  std::printf("campaign %s of %s started\n", id.c_str(), flags.plan.c_str());
  std::fflush(stdout);
  if (!flags.wait) return kExitOk;
  const absl::Time deadline =
      absl::Now() + absl::Seconds(flags.timeout_seconds);
  while (true) {
    auto info = Poll(**stub, flags.plan, id);
    if (!info.ok() && Transient(info.status()) && absl::Now() < deadline) {
      absl::SleepFor(kPoll);
      continue;
    }
    if (!info.ok()) {
      PrintError(absl::StrCat("campaign: ", info.status().message()));
      return ExitCodeFor(info.status());
    }
    if (!info->has_value()) {
      PrintError(absl::StrCat("campaign ", id,
                              ": no longer the plan's newest campaign"));
      return kExitFailed;
    }
    const v1::CampaignInfo& c = **info;
    if (c.status() != "running") {
      std::printf("%s\n", CampaignLine(c).c_str());
      const bool clean =
          c.status() == "finished" && c.fail() == 0 && c.degraded() == 0;
      return clean ? kExitOk : kExitFailed;
    }
    if (absl::Now() >= deadline) {
      PrintError(absl::StrCat("campaign ", id,
                              ": still running after --timeout; ",
                              CampaignLine(c)));
      return kExitFailed;
    }
    absl::SleepFor(kPoll);
  }
}

}  // namespace fabricpulse::client
