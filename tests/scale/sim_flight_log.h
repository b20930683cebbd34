// A simulated agent's flight recorder: which steps its ranks got through in
// its recent sweeps, answered as AgentService.GetFlightRecords, so the
// coordinator's hang diagnosis has something real to read.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "daemon/core/sweep_spec.h"
#include "fabricpulse/v1/agent.pb.h"

namespace fabricpulse::scale {

// Thread-safe. Keeps the last kSweeps sweeps and, per sweep, the last
// kRecords steps; all local ranks of a simulated agent move in lockstep.
class SimFlightLog {
 public:
  static constexpr size_t kSweeps = 16;
  static constexpr size_t kRecords = 16;

  // `local_ranks` is the number of the agent's workers.
  explicit SimFlightLog(int local_ranks) : local_ranks_(local_ranks) {}

  // A sweep reached the agent; `ranks` holds (local index, global rank).
  void Begin(const std::string& sweep_id,
             std::shared_ptr<const std::vector<core::Step>> steps,
             std::vector<std::pair<int, int>> ranks);
  // Every local rank completed step `index` at `now`.
  void Completed(const std::string& sweep_id, int index, absl::Time now);
  // Every local rank joined step `index` at `now` and will not finish it.
  void Joined(const std::string& sweep_id, int index, absl::Time now);
  // The sweep's ranks are dead: reported unreachable with `reason`.
  void Dead(const std::string& sweep_id, const std::string& reason);

  // One entry per local worker: the sweep's records oldest first (state
  // "completed", or "started" for a joined step), or unreachable for a dead
  // sweep. An unknown sweep gives every worker reachable with rank -1 and
  // no records. `gpu` is reported as each worker's device.
  v1::AgentFlightRecordsResponse Records(const std::string& sweep_id,
                                         int gpu) const;

 private:
  struct Entry {
    int index = 0;
    absl::Time at;
    bool completed = false;
  };
  struct Sweep {
    std::string id;
    std::shared_ptr<const std::vector<core::Step>> steps;
    std::vector<std::pair<int, int>> ranks;
    std::deque<Entry> entries;
    std::string dead_reason;
  };
  Sweep* Find(const std::string& sweep_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Add(const std::string& sweep_id, Entry entry);

  const int local_ranks_;
  mutable absl::Mutex mu_;
  std::deque<Sweep> sweeps_ ABSL_GUARDED_BY(mu_);
};

}  // namespace fabricpulse::scale
