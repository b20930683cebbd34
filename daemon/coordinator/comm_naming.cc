#include "daemon/coordinator/comm_naming.h"

#include <algorithm>
#include <random>

#include "absl/strings/str_cat.h"
#include "daemon/core/limits.h"

namespace fabricpulse::coordinator {
namespace {

uint64_t Fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

std::string CommNaming::MemberKey(const std::vector<v1::AgentInfo>& agents) {
  std::string key;
  for (const v1::AgentInfo& agent : agents) {
    absl::StrAppend(&key, agent.node_name(), "@", agent.address(), "[");
    for (const v1::WorkerInfo& w : agent.workers()) {
      absl::StrAppend(&key, w.incarnation(), ",");
    }
    absl::StrAppend(&key, "];");
  }
  return key;
}

absl::Duration CommNaming::ShortestRelease(
    const std::vector<v1::AgentInfo>& agents) {
  absl::Duration shortest = absl::ZeroDuration();
  for (const v1::AgentInfo& agent : agents) {
    const double seconds = agent.release_idle_after_seconds();
    // What agents accept (common::WorkerResourceFlags); anything else,
    // NaN included, reads as "never releases".
    if (!(seconds > 0 && seconds <= 7 * 24 * 3600)) continue;
    const absl::Duration after = absl::Seconds(seconds);
    if (shortest == absl::ZeroDuration() || after < shortest) shortest = after;
  }
  return shortest;
}

absl::Duration CommNaming::ReleaseMargin(absl::Duration release_idle_after) {
  return std::min(release_idle_after / 10, absl::Seconds(10));
}

uint64_t CommNaming::RandomIncarnation() {
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) ^ device();
}

std::string CommNaming::CommId(const std::vector<v1::AgentInfo>& agents,
                               uint64_t epoch, absl::Time now) {
  const std::string members = MemberKey(agents);
  const absl::Duration release = ShortestRelease(agents);
  uint64_t generation;
  {
    absl::MutexLock lock(&mu_);
    if (release > absl::ZeroDuration()) {
      auto used = last_used_.find(members);
      if (used == last_used_.end() ||
          now - used->second >= release - ReleaseMargin(release)) {
        generation_[members]++;
      }
    }
    // find, not []: only a retired member set needs an entry.
    auto it = generation_.find(members);
    generation = it == generation_.end() ? 0 : it->second;
  }
  auto name = [&] {
    return absl::StrCat(
        "c", absl::Hex(Fnv1a(absl::StrCat(members, "#", epoch, "#", generation,
                                          "#", incarnation_)),
                       absl::kZeroPad16));
  };
  std::string id = name();
  std::vector<std::string> workers;
  for (const v1::AgentInfo& agent : agents) {
    for (const v1::WorkerInfo& w : agent.workers()) {
      workers.push_back(absl::StrCat(agent.node_name(), "/", w.incarnation()));
    }
  }
  absl::MutexLock lock(&mu_);
  bool evicted = false, may_hold = false;
  for (const std::string& worker : workers) {
    auto it = cached_.find(worker);
    if (it == cached_.end() || std::find(it->second.begin(), it->second.end(),
                                         id) != it->second.end()) {
      may_hold = true;
    } else {
      evicted = true;
    }
  }
  if (evicted && may_hold) {
    generation = ++generation_[members];
    id = name();
  }
  for (const std::string& worker : workers) {
    std::deque<std::string>& ids = cached_[worker];
    ids.erase(std::remove(ids.begin(), ids.end(), id), ids.end());
    ids.push_front(id);
    while (ids.size() > core::kWorkerCommCacheCapacity) ids.pop_back();
  }
  while (cached_.size() > kMaxMirroredWorkers) cached_.erase(cached_.begin());
  return id;
}

void CommNaming::Used(const std::vector<v1::AgentInfo>& agents,
                      absl::Time now) {
  if (ShortestRelease(agents) <= absl::ZeroDuration()) return;
  absl::MutexLock lock(&mu_);
  last_used_[MemberKey(agents)] = now;
  if (last_used_.size() <= kMaxRemembered) return;
  auto oldest = last_used_.begin();
  for (auto it = last_used_.begin(); it != last_used_.end(); ++it) {
    if (it->second < oldest->second) oldest = it;
  }
  last_used_.erase(oldest);
}

void CommNaming::Retire(const std::vector<v1::AgentInfo>& agents) {
  absl::MutexLock lock(&mu_);
  generation_[MemberKey(agents)]++;
}

}  // namespace fabricpulse::coordinator
