// The key-value store that backs the workers' rendezvous (Gloo's
// gloo::rendezvous::Store, NCCL's unique id), in sweep scopes.
//
// Keys exist only inside an open scope: the orchestrator opens the scope
// "<comm_id>/<sweep_id>/" when a sweep starts, naming its member nodes and
// its rank count, and closes it when the sweep ends in any way; closing
// erases the scope's keys and ends its waits at once. A key outside every
// open scope is refused, so nothing a client writes outlives the sweep it
// belongs to, and nothing is written while no sweep runs. Every scope, and
// all of them together, is bounded (rendezvous_limits.h).
//
// Waits hold no thread: Get registers a callback that is called exactly
// once — by the Set of its key, its deadline (on the store's one timer
// thread), the close of its scope, Shutdown, or Cancel (its client went
// away).
//
// Callers are named by node (the node of the caller's certificate; "" for
// an unknown caller, as in plaintext mode, which skips the member check).
//
// Statuses (each message says what failed and, for a bound, names it):
//   INVALID_ARGUMENT    empty key.
//   RESOURCE_EXHAUSTED  a bound: key length; value bytes per key, keys per
//                       scope, bytes per scope, waits per scope (each for
//                       the scope's rank count); bytes over all scopes,
//                       waits over all scopes.
//   FAILED_PRECONDITION the key is in no open scope (no running sweep owns
//                       it: not started, or ended), or its scope closed
//                       while the call waited. FAILED_PRECONDITION rather
//                       than PERMISSION_DENIED: it says "not now" (the
//                       sweep is not running), not "not you"; a worker that
//                       sees it ends its rendezvous at once (only
//                       DEADLINE_EXCEEDED is retried) with that reason.
//   PERMISSION_DENIED   the caller's node is not a member of the scope's
//                       sweep.
//   DEADLINE_EXCEEDED   Get: the key was not set within the wait.
//   CANCELLED           Get: cancelled (Cancel).
//   UNAVAILABLE         the store is shut down (coordinator stopping).
//
// Thread-safe. Callbacks run on the thread that completes them (a Set's,
// the timer's, a CloseScope's, Shutdown's or Cancel's, or Get's own when
// the answer is known at once), never under the store's lock; they must not
// block.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "daemon/coordinator/rendezvous_limits.h"
#include "daemon/core/clock.h"

namespace fabricpulse::coordinator {

class RendezvousStore {
 public:
  using GetDone = std::function<void(absl::StatusOr<std::string>)>;

  // `clock` outlives the store; waits' deadlines are on its time.
  explicit RendezvousStore(core::Clock* clock, RendezvousLimits limits = {});
  ~RendezvousStore();  // Shutdown()
  RendezvousStore(const RendezvousStore&) = delete;
  RendezvousStore& operator=(const RendezvousStore&) = delete;

  // Opens the scope `prefix` ("<comm_id>/<sweep_id>/": non-empty, ends in
  // '/') for a sweep of `nranks` ranks on `members` (node names), with
  // limits().ForRanks(nranks) as its budget. Errors: INVALID_ARGUMENT a bad
  // prefix or nranks < 1; ALREADY_EXISTS the prefix is open, or one open
  // scope's prefix starts the other's; UNAVAILABLE shut down.
  absl::Status OpenScope(const std::string& prefix,
                         std::vector<std::string> members, int nranks);
  // Closes `prefix`: erases its keys and fails its waits with
  // FAILED_PRECONDITION, before it returns. Nothing when it is not open.
  void CloseScope(const std::string& prefix);

  // Sets `key` (overwriting frees the old value's bytes first). Errors:
  // as above.
  absl::Status Set(const std::string& caller, const std::string& key,
                   std::string value);
  // Answers `key`'s value to `done`, waiting up to `wait` for it to be set
  // (a wait <= 0 answers at once). `done` is called exactly once; with an
  // error (see above) when the call is refused. Returns the wait's id for
  // Cancel, or 0 when `done` was already called.
  uint64_t Get(const std::string& caller, const std::string& key,
               absl::Duration wait, GetDone done);
  // Ends wait `id` now with CANCELLED (its `done` is called before this
  // returns). Nothing when it is no longer waiting (or id is 0).
  void Cancel(uint64_t id);

  // Fails every wait with UNAVAILABLE, refuses every later call, erases
  // every key and stops the timer thread. Idempotent; not from a callback.
  void Shutdown();

  struct Usage {
    size_t scopes = 0;
    size_t keys = 0;
    size_t bytes = 0;  // as the bounds count them
    size_t waiters = 0;
  };
  Usage usage() const;
  // Keys set since start (grows only when communicators are created).
  uint64_t sets() const;
  const RendezvousLimits& limits() const { return limits_; }

 private:
  struct Scope {
    std::set<std::string> members;
    int nranks = 0;
    RendezvousScopeBudget budget;
    size_t keys = 0;
    size_t bytes = 0;
    std::set<uint64_t> waiters;
  };
  struct Waiter {
    std::string key;
    std::string scope;
    absl::Time deadline;
    GetDone done;
  };
  // The open scope that holds `key`, or nullptr.
  Scope* FindScopeLocked(const std::string& key, std::string* prefix)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Checks everything common to Set and Get; on success *scope and
  // *prefix name the key's scope.
  absl::Status CheckAccessLocked(const std::string& caller,
                                 const std::string& key, Scope** scope,
                                 std::string* prefix)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Removes wait `id` from every index; returns its callback (empty when it
  // was not waiting).
  GetDone TakeWaiterLocked(uint64_t id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Expires waits on the timer thread until Shutdown.
  void TimerLoop();

  core::Clock* const clock_;
  const RendezvousLimits limits_;
  mutable absl::Mutex mu_;
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
  std::map<std::string, Scope> scopes_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::string> values_ ABSL_GUARDED_BY(mu_);
  size_t total_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t sets_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t next_waiter_ ABSL_GUARDED_BY(mu_) = 1;
  std::map<uint64_t, Waiter> waiters_ ABSL_GUARDED_BY(mu_);
  // Waits by key, and by deadline (the timer's queue).
  std::map<std::string, std::set<uint64_t>> waiting_on_ ABSL_GUARDED_BY(mu_);
  std::set<std::pair<absl::Time, uint64_t>> deadlines_ ABSL_GUARDED_BY(mu_);
  absl::Mutex join_mu_;
  std::thread timer_ ABSL_GUARDED_BY(join_mu_);
};

}  // namespace fabricpulse::coordinator
