#include "daemon/coordinator/diagnosis_collector.h"

#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/coordinator/sweep_runner.h"
#include "fabricpulse/v1/agent.grpc.pb.h"

namespace fabricpulse::coordinator {
namespace {

// The agent asks its workers with a one-second bound; allow for that.
constexpr absl::Duration kAgentRecordsTimeout = absl::Seconds(3);

absl::Time FromUnix(double seconds) {
  return seconds <= 0 ? absl::InfinitePast()
                      : absl::UnixEpoch() + absl::Seconds(seconds);
}

core::OpState StateFromName(const std::string& name) {
  if (name == "completed") return core::OpState::kCompleted;
  if (name == "failed") return core::OpState::kFailed;
  if (name == "enqueued") return core::OpState::kEnqueued;
  return core::OpState::kStarted;
}

core::FlightRecord FromProto(const v1::FlightRecord& r) {
  core::FlightRecord out;
  out.seq = r.seq();
  out.op = r.op();
  out.bytes = r.bytes();
  out.dtype = r.dtype();
  out.enqueued = FromUnix(r.enqueued_unix_seconds());
  out.started = FromUnix(r.started_unix_seconds());
  out.completed = FromUnix(r.completed_unix_seconds());
  out.state = StateFromName(r.state());
  out.error = r.error();
  return out;
}

}  // namespace

core::Diagnosis CollectAndDiagnose(const std::string& sweep_id,
                                   const std::vector<v1::AgentInfo>& agents,
                                   common::ChannelPool& channels) {
  const auto assignments = SweepRunner::AssignRanks(agents);
  std::vector<v1::AgentFlightRecordsResponse> answers(agents.size());
  std::vector<grpc::Status> statuses(agents.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < agents.size(); ++i) {
    threads.emplace_back([&, i] {
      auto stub = v1::AgentService::NewStub(channels.Get(agents[i].address()));
      grpc::ClientContext ctx;
      ctx.set_deadline(absl::ToChronoTime(absl::Now() + kAgentRecordsTimeout));
      v1::AgentFlightRecordsRequest req;
      req.set_sweep_id(sweep_id);
      statuses[i] = stub->GetFlightRecords(&ctx, req, &answers[i]);
    });
  }
  for (std::thread& t : threads) t.join();

  std::vector<core::RankReport> reports;
  for (size_t i = 0; i < agents.size(); ++i) {
    const v1::AgentInfo& agent = agents[i];
    for (const v1::RankAssignment& a : assignments[i]) {
      core::RankReport report;
      report.rank = a.rank();
      report.node = agent.node_name();
      for (const v1::WorkerInfo& w : agent.workers()) {
        if (w.local_index() == a.local_index()) report.gpu = w.gpu();
      }
      if (!statuses[i].ok()) {
        report.reachable = false;
        report.unreachable_reason =
            absl::StrCat("agent ", agent.node_name(), " at ", agent.address(),
                         " did not answer: ", statuses[i].error_message());
      } else {
        report.reachable = false;
        report.unreachable_reason = "not reported by its agent";
        for (const v1::RankFlightRecords& r : answers[i].ranks()) {
          if (r.local_index() != a.local_index()) continue;
          report.reachable = r.reachable();
          report.unreachable_reason = r.unreachable_reason();
          for (const auto& rec : r.records()) {
            report.records.push_back(FromProto(rec));
          }
        }
      }
      reports.push_back(std::move(report));
    }
  }
  return core::Diagnose(reports, absl::Now());
}

}  // namespace fabricpulse::coordinator
