#include "daemon/coordinator/rendezvous_store.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace fabricpulse::coordinator {
namespace {

// Node names are quoted up to this many characters.
constexpr size_t kMaxQuoted = 64;

std::string Quoted(const std::string& s) {
  if (s.size() <= kMaxQuoted) return absl::StrCat("'", s, "'");
  return absl::StrCat("'", s.substr(0, kMaxQuoted), "...'");
}

size_t Charge(const std::string& key, const std::string& value) {
  return key.size() + value.size() + kRendezvousEntryOverhead;
}

absl::Status ShutDownError() {
  return absl::UnavailableError("rendezvous: the coordinator is shutting down");
}

absl::Status Bound(absl::string_view what, size_t have, size_t bound,
                   absl::string_view unit, int nranks) {
  return absl::ResourceExhaustedError(absl::StrCat(
      "rendezvous bound on ", what, " reached: ", have, " ", unit,
      " would exceed ", bound,
      nranks > 0
          ? absl::StrCat(" (the budget of a sweep of ", nranks, " ranks)")
          : std::string(" (over all running sweeps)")));
}

}  // namespace

RendezvousStore::RendezvousStore(core::Clock* clock, RendezvousLimits limits)
    : clock_(clock), limits_(limits) {
  absl::MutexLock lock(&join_mu_);
  timer_ = std::thread([this] { TimerLoop(); });
}

RendezvousStore::~RendezvousStore() { Shutdown(); }

absl::Status RendezvousStore::OpenScope(const std::string& prefix,
                                        std::vector<std::string> members,
                                        int nranks) {
  if (prefix.empty() || prefix.back() != '/' || prefix.size() == 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("rendezvous scope ", Quoted(prefix),
                     ": must be non-empty and end in '/'"));
  }
  if (nranks < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "rendezvous scope ", Quoted(prefix), ": nranks ", nranks, " < 1"));
  }
  absl::MutexLock lock(&mu_);
  if (shut_down_) return ShutDownError();
  // Prefixes never nest: a key then belongs to one scope at most, found as
  // the greatest open prefix not above it.
  auto next = scopes_.lower_bound(prefix);
  const bool overlaps_next =
      next != scopes_.end() && absl::StartsWith(next->first, prefix);
  const bool overlaps_previous =
      next != scopes_.begin() &&
      absl::StartsWith(prefix, std::prev(next)->first);
  if (overlaps_next || overlaps_previous) {
    return absl::AlreadyExistsError(absl::StrCat(
        "rendezvous scope ", Quoted(prefix), ": overlaps an open scope"));
  }
  Scope& scope = scopes_[prefix];
  scope.members.insert(members.begin(), members.end());
  scope.nranks = nranks;
  scope.budget = limits_.ForRanks(nranks);
  return absl::OkStatus();
}

void RendezvousStore::CloseScope(const std::string& prefix) {
  std::vector<GetDone> ended;
  {
    absl::MutexLock lock(&mu_);
    auto it = scopes_.find(prefix);
    if (it == scopes_.end()) return;
    const std::set<uint64_t> ids = it->second.waiters;
    for (uint64_t id : ids) ended.push_back(TakeWaiterLocked(id));
    for (auto v = values_.lower_bound(prefix);
         v != values_.end() && absl::StartsWith(v->first, prefix);) {
      total_bytes_ -= Charge(v->first, v->second);
      v = values_.erase(v);
    }
    scopes_.erase(it);
  }
  for (GetDone& done : ended) {
    done(absl::FailedPreconditionError(
        "rendezvous: the sweep ended while waiting (its keys are erased)"));
  }
}

RendezvousStore::Scope* RendezvousStore::FindScopeLocked(const std::string& key,
                                                         std::string* prefix) {
  auto it = scopes_.upper_bound(key);
  if (it == scopes_.begin()) return nullptr;
  --it;
  // Strictly under the prefix: the prefix itself is no key.
  if (key.size() <= it->first.size() || !absl::StartsWith(key, it->first)) {
    return nullptr;
  }
  *prefix = it->first;
  return &it->second;
}

absl::Status RendezvousStore::CheckAccessLocked(const std::string& caller,
                                                const std::string& key,
                                                Scope** scope,
                                                std::string* prefix) {
  if (shut_down_) return ShutDownError();
  if (key.empty()) return absl::InvalidArgumentError("key: must not be empty");
  if (key.size() > limits_.max_key_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "rendezvous bound on key length reached: a key of ", key.size(),
        " bytes exceeds ", limits_.max_key_bytes, " bytes"));
  }
  *scope = FindScopeLocked(key, prefix);
  if (*scope == nullptr) {
    return absl::FailedPreconditionError(
        "rendezvous: no running sweep owns this key (keys exist only under "
        "<comm_id>/<sweep_id>/ of a running sweep, while it runs)");
  }
  if (!caller.empty() && (*scope)->members.count(caller) == 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("rendezvous: node ", Quoted(caller),
                     " is not a member of the sweep that owns this key"));
  }
  return absl::OkStatus();
}

absl::Status RendezvousStore::Set(const std::string& caller,
                                  const std::string& key, std::string value) {
  std::vector<GetDone> answered;
  {
    absl::MutexLock lock(&mu_);
    Scope* scope = nullptr;
    std::string prefix;
    absl::Status access = CheckAccessLocked(caller, key, &scope, &prefix);
    if (!access.ok()) return access;
    const RendezvousScopeBudget& budget = scope->budget;
    if (value.size() > budget.max_value_bytes) {
      return Bound("value bytes per key", value.size(), budget.max_value_bytes,
                   "bytes", scope->nranks);
    }
    auto existing = values_.find(key);
    const size_t old_charge =
        existing == values_.end() ? 0 : Charge(key, existing->second);
    const size_t new_charge = Charge(key, value);
    const size_t keys = scope->keys + (existing == values_.end() ? 1 : 0);
    if (keys > budget.max_keys) {
      return Bound("keys per sweep", keys, budget.max_keys, "keys",
                   scope->nranks);
    }
    const size_t scope_bytes = scope->bytes - old_charge + new_charge;
    if (scope_bytes > budget.max_bytes) {
      return Bound("bytes per sweep", scope_bytes, budget.max_bytes, "bytes",
                   scope->nranks);
    }
    const size_t total = total_bytes_ - old_charge + new_charge;
    if (total > limits_.max_total_bytes) {
      return Bound("bytes over all sweeps", total, limits_.max_total_bytes,
                   "bytes", 0);
    }
    scope->keys = keys;
    scope->bytes = scope_bytes;
    total_bytes_ = total;
    sets_++;
    auto waiting = waiting_on_.find(key);
    if (waiting != waiting_on_.end()) {
      const std::set<uint64_t> ids = waiting->second;
      for (uint64_t id : ids) answered.push_back(TakeWaiterLocked(id));
    }
    values_[key] = std::move(value);
    if (!answered.empty()) value = values_[key];  // one copy for the waits
  }
  for (GetDone& done : answered) done(value);
  return absl::OkStatus();
}

uint64_t RendezvousStore::Get(const std::string& caller, const std::string& key,
                              absl::Duration wait, GetDone done) {
  absl::StatusOr<std::string> answer;
  {
    absl::MutexLock lock(&mu_);
    Scope* scope = nullptr;
    std::string prefix;
    absl::Status access = CheckAccessLocked(caller, key, &scope, &prefix);
    if (!access.ok()) {
      answer = access;
    } else if (auto it = values_.find(key); it != values_.end()) {
      answer = it->second;
    } else if (wait <= absl::ZeroDuration()) {
      answer = absl::DeadlineExceededError(
          "rendezvous: the key is not set (no wait asked)");
    } else if (scope->waiters.size() + 1 > scope->budget.max_waiters) {
      answer = Bound("waiting calls per sweep", scope->waiters.size() + 1,
                     scope->budget.max_waiters, "calls", scope->nranks);
    } else if (waiters_.size() + 1 > limits_.max_total_waiters) {
      answer = Bound("waiting calls over all sweeps", waiters_.size() + 1,
                     limits_.max_total_waiters, "calls", 0);
    } else {
      const uint64_t id = next_waiter_++;
      const absl::Time deadline = clock_->Now() + wait;
      waiters_[id] = Waiter{key, prefix, deadline, std::move(done)};
      waiting_on_[key].insert(id);
      deadlines_.insert({deadline, id});
      scope->waiters.insert(id);
      return id;
    }
  }
  done(std::move(answer));
  return 0;
}

void RendezvousStore::Cancel(uint64_t id) {
  GetDone done;
  {
    absl::MutexLock lock(&mu_);
    done = TakeWaiterLocked(id);
  }
  if (done) done(absl::CancelledError("rendezvous: the wait was cancelled"));
}

RendezvousStore::GetDone RendezvousStore::TakeWaiterLocked(uint64_t id) {
  auto it = waiters_.find(id);
  if (it == waiters_.end()) return nullptr;
  Waiter& w = it->second;
  auto on_key = waiting_on_.find(w.key);
  if (on_key != waiting_on_.end()) {
    on_key->second.erase(id);
    if (on_key->second.empty()) waiting_on_.erase(on_key);
  }
  deadlines_.erase({w.deadline, id});
  auto scope = scopes_.find(w.scope);
  if (scope != scopes_.end()) scope->second.waiters.erase(id);
  GetDone done = std::move(w.done);
  waiters_.erase(it);
  return done;
}

void RendezvousStore::TimerLoop() {
  while (true) {
    std::vector<GetDone> expired;
    {
      absl::MutexLock lock(&mu_);
      auto has_work = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return shut_down_ || !deadlines_.empty();
      };
      mu_.Await(absl::Condition(&has_work));
      if (shut_down_) return;
      const absl::Time next = deadlines_.begin()->first;
      // Until the earliest deadline comes, or an earlier one is added, or
      // the earliest is answered (the queue's head changes).
      const uint64_t head = deadlines_.begin()->second;
      auto head_changed = [this, next,
                           head]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return shut_down_ || deadlines_.empty() ||
               *deadlines_.begin() != std::make_pair(next, head);
      };
      if (clock_->AwaitWithDeadline(&mu_, absl::Condition(&head_changed),
                                    next)) {
        continue;
      }
      const absl::Time now = clock_->Now();
      while (!deadlines_.empty() && deadlines_.begin()->first <= now) {
        expired.push_back(TakeWaiterLocked(deadlines_.begin()->second));
      }
    }
    for (GetDone& done : expired) {
      done(absl::DeadlineExceededError(
          "rendezvous: the key was not set within the wait"));
    }
  }
}

void RendezvousStore::Shutdown() {
  std::vector<GetDone> ended;
  {
    absl::MutexLock lock(&mu_);
    if (!shut_down_) {
      shut_down_ = true;
      while (!waiters_.empty()) {
        ended.push_back(TakeWaiterLocked(waiters_.begin()->first));
      }
      values_.clear();
      scopes_.clear();
      total_bytes_ = 0;
    }
  }
  for (GetDone& done : ended) done(ShutDownError());
  absl::MutexLock lock(&join_mu_);
  if (timer_.joinable()) timer_.join();
}

RendezvousStore::Usage RendezvousStore::usage() const {
  absl::MutexLock lock(&mu_);
  Usage u;
  u.scopes = scopes_.size();
  u.keys = values_.size();
  u.bytes = total_bytes_;
  u.waiters = waiters_.size();
  return u;
}

uint64_t RendezvousStore::sets() const {
  absl::MutexLock lock(&mu_);
  return sets_;
}

}  // namespace fabricpulse::coordinator
