#include "daemon/worker/flight_recorder.h"

#include "absl/time/clock.h"

namespace fabricpulse::worker {
namespace {

double NowUnix() {
  return absl::ToDoubleSeconds(absl::Now() - absl::UnixEpoch());
}

}  // namespace

uint64_t FlightRecorder::Begin(const std::string& sweep_id,
                               const std::string& comm_id, int rank,
                               uint64_t seq, const std::string& op,
                               uint64_t bytes, const std::string& dtype) {
  absl::MutexLock lock(&mu_);
  Entry e;
  e.id = next_id_++;
  e.rank = rank;
  e.record.set_sweep_id(sweep_id);
  e.record.set_comm_id(comm_id);
  e.record.set_seq(seq);
  e.record.set_op(op);
  e.record.set_bytes(bytes);
  e.record.set_dtype(dtype);
  const double now = NowUnix();
  // Steps run synchronously: joined and started at once.
  e.record.set_enqueued_unix_seconds(now);
  e.record.set_started_unix_seconds(now);
  e.record.set_state("started");
  ring_.push_back(std::move(e));
  while (ring_.size() > capacity_) ring_.pop_front();
  return ring_.back().id;
}

void FlightRecorder::Finish(uint64_t id, const absl::Status& status) {
  absl::MutexLock lock(&mu_);
  for (auto it = ring_.rbegin(); it != ring_.rend(); ++it) {
    if (it->id != id) continue;
    if (status.ok()) {
      it->record.set_state("completed");
      it->record.set_completed_unix_seconds(NowUnix());
    } else {
      switch (status.code()) {
        case absl::StatusCode::kDeadlineExceeded:
        case absl::StatusCode::kAborted:
        case absl::StatusCode::kUnavailable:
        case absl::StatusCode::kCancelled:
          break;  // a victim of someone else: joined, not finished
        default:
          it->record.set_state("failed");
      }
      it->record.set_error(std::string(status.message()));
    }
    return;
  }
}

std::vector<v1::FlightRecord> FlightRecorder::Snapshot(
    const std::string& sweep_id, int* rank) const {
  absl::MutexLock lock(&mu_);
  std::vector<v1::FlightRecord> out;
  *rank = -1;
  for (const Entry& e : ring_) {
    if (!sweep_id.empty() && e.record.sweep_id() != sweep_id) continue;
    out.push_back(e.record);
    *rank = e.rank;
  }
  return out;
}

}  // namespace fabricpulse::worker
