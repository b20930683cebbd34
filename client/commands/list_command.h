// The shape shared by the listing commands (agents, plans, schedules): check
// --output, connect, make one unary call with a 10 s deadline, print the
// answer in the chosen format.
#pragma once

#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "client/commands/coordinator_connection.h"
#include "client/commands/exit_codes.h"
#include "client/output/output_options.h"
#include "client/output/proto_json.h"
#include "fabricpulse/v1/coordinator.grpc.pb.h"

namespace fabricpulse::client {

template <typename Response>
using ListFormatter = std::string (*)(const Response&, OutputFormat);

// `response` as JSON (ProtoJson), or as `csv` or `table` write it.
template <typename Response>
std::string FormatListing(const Response& response, OutputFormat format,
                          std::string (*csv)(const Response&),
                          std::string (*table)(const Response&)) {
  switch (format) {
    case OutputFormat::kJson:
      return ProtoJson(response);
    case OutputFormat::kCsv:
      return csv(response);
    case OutputFormat::kTable:
      break;
  }
  return table(response);
}

// Says on stderr that `left_out` entries (`what`, e.g. "plan(s)") were not
// listed because the answer reached its size bound; nothing when 0.
inline void NoteLeftOut(const std::string& command, int left_out,
                        const std::string& what) {
  if (left_out <= 0) return;
  PrintError(absl::StrCat(command, ": ", left_out, " ", what,
                          " not listed: the answer reached its size bound "
                          "(16 MiB)"));
}

template <typename Request, typename Response>
using ListCall = grpc::Status (v1::CoordinatorService::Stub::*)(
    grpc::ClientContext*, const Request&, Response*);

// Returns the exit code: 2 for a bad --output (before connecting), 3 the
// coordinator unreachable or the call refused, 1 another failed call.
template <typename Request, typename Response>
int RunListCommand(const CoordinatorTarget& coordinator,
                   const std::string& command, const std::string& output,
                   ListCall<Request, Response> call,
                   ListFormatter<Response> format,
                   const Request& request = Request()) {
  absl::StatusOr<OutputFormat> parsed = ParseOutputFormat(output);
  if (!parsed.ok()) {
    PrintError(std::string(parsed.status().message()));
    return kExitBadInput;
  }
  auto stub = ConnectCoordinator(coordinator);
  if (!stub.ok()) return ReportConnectError(stub.status());
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  Response response;
  grpc::Status status = ((**stub).*call)(&ctx, request, &response);
  if (!status.ok()) return ReportCallError(command, status);
  const std::string text = format(response, *parsed);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return kExitOk;
}

}  // namespace fabricpulse::client
