// Sweep history in SQLite: sweeps, their steps, and baselines computed from
// recent good sweeps. Lives in the coordinator's state dir so that a restart
// loses nothing.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "daemon/core/node_verdict.h"
#include "daemon/core/regression.h"

struct sqlite3;

namespace fabricpulse::coordinator {

class Statement;  // daemon/coordinator/store/schema.h

// Sweep statuses as stored: core::SweepOutcomeName's names (a test holds
// them equal).
inline constexpr char kSweepRunning[] = "running";
inline constexpr char kSweepSucceeded[] = "succeeded";
inline constexpr char kSweepFailed[] = "failed";
inline constexpr char kSweepAborted[] = "aborted";
inline constexpr char kSweepInterrupted[] = "interrupted";
// Yielded to a foreign compute process on a member GPU: not a fault.
inline constexpr char kSweepPreempted[] = "preempted";

// How long a call waits for another process's lock on the file before it
// fails with UNAVAILABLE.
inline constexpr absl::Duration kHistoryBusyTimeout = absl::Seconds(5);

// Where one rank of a sweep ran (v1::RankPlacement as stored).
struct RankRecord {
  int rank = 0;
  std::string node;
  int local_index = 0;
  int gpu = -1;            // -1 for CPU ranks
  std::string gpu_model;   // "" when unknown or a CPU rank
  std::string pci_bus_id;  // "" when unknown or a CPU rank
};

struct SweepRecord {
  std::string id;
  std::string plan;
  std::string trigger;    // "cli", "schedule:<name>"
  std::string spec_json;  // opaque text
  std::vector<std::string> nodes;
  int nranks = 0;
  std::string topology;  // signature
  std::string backend;
  std::string backend_version;
  absl::Time started = absl::InfinitePast();
  absl::Time finished = absl::InfinitePast();  // InfinitePast when unfinished
  std::string status;  // kSweepRunning, kSweepSucceeded, ...
  std::string error;
  std::string diagnosis;  // opaque text
  double comm_init_seconds = 0;
  bool comm_reused = false;
  // A rank that was consistently the slowest by a margin, described; "".
  std::string straggler;
  // Why the sweep's steps were not judged against earlier sweeps (its
  // backend version or topology differs from the plan's newest good
  // sweep's: "nccl 2.28.9 -> nccl 2.29.1: new baseline from this sweep");
  // "" when they were, or when there was nothing before.
  std::string baseline_change;
  // How the sweep measured (core::MeasurementKey); "" for sweeps stored
  // before schema version 10.
  std::string method_key;
  // Every rank's placement, by rank (at most nranks entries); empty for
  // sweeps stored before schema version 6.
  std::vector<RankRecord> ranks;
};

// The trigger of an isolation's sweeps: "isolation:<parent sweep id>".
// They never count towards a baseline (BaselineSamples,
// NewestBaselineKey).
inline constexpr char kIsolationTriggerPrefix[] = "isolation:";

// How many isolations the history keeps: saving one more removes the
// oldest (by start). Each has at most kMaxStoredIsolationRounds rounds.
inline constexpr int kMaxStoredIsolations = 1000;
inline constexpr int kMaxStoredIsolationRounds = 64;

// Isolation verdicts beside core::IsolationReport's (node, link, nodes,
// none).
inline constexpr char kIsolationRunning[] = "running";
inline constexpr char kIsolationGaveUp[] = "gave_up";
inline constexpr char kIsolationSkipped[] = "skipped";
inline constexpr char kIsolationInterrupted[] = "interrupted";

// One measurement of an isolation (core::IsolationRound as stored).
struct IsolationRoundRecord {
  std::string role;
  std::vector<std::string> nodes;
  bool ok = false;
  double busbw = 0;  // bytes per second; unused when !ok
  std::string error;
  std::string sweep_id;
};

// An isolation the coordinator ran after sweep `sweep_id` (schema version
// 9), one per sweep.
struct IsolationRecord {
  std::string sweep_id;  // the parent sweep
  std::string plan;
  std::string cause;  // "regression" or "failure"
  std::string op;
  uint64_t bytes = 0;
  absl::Time started = absl::InfinitePast();
  absl::Time finished = absl::InfinitePast();  // InfinitePast while running
  std::string verdict;  // kIsolationRunning, "node", ..., kIsolationGaveUp
  std::vector<std::string> culprits;
  std::string summary;
  std::vector<IsolationRoundRecord> rounds;  // in order
};

// Campaigns (campaign_rows.cc, schema version 11). The history keeps at
// most kMaxStoredNodeResults group results (all plans; the oldest go) and
// kMaxStoredCampaigns campaigns.
inline constexpr int kMaxStoredNodeResults = 100000;
inline constexpr int kMaxStoredCampaigns = 1000;
inline constexpr char kCampaignRunning[] = "running";
inline constexpr char kCampaignFinished[] = "finished";
inline constexpr char kCampaignInterrupted[] = "interrupted";

// One campaign's summary, as it stands (running) or ended.
struct CampaignRecord {
  std::string id;
  std::string plan;
  std::string trigger;
  std::string grouping;  // core::GroupingText, with ",group_by=KEY"
  absl::Time started = absl::InfinitePast();
  absl::Time finished = absl::InfinitePast();  // InfinitePast while running
  std::string status;  // kCampaignRunning, kCampaignFinished, ...
  int fleet = 0;       // nodes of the first pass
  int measured = 0;
  int untested = 0;  // verdicts of the fleet's nodes at the end (or now)
  int pass = 0;
  int degraded = 0;
  int fail = 0;
  int suspect = 0;
  int second_passes = 0;
  // Not stored: the plan's measured noise now (NodeVerdictBook::
  // NoiseSpread, relative), filled by CampaignRunner::NewestCampaigns;
  // absent before kMinNoisePool peer-judged results.
  std::optional<double> plan_noise;
};

// What a baseline is kept apart by, beside plan, nranks and the step.
struct BaselineKey {
  std::string topology;
  std::string backend_version;
};

// One rank pair of a pairwise matrix step (v1::PairResult).
struct PairRecord {
  int rank_a = 0;
  int rank_b = 0;
  std::string node_a;
  std::string node_b;
  std::string path;
  double time_seconds = 0;
  double algbw = 0;
  double busbw = 0;
  int64_t wrong = 0;
  bool flagged = false;
};

struct StepRecord {
  std::string sweep_id;
  int index = 0;
  std::string op;
  uint64_t bytes = 0;
  uint64_t count = 0;
  std::string dtype;
  std::string redop;
  int root = -1;
  bool in_place = false;
  double time_seconds = 0;
  double algbw = 0;
  double busbw = 0;
  int64_t wrong = 0;
  bool wrong_checked = true;  // false: not checked (wrong says nothing)
  bool baseline_noisy = false;
  int slowest_rank = -1;
  double min_rank_time_seconds = 0;
  double max_rank_time_seconds = 0;
  // The ranks' mean time; absent for steps stored before schema version 6.
  std::optional<double> mean_rank_time_seconds;
  std::optional<double> p50_seconds;  // absent: not measured
  std::optional<double> p99_seconds;
  bool regression = false;
  double baseline_busbw = 0;  // 0 when none
  // Ranks with a nonzero wrong count (at most nranks entries).
  std::map<int, int64_t> wrong_by_rank;
  // The rank that entered the timed ops last and by how much after the
  // median rank; absent when the ranks reported no arrival times.
  std::optional<int> last_arrival_rank;
  std::optional<double> arrival_lateness_seconds;
  // Median time of the baseline and how many sweeps it had (0: no
  // baseline; also for steps stored before baselines needed min_sweeps).
  double baseline_time_seconds = 0;
  int baseline_sweeps = 0;
  // Timed iterations every rank ran (0: unknown, a step stored before
  // schema version 5 whose spec did not say).
  int iterations = 0;
  // The pairwise op's round (absent for other ops) and its pairs.
  std::optional<int> round;
  std::vector<PairRecord> pairs;
};

struct SweepWithSteps {
  SweepRecord sweep;
  std::vector<StepRecord> steps;  // by index
};

// What one Prune removed.
struct PruneResult {
  int removed_by_age = 0;
  int removed_by_size = 0;
  uint64_t bytes_before = 0;  // the database file, before and after
  uint64_t bytes_after = 0;
};

// The coordinator's sweep history.
//
// Storage: one SQLite file (plus its -wal and -shm files) with the schema of
// schema.h, migrated at Open. Times are stored as Unix nanoseconds
// (InfinitePast as NULL); doubles round-trip exactly, NaN included.
//
// Durability: WAL journal with synchronous=NORMAL. Every method that writes
// is one transaction, committed to the WAL (in the OS page cache) before it
// returns, so a kill -9 of the process after a method returned loses
// nothing (tested). A power loss or kernel crash can lose the transactions
// since the last checkpoint: the price of not paying an fsync (milliseconds
// on ordinary disks) per step on the path of every result a user waits for.
// Opening after a crash replays the WAL.
//
// Size: the file uses SQLite's incremental auto-vacuum (set at Open, with a
// one-time VACUUM for files made before), so Prune gives the pages of what
// it removed back to the file system.
//
// Thread-safety: thread-safe. One connection, guarded by a mutex held for
// each method's whole transaction, so calls from different threads are
// serialized. Other processes using the same file are serialized by
// SQLite's locks; a call waits up to kHistoryBusyTimeout for them.
//
// Errors common to every method (from SQLite): UNAVAILABLE for a lock that
// did not clear in time or an I/O error, RESOURCE_EXHAUSTED for a full disk,
// DATA_LOSS for a corrupt file, INTERNAL otherwise.
class HistoryStore {
 public:
  // Opens (creating if needed) the database at `path` and migrates it to
  // the current schema. ":memory:" gives a private, non-durable store.
  // Errors: FAILED_PRECONDITION when the file's schema is newer than this
  // build (naming both versions) or the file cannot be opened/created;
  // DATA_LOSS when it is not a SQLite database; the common errors.
  static absl::StatusOr<std::unique_ptr<HistoryStore>> Open(
      const std::string& path);

  HistoryStore(const HistoryStore&) = delete;
  HistoryStore& operator=(const HistoryStore&) = delete;
  ~HistoryStore();  // closes the connection (checkpoints the WAL)

  // Records a new sweep with status "running" and finished InfinitePast
  // (the record's status and finished are ignored), its nodes in order and
  // its ranks' placements.
  // Errors: INVALID_ARGUMENT for an empty id; ALREADY_EXISTS when a sweep
  // with that id exists.
  absl::Status BeginSweep(const SweepRecord& sweep);

  // Records one step of a running sweep. Errors: NOT_FOUND when no sweep
  // has step.sweep_id; FAILED_PRECONDITION when that sweep is no longer
  // running; ALREADY_EXISTS when it already has a step with this index.
  absl::Status AddStep(const StepRecord& step);

  // Ends a running sweep with `status` (succeeded, failed, aborted or
  // interrupted), its error text, diagnosis and finish time. Errors:
  // INVALID_ARGUMENT for any other status; NOT_FOUND for an unknown id;
  // FAILED_PRECONDITION when the sweep is not running (already finished or
  // marked interrupted).
  // Records the sweep's communicator: built (init time of the slowest
  // rank) or reused. Errors: NOT_FOUND unknown id.
  absl::Status RecordComm(absl::string_view id, double init_seconds,
                          bool reused);
  // Records the sweep's straggler (see core::FindStraggler). Errors:
  // NOT_FOUND unknown id.
  absl::Status RecordStraggler(absl::string_view id,
                               absl::string_view straggler);
  absl::Status FinishSweep(absl::string_view id, absl::string_view status,
                           absl::string_view error, absl::string_view diagnosis,
                           absl::Time finished);

  // Turns every sweep still "running" into "interrupted", finished at
  // `now`, with an explanatory error unless it already had one. Call once
  // at coordinator start, before any new sweep. Returns how many changed.
  absl::StatusOr<int> MarkInterrupted(absl::Time now);

  // A sweep (nodes and ranks included) and its steps. Errors: NOT_FOUND for
  // an unknown id.
  absl::StatusOr<SweepWithSteps> GetSweep(absl::string_view id);

  // The `last_n` most recently started sweeps, newest first (ties: most
  // recently begun first), with nodes and ranks, without steps. Errors:
  // INVALID_ARGUMENT when last_n < 1.
  absl::StatusOr<std::vector<SweepRecord>> ListSweeps(int last_n);

  // The most recently started sweep of each trigger that begins with
  // `prefix` (e.g. "schedule:"), keyed by trigger, without nodes. One pass
  // over the sweeps, which the retention bounds. Errors: the common ones.
  absl::StatusOr<std::map<std::string, SweepRecord>> NewestByTrigger(
      absl::string_view prefix);

  // The baseline samples of a step: its time and busbw in each of the
  // `window` most recently started *succeeded* sweeps of `plan` with the
  // same nranks, topology and backend version that have a step with this
  // (op, dtype, bytes,
  // in_place) with a time and a busbw (NaN does not count), newest first.
  // Running, failed, aborted and interrupted sweeps never count. Empty when
  // there is none. Judge them with core::JudgeStep. Errors:
  // INVALID_ARGUMENT when window < 1.
  // Retention: removes every finished sweep (all but "running") that
  // started before `started_before` (or has no start time), then, while
  // the database's used pages exceed `max_bytes`, the finished sweeps that
  // started first; their steps and nodes go with them. A running sweep is
  // never removed. Then frees the pages (incremental vacuum, WAL checkpoint)
  // so the file shrinks. Each removal is its own transaction. Errors: the
  // common ones (what was removed before an error stays removed).
  absl::StatusOr<PruneResult> Prune(absl::Time started_before,
                                    uint64_t max_bytes);
  // The database's used size: its pages, but for free ones, times the page
  // size. Errors: the common ones.
  absl::StatusOr<uint64_t> UsedBytes();
  // Sweeps finished (FinishSweep, MarkInterrupted) through this store since
  // it was opened.
  uint64_t finished_count() const {
    return finished_count_.load(std::memory_order_relaxed);
  }

  // The time and busbw of the step (op, dtype, bytes, placement) in the
  // newest `window` succeeded sweeps of `plan` with the same rank count,
  // topology and backend version that have it, measured the same way
  // (`method_key`, core/measurement_key.h; sweeps stored before it was
  // recorded count for any), newest first; a step that was judged a
  // regression is left out (its sweep counts as not having it), as are
  // isolation sweeps. Errors: INVALID_ARGUMENT window < 1; the common ones.
  absl::StatusOr<std::vector<core::BaselineSample>> BaselineSamples(
      absl::string_view plan, absl::string_view op, absl::string_view dtype,
      uint64_t bytes, int nranks, absl::string_view topology,
      absl::string_view backend_version, bool in_place, int window,
      absl::string_view method_key = "");

  // The topology and backend version of the most recently started
  // succeeded sweep of `plan` with `nranks` ranks on the same members:
  // whose topology is `shape` or starts with `shape` and ';' (the members'
  // hardware may differ; see coordinator/topology_key.h). nullopt when
  // there is none.
  absl::StatusOr<std::optional<BaselineKey>> NewestBaselineKey(
      absl::string_view plan, int nranks, absl::string_view shape);

  // Isolations (isolation_rows.cc). Saves `isolation` (its sweep must
  // exist), replacing the one stored for that sweep, with at most
  // kMaxStoredIsolationRounds rounds (later ones are dropped), then removes
  // the oldest beyond kMaxStoredIsolations. The sweep's removal (retention)
  // removes its isolation. Errors: INVALID_ARGUMENT an empty sweep id;
  // NOT_FOUND no such sweep.
  absl::Status SaveIsolation(const IsolationRecord& isolation);
  // The isolation of sweep `sweep_id`; nullopt when it has none.
  absl::StatusOr<std::optional<IsolationRecord>> GetIsolation(
      absl::string_view sweep_id);
  // Turns every isolation still "running" into "interrupted", finished at
  // `now` (call once at start, like MarkInterrupted). Returns how many.
  absl::StatusOr<int> MarkIsolationsInterrupted(absl::Time now);

  // Campaigns (campaign_rows.cc). Appends one judged group result of
  // `plan`'s campaigns, then removes the oldest beyond `max_rows` (tests
  // lower it). Errors: INVALID_ARGUMENT an empty plan or node list, or an
  // infinite time.
  absl::Status SaveNodeResult(absl::string_view plan,
                              const core::GroupResult& result,
                              int max_rows = kMaxStoredNodeResults);
  // `plan`'s stored results, oldest first (as they were judged).
  absl::StatusOr<std::vector<core::GroupResult>> NodeResults(
      absl::string_view plan);
  // Inserts or replaces the campaign `campaign.id`, then removes the oldest
  // beyond kMaxStoredCampaigns. Errors: INVALID_ARGUMENT an empty id.
  absl::Status SaveCampaign(const CampaignRecord& campaign);
  // The newest `limit` campaigns of `plan` (every plan when empty), newest
  // first.
  absl::StatusOr<std::vector<CampaignRecord>> ListCampaigns(
      absl::string_view plan, int limit);
  // Turns every campaign still "running" into "interrupted", finished at
  // `now` (call once at start). Returns how many.
  absl::StatusOr<int> MarkCampaignsInterrupted(absl::Time now);

 private:
  explicit HistoryStore(sqlite3* db) : db_(db) {}
  // Runs `sql`, an UPDATE of sweep `id` with parameters bound by `bind`,
  // in a transaction. Errors: NOT_FOUND unknown id.
  absl::Status UpdateSweep(absl::string_view id, const char* sql,
                           const std::function<void(Statement&)>& bind);

  // Deletes up to `limit` finished sweeps that started first (all of them
  // when `started_before` is not InfinitePast: those that started before
  // it). Returns how many.
  absl::StatusOr<int> DeleteOldest(absl::Time started_before, int64_t limit)
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<uint64_t> UsedBytesLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  absl::Mutex mu_;
  sqlite3* const db_ ABSL_PT_GUARDED_BY(mu_);
  std::atomic<uint64_t> finished_count_{0};
};

}  // namespace fabricpulse::coordinator
