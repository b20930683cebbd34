// Names communicators: the same members (with the same worker
// incarnations), membership epoch and generation give the same id, so
// workers reuse their cached communicator; anything else gives a new id.
//
// Workers drop communicators unused for their agent's --release-idle-after
// (AgentInfo.release_idle_after_seconds). A member set quiet for nearly
// that long (kReleaseMargin before it), or not seen since this coordinator
// started, gets a new generation, so that no rank reuses a communicator
// that a peer has dropped.
//
// Workers also evict the least recently used communicator beyond
// core::kWorkerCommCacheCapacity. The coordinator names every sweep's
// communicator, so it mirrors each worker's cache (by its incarnation):
// when some member has evicted a member set's communicator and another may
// still hold it, the set gets a new generation, so that every rank creates
// the communicator afresh instead of some reusing one that a peer has
// destroyed (which hangs or fails the sweep). A worker the mirror does not
// know yet (first seen since this coordinator started) may hold anything.
//
// Ids also carry a random number drawn when the naming is made (once per
// coordinator process): a restarted coordinator, whose membership epochs
// and generations start over and whose mirror is empty, never names a
// communicator that workers cached under the last one (some members may
// hold it, others have evicted it: reusing it fails the sweep). The first
// sweep of each member set after a restart creates its communicator
// afresh; the stale ones leave the workers' caches by eviction or idle
// release.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::coordinator {

// Thread-safe.
class CommNaming {
 public:
  // Member sets whose last use is remembered; the least recently used is
  // forgotten beyond it (then treated as unseen: a new generation).
  static constexpr size_t kMaxRemembered = 4096;
  // Workers whose caches are mirrored; beyond it the first in key order is
  // forgotten (then it may hold anything again).
  static constexpr size_t kMaxMirroredWorkers = 65536;

  // `agents` sorted by node name, with their workers' incarnations; `now`
  // judges how long the members have been quiet.
  std::string CommId(const std::vector<v1::AgentInfo>& agents, uint64_t epoch,
                     absl::Time now);
  // A sweep of these members ended at `now`.
  void Used(const std::vector<v1::AgentInfo>& agents, absl::Time now);
  // Retires the communicator of these members: the next CommId differs.
  void Retire(const std::vector<v1::AgentInfo>& agents);

  // How long before a worker's release the coordinator stops reusing its
  // communicator: a tenth of the quiet period, at most 10 s (the time a
  // sweep request may take to reach every worker).
  static absl::Duration ReleaseMargin(absl::Duration release_idle_after);

 private:
  static uint64_t RandomIncarnation();
  const uint64_t incarnation_ = RandomIncarnation();
  static std::string MemberKey(const std::vector<v1::AgentInfo>& agents);
  // The shortest --release-idle-after among the members; zero: none
  // releases.
  static absl::Duration ShortestRelease(
      const std::vector<v1::AgentInfo>& agents);
  absl::Mutex mu_;
  std::map<std::string, uint64_t> generation_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, absl::Time> last_used_ ABSL_GUARDED_BY(mu_);
  // Each worker's cached communicator ids, most recently used first (at
  // most core::kWorkerCommCacheCapacity each), by "node/incarnation".
  std::map<std::string, std::deque<std::string>> cached_ ABSL_GUARDED_BY(mu_);
};

}  // namespace fabricpulse::coordinator
