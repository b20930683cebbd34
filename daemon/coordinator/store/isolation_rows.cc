// The `isolations` and `isolation_rounds` tables (schema version 9):
// HistoryStore's isolation methods.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "daemon/coordinator/store/history_store.h"
#include "daemon/coordinator/store/schema.h"
#include "daemon/core/name_rules.h"
#include "daemon/core/status_macros.h"

namespace fabricpulse::coordinator {
namespace {

std::vector<std::string> SplitList(const std::string& text) {
  if (text.empty()) return {};
  return absl::StrSplit(text, ',');
}

absl::Status WriteRounds(sqlite3* db, const IsolationRecord& isolation) {
  FP_ASSIGN_OR_RETURN(
      Statement insert,
      Statement::Prepare(db,
                         "INSERT INTO isolation_rounds (sweep_id, position, "
                         "role, nodes, ok, busbw, error, round_sweep_id) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"));
  const size_t n = std::min(isolation.rounds.size(),
                            static_cast<size_t>(kMaxStoredIsolationRounds));
  for (size_t i = 0; i < n; ++i) {
    const IsolationRoundRecord& r = isolation.rounds[i];
    insert.BindText(1, isolation.sweep_id);
    insert.BindInt(2, static_cast<int64_t>(i));
    insert.BindText(3, r.role);
    insert.BindText(4, absl::StrJoin(r.nodes, ","));
    insert.BindInt(5, r.ok ? 1 : 0);
    if (r.ok) {
      insert.BindDouble(6, r.busbw);
    } else {
      insert.BindNull(6);
    }
    insert.BindText(7, r.error);
    insert.BindText(8, r.sweep_id);
    FP_RETURN_IF_ERROR(insert.Run());
    insert.Reset();
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<IsolationRoundRecord>> ReadRounds(
    sqlite3* db, absl::string_view sweep_id) {
  FP_ASSIGN_OR_RETURN(
      Statement select,
      Statement::Prepare(db,
                         "SELECT role, nodes, ok, busbw, error, round_sweep_id "
                         "FROM isolation_rounds WHERE sweep_id = ? ORDER BY "
                         "position"));
  select.BindText(1, sweep_id);
  std::vector<IsolationRoundRecord> rounds;
  while (true) {
    FP_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    IsolationRoundRecord r;
    r.role = select.ColumnText(0);
    r.nodes = SplitList(select.ColumnText(1));
    r.ok = select.ColumnInt(2) != 0;
    r.busbw = r.ok ? select.ColumnDouble(3) : 0;
    r.error = select.ColumnText(4);
    r.sweep_id = select.ColumnText(5);
    rounds.push_back(std::move(r));
  }
  return rounds;
}

}  // namespace

absl::Status HistoryStore::SaveIsolation(const IsolationRecord& isolation) {
  if (isolation.sweep_id.empty()) {
    return absl::InvalidArgumentError("history store: isolation of no sweep");
  }
  absl::MutexLock lock(&mu_);
  FP_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db_, /*write=*/true));
  FP_ASSIGN_OR_RETURN(
      Statement exists,
      Statement::Prepare(db_, "SELECT 1 FROM sweeps WHERE id = ?"));
  exists.BindText(1, isolation.sweep_id);
  FP_ASSIGN_OR_RETURN(bool found, exists.Step());
  exists.Reset();
  if (!found) {
    return absl::NotFoundError(absl::StrCat(
        "history store: no sweep ", core::QuotePrefix(isolation.sweep_id)));
  }
  // Its old rounds go with the old row (ON DELETE CASCADE).
  FP_ASSIGN_OR_RETURN(
      Statement remove,
      Statement::Prepare(db_, "DELETE FROM isolations WHERE sweep_id = ?"));
  remove.BindText(1, isolation.sweep_id);
  FP_RETURN_IF_ERROR(remove.Run());
  FP_ASSIGN_OR_RETURN(
      Statement insert,
      Statement::Prepare(
          db_,
          "INSERT INTO isolations (sweep_id, plan, cause, op, bytes, "
          "started_unix_nanos, finished_unix_nanos, verdict, culprits, "
          "summary) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  insert.BindText(1, isolation.sweep_id);
  insert.BindText(2, isolation.plan);
  insert.BindText(3, isolation.cause);
  insert.BindText(4, isolation.op);
  insert.BindInt(5, static_cast<int64_t>(isolation.bytes));
  BindTime(insert, 6, isolation.started);
  BindTime(insert, 7, isolation.finished);
  insert.BindText(8, isolation.verdict);
  insert.BindText(9, absl::StrJoin(isolation.culprits, ","));
  insert.BindText(10, isolation.summary);
  FP_RETURN_IF_ERROR(insert.Run());
  FP_RETURN_IF_ERROR(WriteRounds(db_, isolation));
  // The bound: the oldest beyond kMaxStoredIsolations go.
  FP_ASSIGN_OR_RETURN(
      Statement prune,
      Statement::Prepare(
          db_,
          "DELETE FROM isolations WHERE sweep_id IN (SELECT sweep_id FROM "
          "isolations ORDER BY started_unix_nanos DESC, rowid DESC LIMIT -1 "
          "OFFSET ?)"));
  prune.BindInt(1, kMaxStoredIsolations);
  FP_RETURN_IF_ERROR(prune.Run());
  return txn.Commit();
}

absl::StatusOr<std::optional<IsolationRecord>> HistoryStore::GetIsolation(
    absl::string_view sweep_id) {
  absl::MutexLock lock(&mu_);
  FP_ASSIGN_OR_RETURN(Transaction txn,
                      Transaction::Begin(db_, /*write=*/false));
  FP_ASSIGN_OR_RETURN(
      Statement select,
      Statement::Prepare(db_,
                         "SELECT plan, cause, op, bytes, started_unix_nanos, "
                         "finished_unix_nanos, verdict, culprits, summary "
                         "FROM isolations WHERE sweep_id = ?"));
  select.BindText(1, sweep_id);
  FP_ASSIGN_OR_RETURN(bool found, select.Step());
  if (!found) return std::optional<IsolationRecord>();
  IsolationRecord r;
  r.sweep_id = std::string(sweep_id);
  r.plan = select.ColumnText(0);
  r.cause = select.ColumnText(1);
  r.op = select.ColumnText(2);
  r.bytes = static_cast<uint64_t>(select.ColumnInt(3));
  r.started = ColumnTime(select, 4);
  r.finished = ColumnTime(select, 5);
  r.verdict = select.ColumnText(6);
  r.culprits = SplitList(select.ColumnText(7));
  r.summary = select.ColumnText(8);
  select.Reset();
  FP_ASSIGN_OR_RETURN(r.rounds, ReadRounds(db_, sweep_id));
  FP_RETURN_IF_ERROR(txn.Commit());
  return std::optional<IsolationRecord>(std::move(r));
}

absl::StatusOr<int> HistoryStore::MarkIsolationsInterrupted(absl::Time now) {
  absl::MutexLock lock(&mu_);
  FP_ASSIGN_OR_RETURN(
      Statement update,
      Statement::Prepare(
          db_,
          "UPDATE isolations SET verdict = 'interrupted', "
          "finished_unix_nanos = ?, summary = 'the coordinator stopped while "
          "the isolation was running' WHERE verdict = 'running'"));
  BindTime(update, 1, now);
  FP_RETURN_IF_ERROR(update.Run());
  return sqlite3_changes(db_);
}

}  // namespace fabricpulse::coordinator
