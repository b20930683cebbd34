#include "daemon/coordinator/store/history_store.h"

#include <sqlite3.h>

#include <cstdint>
#include <functional>

#include "absl/strings/str_cat.h"
#include "daemon/coordinator/store/pair_rows.h"
#include "daemon/coordinator/store/schema.h"
#include "daemon/coordinator/store/sweep_ranks.h"
#include "daemon/core/name_rules.h"
#include "daemon/core/status_macros.h"

namespace fabricpulse::coordinator {
namespace {

// The status of sweep `id`. Errors: NOT_FOUND for an unknown id.
absl::StatusOr<std::string> SweepStatus(sqlite3* db, absl::string_view id) {
  FP_ASSIGN_OR_RETURN(
      Statement stmt,
      Statement::Prepare(db, "SELECT status FROM sweeps WHERE id = ?"));
  stmt.BindText(1, id);
  FP_ASSIGN_OR_RETURN(bool found, stmt.Step());
  if (!found) {
    return absl::NotFoundError(
        absl::StrCat("history store: no sweep ", core::QuotePrefix(id)));
  }
  return stmt.ColumnText(0);
}

absl::StatusOr<std::vector<std::string>> ReadNodes(sqlite3* db,
                                                   absl::string_view id) {
  FP_ASSIGN_OR_RETURN(
      Statement stmt,
      Statement::Prepare(db,
                         "SELECT node FROM sweep_nodes WHERE sweep_id = ? "
                         "ORDER BY position"));
  stmt.BindText(1, id);
  std::vector<std::string> nodes;
  while (true) {
    FP_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    nodes.push_back(stmt.ColumnText(0));
  }
  return nodes;
}

bool IsFinalStatus(absl::string_view status) {
  return status == kSweepSucceeded || status == kSweepFailed ||
         status == kSweepAborted || status == kSweepInterrupted ||
         status == kSweepPreempted;
}

// WAL, durability and the schema, on a fresh connection.
absl::Status Configure(sqlite3* db, const std::string& path) {
  sqlite3_busy_timeout(
      db, static_cast<int>(absl::ToInt64Milliseconds(kHistoryBusyTimeout)));
  FP_ASSIGN_OR_RETURN(Statement wal,
                      Statement::Prepare(db, "PRAGMA journal_mode = WAL"));
  FP_ASSIGN_OR_RETURN(bool row, wal.Step());
  const std::string mode = row ? wal.ColumnText(0) : "";
  wal.Reset();  // a statement in progress would block the migration's COMMIT
  if (mode != "wal" && !(mode == "memory" && path == ":memory:")) {
    return absl::FailedPreconditionError(
        absl::StrCat("history store: cannot use WAL journaling (mode is '",
                     mode, "'); put the state dir on a local file system"));
  }
  FP_RETURN_IF_ERROR(
      Exec(db, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON",
           "setting durability"));
  // Retention gives pages back with incremental vacuum, which a file must
  // be made for: a new one before its first table, an older one by one
  // VACUUM (once; it rewrites the file).
  FP_ASSIGN_OR_RETURN(Statement vacuum_mode,
                      Statement::Prepare(db, "PRAGMA auto_vacuum"));
  FP_ASSIGN_OR_RETURN(bool has_mode, vacuum_mode.Step());
  const int64_t auto_vacuum = has_mode ? vacuum_mode.ColumnInt(0) : 0;
  vacuum_mode.Reset();
  if (auto_vacuum != 2) {
    FP_RETURN_IF_ERROR(Exec(db, "PRAGMA auto_vacuum = INCREMENTAL; VACUUM",
                            "turning on incremental vacuum"));
  }
  return ApplyMigrations(db);
}

}  // namespace

absl::StatusOr<std::unique_ptr<HistoryStore>> HistoryStore::Open(
    const std::string& path) {
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(
      path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  // From here on `store` owns the connection and closes it on every path.
  std::unique_ptr<HistoryStore> store(new HistoryStore(db));
  if (rc != SQLITE_OK) {
    return SqliteStatus(db, rc, absl::StrCat("opening '", path, "'"));
  }
  absl::Status status = Configure(db, path);
  if (!status.ok()) {
    return absl::Status(status.code(),
                        absl::StrCat(status.message(), " (file '", path, "')"));
  }
  return store;
}

HistoryStore::~HistoryStore() {
  absl::MutexLock lock(&mu_);
  sqlite3_close_v2(db_);
}

absl::Status HistoryStore::BeginSweep(const SweepRecord& sweep) {
  if (sweep.id.empty()) {
    return absl::InvalidArgumentError("history store: sweep id is empty");
  }
  absl::MutexLock lock(&mu_);
  FP_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db_, /*write=*/true));
  FP_ASSIGN_OR_RETURN(
      Statement insert,
      Statement::Prepare(
          db_, absl::StrCat("INSERT INTO sweeps (", kSweepColumns,
                            ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                            "?, ?, ?, ?, ?, ?, ?)")
                   .c_str()));
  SweepRecord row = sweep;
  row.status = kSweepRunning;
  row.finished = absl::InfinitePast();
  BindSweepRow(insert, row);
  if (absl::Status status = insert.Run(); !status.ok()) {
    if (status.code() == absl::StatusCode::kAlreadyExists) {
      return absl::AlreadyExistsError(
          absl::StrCat("history store: sweep '", sweep.id, "' already exists"));
    }
    return status;
  }
  for (size_t i = 0; i < sweep.nodes.size(); ++i) {
    FP_ASSIGN_OR_RETURN(
        Statement node,
        Statement::Prepare(db_,
                           "INSERT INTO sweep_nodes (sweep_id, position, "
                           "node) VALUES (?, ?, ?)"));
    node.BindText(1, sweep.id);
    node.BindInt(2, static_cast<int64_t>(i));
    node.BindText(3, sweep.nodes[i]);
    FP_RETURN_IF_ERROR(node.Run());
  }
  FP_RETURN_IF_ERROR(WriteSweepRanks(db_, sweep.id, sweep.ranks));
  return txn.Commit();
}

absl::Status HistoryStore::AddStep(const StepRecord& step) {
  absl::MutexLock lock(&mu_);
  FP_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db_, /*write=*/true));
  FP_ASSIGN_OR_RETURN(std::string status, SweepStatus(db_, step.sweep_id));
  if (status != kSweepRunning) {
    return absl::FailedPreconditionError(
        absl::StrCat("history store: sweep '", step.sweep_id, "' is ", status,
                     ", not running; steps can only be added while it runs"));
  }
  FP_ASSIGN_OR_RETURN(
      Statement insert,
      Statement::Prepare(db_,
                         absl::StrCat("INSERT INTO steps (", kStepColumns,
                                      ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, "
                                      "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                                      "?, ?, ?, ?, ?, ?, ?, ?, ?)")
                             .c_str()));
  BindStepRow(insert, step);
  if (absl::Status inserted = insert.Run(); !inserted.ok()) {
    if (inserted.code() == absl::StatusCode::kAlreadyExists) {
      return absl::AlreadyExistsError(
          absl::StrCat("history store: sweep '", step.sweep_id,
                       "' already has step ", step.index));
    }
    return inserted;
  }
  FP_RETURN_IF_ERROR(InsertPairs(db_, step));
  return txn.Commit();
}

absl::Status HistoryStore::UpdateSweep(
    absl::string_view id, const char* sql,
    const std::function<void(Statement&)>& bind) {
  absl::MutexLock lock(&mu_);
  FP_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db_, /*write=*/true));
  FP_ASSIGN_OR_RETURN(std::string current, SweepStatus(db_, id));
  (void)current;  // exists
  FP_ASSIGN_OR_RETURN(Statement update, Statement::Prepare(db_, sql));
  bind(update);
  FP_RETURN_IF_ERROR(update.Run());
  return txn.Commit();
}

absl::Status HistoryStore::RecordComm(absl::string_view id, double init_seconds,
                                      bool reused) {
  return UpdateSweep(id,
                     "UPDATE sweeps SET comm_init_seconds = ?, comm_reused = ? "
                     "WHERE id = ?",
                     [&](Statement& update) {
                       update.BindDouble(1, init_seconds);
                       update.BindInt(2, reused ? 1 : 0);
                       update.BindText(3, id);
                     });
}

absl::Status HistoryStore::RecordStraggler(absl::string_view id,
                                           absl::string_view straggler) {
  return UpdateSweep(id, "UPDATE sweeps SET straggler = ? WHERE id = ?",
                     [&](Statement& update) {
                       update.BindText(1, straggler);
                       update.BindText(2, id);
                     });
}

absl::Status HistoryStore::FinishSweep(absl::string_view id,
                                       absl::string_view status,
                                       absl::string_view error,
                                       absl::string_view diagnosis,
                                       absl::Time finished) {
  if (!IsFinalStatus(status)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "history store: cannot finish sweep '", id, "' as '", status,
        "'; allowed: succeeded, failed, aborted, interrupted, preempted"));
  }
  absl::MutexLock lock(&mu_);
  FP_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db_, /*write=*/true));
  FP_ASSIGN_OR_RETURN(std::string current, SweepStatus(db_, id));
  if (current != kSweepRunning) {
    return absl::FailedPreconditionError(
        absl::StrCat("history store: sweep '", id, "' is already ", current));
  }
  FP_ASSIGN_OR_RETURN(
      Statement update,
      Statement::Prepare(db_,
                         "UPDATE sweeps SET status = ?, error = ?, "
                         "diagnosis = ?, finished_unix_nanos = ? WHERE "
                         "id = ?"));
  update.BindText(1, status);
  update.BindText(2, error);
  update.BindText(3, diagnosis);
  BindTime(update, 4, finished);
  update.BindText(5, id);
  FP_RETURN_IF_ERROR(update.Run());
  FP_RETURN_IF_ERROR(txn.Commit());
  finished_count_.fetch_add(1, std::memory_order_relaxed);
  return absl::OkStatus();
}

absl::StatusOr<int> HistoryStore::MarkInterrupted(absl::Time now) {
  absl::MutexLock lock(&mu_);
  FP_ASSIGN_OR_RETURN(
      Statement update,
      Statement::Prepare(
          db_,
          "UPDATE sweeps SET status = 'interrupted', finished_unix_nanos = ?, "
          "error = CASE WHEN error = '' THEN 'the coordinator stopped while "
          "the sweep was running' ELSE error END WHERE status = 'running'"));
  BindTime(update, 1, now);
  FP_RETURN_IF_ERROR(update.Run());
  const int changed = sqlite3_changes(db_);
  finished_count_.fetch_add(changed, std::memory_order_relaxed);
  return changed;
}

absl::StatusOr<SweepWithSteps> HistoryStore::GetSweep(absl::string_view id) {
  absl::MutexLock lock(&mu_);
  FP_ASSIGN_OR_RETURN(Transaction txn,
                      Transaction::Begin(db_, /*write=*/false));
  FP_ASSIGN_OR_RETURN(
      Statement select,
      Statement::Prepare(db_, absl::StrCat("SELECT ", kSweepColumns,
                                           " FROM sweeps WHERE id = ?")
                                  .c_str()));
  select.BindText(1, id);
  FP_ASSIGN_OR_RETURN(bool found, select.Step());
  if (!found) {
    return absl::NotFoundError(
        absl::StrCat("history store: no sweep ", core::QuotePrefix(id)));
  }
  SweepWithSteps result;
  result.sweep = ReadSweepRow(select);
  select.Reset();
  FP_ASSIGN_OR_RETURN(result.sweep.nodes, ReadNodes(db_, id));
  FP_ASSIGN_OR_RETURN(result.sweep.ranks, ReadSweepRanks(db_, id));
  FP_ASSIGN_OR_RETURN(
      Statement steps,
      Statement::Prepare(db_, absl::StrCat("SELECT ", kStepColumns,
                                           " FROM steps WHERE sweep_id = ? "
                                           "ORDER BY step_index")
                                  .c_str()));
  steps.BindText(1, id);
  while (true) {
    FP_ASSIGN_OR_RETURN(bool row, steps.Step());
    if (!row) break;
    result.steps.push_back(ReadStepRow(steps));
  }
  FP_RETURN_IF_ERROR(ReadPairs(db_, id, result.steps));
  FP_RETURN_IF_ERROR(txn.Commit());
  return result;
}

absl::StatusOr<std::vector<SweepRecord>> HistoryStore::ListSweeps(int last_n) {
  if (last_n < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("history store: last_n: ", last_n,
                     " is out of range; allowed: 1 or more"));
  }
  absl::MutexLock lock(&mu_);
  FP_ASSIGN_OR_RETURN(Transaction txn,
                      Transaction::Begin(db_, /*write=*/false));
  // NULL (InfinitePast) start times sort first ascending, so last here.
  FP_ASSIGN_OR_RETURN(
      Statement select,
      Statement::Prepare(db_, absl::StrCat("SELECT ", kSweepColumns,
                                           " FROM sweeps ORDER BY "
                                           "started_unix_nanos DESC, rowid "
                                           "DESC LIMIT ?")
                                  .c_str()));
  select.BindInt(1, last_n);
  std::vector<SweepRecord> sweeps;
  while (true) {
    FP_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    sweeps.push_back(ReadSweepRow(select));
  }
  for (SweepRecord& sweep : sweeps) {
    FP_ASSIGN_OR_RETURN(sweep.nodes, ReadNodes(db_, sweep.id));
    FP_ASSIGN_OR_RETURN(sweep.ranks, ReadSweepRanks(db_, sweep.id));
  }
  FP_RETURN_IF_ERROR(txn.Commit());
  return sweeps;
}

absl::StatusOr<std::map<std::string, SweepRecord>>
HistoryStore::NewestByTrigger(absl::string_view prefix) {
  absl::MutexLock lock(&mu_);
  FP_ASSIGN_OR_RETURN(Transaction txn,
                      Transaction::Begin(db_, /*write=*/false));
  // SQLite takes the bare columns of an aggregate query from the row that
  // holds the MAX(). substr rather than LIKE: '_' in names is no wildcard.
  FP_ASSIGN_OR_RETURN(
      Statement select,
      Statement::Prepare(
          db_, absl::StrCat("SELECT ", kSweepColumns,
                            ", MAX(started_unix_nanos) FROM sweeps WHERE "
                            "substr(sweep_trigger, 1, ?1) = ?2 GROUP BY "
                            "sweep_trigger")
                   .c_str()));
  select.BindInt(1, static_cast<int64_t>(prefix.size()));
  select.BindText(2, prefix);
  std::map<std::string, SweepRecord> newest;
  while (true) {
    FP_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    SweepRecord sweep = ReadSweepRow(select);
    std::string trigger = sweep.trigger;
    newest.emplace(std::move(trigger), std::move(sweep));
  }
  FP_RETURN_IF_ERROR(txn.Commit());
  return newest;
}

absl::StatusOr<std::vector<core::BaselineSample>> HistoryStore::BaselineSamples(
    absl::string_view plan, absl::string_view op, absl::string_view dtype,
    uint64_t bytes, int nranks, absl::string_view topology,
    absl::string_view backend_version, bool in_place, int window,
    absl::string_view method_key) {
  if (window < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("history store: window: ", window,
                     " is out of range; allowed: 1 or more"));
  }
  absl::MutexLock lock(&mu_);
  // Walks the plan's succeeded sweeps newest first along
  // sweeps_by_baseline_key and stops after `window` that have the step. A
  // step judged a regression is no sample: a fault that persists stays a
  // regression instead of becoming the baseline (issue 29, item 2).
  constexpr char kStep[] =
      "FROM steps st WHERE st.sweep_id = s.id AND st.op = ?4 AND st.dtype = ?5 "
      "AND st.bytes = ?6 AND st.in_place = ?7 AND st.busbw IS NOT NULL AND "
      "st.time_seconds IS NOT NULL AND st.regression = 0";
  FP_ASSIGN_OR_RETURN(
      Statement select,
      Statement::Prepare(
          db_, absl::StrCat(
                   "SELECT (SELECT st.time_seconds ", kStep,
                   " ORDER BY st.step_index LIMIT 1), (SELECT st.busbw ", kStep,
                   " ORDER BY st.step_index LIMIT 1) FROM sweeps s WHERE "
                   "s.plan = ?1 AND s.status = 'succeeded' AND s.nranks = "
                   "?2 AND s.topology = ?3 AND s.backend_version = ?9 AND "
                   "(s.method_key = ?10 OR s.method_key = '') AND "
                   "substr(s.sweep_trigger, 1, 10) != 'isolation:' AND "
                   "EXISTS (SELECT 1 ",
                   kStep,
                   ") ORDER BY s.started_unix_nanos DESC, s.rowid DESC "
                   "LIMIT ?8")
                   .c_str()));
  select.BindText(1, plan);
  select.BindInt(2, nranks);
  select.BindText(3, topology);
  select.BindText(4, op);
  select.BindText(5, dtype);
  select.BindInt(6, static_cast<int64_t>(bytes));
  select.BindInt(7, in_place ? 1 : 0);
  select.BindInt(8, window);
  select.BindText(9, backend_version);
  select.BindText(10, method_key);
  std::vector<core::BaselineSample> samples;
  while (true) {
    FP_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    samples.push_back({select.ColumnDouble(0), select.ColumnDouble(1)});
  }
  return samples;
}

absl::StatusOr<std::optional<BaselineKey>> HistoryStore::NewestBaselineKey(
    absl::string_view plan, int nranks, absl::string_view shape) {
  absl::MutexLock lock(&mu_);
  // Along sweeps_by_baseline_key: the plan's succeeded sweeps of this
  // many ranks, newest first, whose topology is the shape or extends it.
  FP_ASSIGN_OR_RETURN(
      Statement select,
      Statement::Prepare(
          db_,
          "SELECT topology, backend_version FROM sweeps WHERE plan = ?1 AND "
          "status = 'succeeded' AND nranks = ?2 AND (topology = ?3 OR "
          "substr(topology, 1, length(?3) + 1) = ?3 || ';') AND "
          "substr(sweep_trigger, 1, 10) != 'isolation:' ORDER BY "
          "started_unix_nanos DESC, rowid DESC LIMIT 1"));
  select.BindText(1, plan);
  select.BindInt(2, nranks);
  select.BindText(3, shape);
  FP_ASSIGN_OR_RETURN(bool row, select.Step());
  if (!row) return std::optional<BaselineKey>();
  return std::optional<BaselineKey>(
      BaselineKey{select.ColumnText(0), select.ColumnText(1)});
}

}  // namespace fabricpulse::coordinator
