#include "client/report/report_loader.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "client/report/sweep_metadata.h"
#include "daemon/common/grpc_status.h"
#include "daemon/core/duration_text.h"
#include "grpcpp/grpcpp.h"

namespace fabricpulse::client::report {
namespace {

constexpr absl::Duration kCallDeadline = absl::Seconds(30);

void SetDeadline(grpc::ClientContext& ctx) {
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + kCallDeadline));
}

absl::StatusOr<v1::ListSweepsResponse> List(
    v1::CoordinatorService::StubInterface& stub, int last) {
  grpc::ClientContext ctx;
  SetDeadline(ctx);
  v1::ListSweepsRequest req;
  req.set_last(last);
  v1::ListSweepsResponse resp;
  grpc::Status status = stub.ListSweeps(&ctx, req, &resp);
  if (!status.ok()) return common::FromGrpcStatus(status);
  return resp;
}

absl::StatusOr<v1::GetSweepResponse> Get(
    v1::CoordinatorService::StubInterface& stub, const std::string& id) {
  grpc::ClientContext ctx;
  SetDeadline(ctx);
  v1::GetSweepRequest req;
  req.set_sweep_id(id);
  v1::GetSweepResponse resp;
  grpc::Status status = stub.GetSweep(&ctx, req, &resp);
  if (!status.ok()) return common::FromGrpcStatus(status);
  return resp;
}

// Reads `ids` in full, in order, until kMaxReportSteps steps are in; a
// sweep gone meanwhile, and the sweeps past the bound, are noted.
absl::StatusOr<std::vector<v1::GetSweepResponse>> GetAll(
    v1::CoordinatorService::StubInterface& stub,
    const std::vector<std::string>& ids, std::vector<std::string>& notes) {
  std::vector<v1::GetSweepResponse> out;
  int64_t steps = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    const std::string& id = ids[i];
    if (steps >= kMaxReportSteps) {
      notes.push_back(absl::StrCat(ids.size() - i,
                                   " older sweeps not read: the report "
                                   "holds at most ",
                                   kMaxReportSteps, " step results"));
      break;
    }
    absl::StatusOr<v1::GetSweepResponse> sweep = Get(stub, id);
    if (absl::IsNotFound(sweep.status())) {
      notes.push_back(absl::StrCat("sweep ", id,
                                   " left the history while the report was "
                                   "read; not drawn"));
      continue;
    }
    if (!sweep.ok()) return sweep.status();
    steps += sweep->results_size();
    out.push_back(*std::move(sweep));
  }
  return out;
}

void NoteLeftOut(const v1::ListSweepsResponse& list,
                 std::vector<std::string>& notes) {
  if (list.left_out() > 0) {
    notes.push_back(absl::StrCat(list.left_out(),
                                 " older sweeps not listed: the "
                                 "coordinator's answer reached its size "
                                 "bound"));
  }
}

absl::StatusOr<ReportContent> LoadPlan(
    v1::CoordinatorService::StubInterface& stub, const ReportSelection& sel,
    absl::Time now) {
  ReportContent content;
  const double from = absl::ToUnixMicros(now - sel.since) / 1e6;
  const std::string from_text = FormatUnixTime(from);
  content.selection =
      absl::StrCat("plan ", sel.plan, ", sweeps started since ", from_text);
  absl::StatusOr<v1::ListSweepsResponse> list = List(stub, kMaxListedSweeps);
  if (!list.ok()) return list.status();
  NoteLeftOut(*list, content.notes);
  std::vector<std::string> ids;
  int matching = 0;
  for (const v1::SweepSummary& s : list->sweeps()) {
    if (s.plan() != sel.plan || s.started_unix_seconds() < from) {
      continue;
    }
    if (++matching <= kMaxTrendSweeps) ids.push_back(s.sweep_id());
  }
  if (matching == 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("no sweeps of plan '", sel.plan, "' started since ",
                     from_text, " (among the newest ", list->sweeps_size(),
                     "); `fabricpulse results` lists the history"));
  }
  if (matching > kMaxTrendSweeps) {
    content.notes.push_back(absl::StrCat(
        "the newest ", kMaxTrendSweeps, " of the plan's ", matching,
        " sweeps in the window are drawn (at most ", kMaxTrendSweeps, ")"));
  }
  if (list->sweeps_size() == kMaxListedSweeps && !list->sweeps().empty() &&
      list->sweeps(list->sweeps_size() - 1).started_unix_seconds() >= from) {
    content.notes.push_back(absl::StrCat(
        "only the history's newest ", kMaxListedSweeps,
        " sweeps were read; older sweeps in the window are not drawn"));
  }
  absl::StatusOr<std::vector<v1::GetSweepResponse>> history =
      GetAll(stub, ids, content.notes);
  if (!history.ok()) return history.status();
  if (history->empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the sweeps of plan '", sel.plan, "' left the history while read"));
  }
  content.history = *std::move(history);
  // The newest in full, as a report of one sweep would draw it.
  content.sweeps.push_back(content.history.front());
  return content;
}

}  // namespace

absl::StatusOr<absl::Duration> ParseSince(absl::string_view text) {
  const std::string bad = absl::StrCat(
      "--since: '", text,
      "' is not a duration in range; allowed: more than 0 up to 366d, "
      "written as 7d, 36h, 90m, 1h30m or seconds");
  std::optional<absl::Duration> d;
  absl::string_view days = text;
  if (absl::ConsumeSuffix(&days, "d")) {
    double n = 0;
    if (absl::SimpleAtod(days, &n) && std::isfinite(n) && n > 0 && n <= 366) {
      d = absl::Hours(24) * n;
    }
  } else {
    d = core::ParseSecondsOrDuration(text);
  }
  if (!d || *d <= absl::ZeroDuration() || *d > kMaxSince) {
    return absl::InvalidArgumentError(bad);
  }
  return *d;
}

absl::StatusOr<ReportContent> LoadReport(
    v1::CoordinatorService::StubInterface& stub, const ReportSelection& sel,
    absl::Time now) {
  if (!sel.plan.empty()) return LoadPlan(stub, sel, now);
  ReportContent content;
  std::vector<std::string> ids;
  if (!sel.sweep_id.empty()) {
    content.selection = absl::StrCat("sweep ", sel.sweep_id);
    absl::StatusOr<v1::GetSweepResponse> sweep = Get(stub, sel.sweep_id);
    if (!sweep.ok()) return sweep.status();
    content.sweeps.push_back(*std::move(sweep));
    return content;
  }
  const int last = std::clamp(sel.last, 1, kMaxReportSweeps);
  content.selection = last == 1 ? std::string("the newest sweep")
                                : absl::StrCat("the newest ", last, " sweeps");
  absl::StatusOr<v1::ListSweepsResponse> list = List(stub, last);
  if (!list.ok()) return list.status();
  NoteLeftOut(*list, content.notes);
  for (const v1::SweepSummary& s : list->sweeps()) ids.push_back(s.sweep_id());
  absl::StatusOr<std::vector<v1::GetSweepResponse>> sweeps =
      GetAll(stub, ids, content.notes);
  if (!sweeps.ok()) return sweeps.status();
  if (sweeps->empty()) {
    return absl::FailedPreconditionError(
        "no sweeps in the coordinator's history; run one with `fabricpulse "
        "sweep`");
  }
  content.sweeps = *std::move(sweeps);
  return content;
}

}  // namespace fabricpulse::client::report
