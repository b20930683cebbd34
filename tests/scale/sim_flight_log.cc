#include "tests/scale/sim_flight_log.h"

#include "daemon/core/dtype.h"
#include "daemon/core/op_traits.h"

namespace fabricpulse::scale {
namespace {

double UnixSeconds(absl::Time t) {
  return absl::ToDoubleSeconds(t - absl::UnixEpoch());
}

}  // namespace

void SimFlightLog::Begin(const std::string& sweep_id,
                         std::shared_ptr<const std::vector<core::Step>> steps,
                         std::vector<std::pair<int, int>> ranks) {
  absl::MutexLock lock(&mu_);
  Sweep sweep;
  sweep.id = sweep_id;
  sweep.steps = std::move(steps);
  sweep.ranks = std::move(ranks);
  sweeps_.push_back(std::move(sweep));
  while (sweeps_.size() > kSweeps) sweeps_.pop_front();
}

SimFlightLog::Sweep* SimFlightLog::Find(const std::string& sweep_id) {
  for (auto it = sweeps_.rbegin(); it != sweeps_.rend(); ++it) {
    if (it->id == sweep_id) return &*it;
  }
  return nullptr;
}

void SimFlightLog::Add(const std::string& sweep_id, Entry entry) {
  absl::MutexLock lock(&mu_);
  Sweep* sweep = Find(sweep_id);
  if (sweep == nullptr) return;
  sweep->entries.push_back(entry);
  while (sweep->entries.size() > kRecords) sweep->entries.pop_front();
}

void SimFlightLog::Completed(const std::string& sweep_id, int index,
                             absl::Time now) {
  Add(sweep_id, {index, now, true});
}

void SimFlightLog::Joined(const std::string& sweep_id, int index,
                          absl::Time now) {
  Add(sweep_id, {index, now, false});
}

void SimFlightLog::Dead(const std::string& sweep_id,
                        const std::string& reason) {
  absl::MutexLock lock(&mu_);
  if (Sweep* sweep = Find(sweep_id)) sweep->dead_reason = reason;
}

v1::AgentFlightRecordsResponse SimFlightLog::Records(
    const std::string& sweep_id, int gpu) const {
  v1::AgentFlightRecordsResponse out;
  absl::MutexLock lock(&mu_);
  const Sweep* sweep = nullptr;
  for (auto it = sweeps_.rbegin(); it != sweeps_.rend(); ++it) {
    if (it->id == sweep_id) {
      sweep = &*it;
      break;
    }
  }
  if (sweep == nullptr) {
    for (int i = 0; i < local_ranks_; ++i) {
      v1::RankFlightRecords* r = out.add_ranks();
      r->set_rank(-1);
      r->set_local_index(i);
      r->set_gpu(gpu);
      r->set_reachable(true);
    }
    return out;
  }
  for (const auto& [local, rank] : sweep->ranks) {
    v1::RankFlightRecords* r = out.add_ranks();
    r->set_rank(rank);
    r->set_local_index(local);
    r->set_gpu(gpu);
    if (!sweep->dead_reason.empty()) {
      r->set_reachable(false);
      r->set_unreachable_reason(sweep->dead_reason);
      continue;
    }
    r->set_reachable(true);
    for (const Entry& e : sweep->entries) {
      if (e.index < 0 || e.index >= static_cast<int>(sweep->steps->size())) {
        continue;
      }
      const core::Step& step = (*sweep->steps)[e.index];
      v1::FlightRecord* rec = r->add_records();
      rec->set_sweep_id(sweep->id);
      rec->set_seq(static_cast<uint64_t>(e.index) + 1);
      rec->set_op(std::string(core::OpName(step.op)));
      rec->set_bytes(step.bytes);
      rec->set_dtype(std::string(core::DTypeName(step.dtype)));
      rec->set_enqueued_unix_seconds(UnixSeconds(e.at));
      rec->set_started_unix_seconds(UnixSeconds(e.at));
      if (e.completed) {
        rec->set_completed_unix_seconds(UnixSeconds(e.at));
        rec->set_state("completed");
      } else {
        rec->set_state("started");
      }
    }
  }
  return out;
}

}  // namespace fabricpulse::scale
