// The `node_results` and `campaigns` tables (schema version 11):
// HistoryStore's campaign methods.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "daemon/coordinator/store/history_store.h"
#include "daemon/coordinator/store/schema.h"
#include "daemon/core/status_macros.h"

namespace fabricpulse::coordinator {
namespace {

constexpr char kCampaignColumns[] =
    "id, plan, trigger, grouping, started_unix_nanos, finished_unix_nanos, "
    "status, fleet, measured, untested, pass, degraded, fail, suspect, "
    "second_passes";

CampaignRecord ReadCampaign(const Statement& s) {
  CampaignRecord c;
  c.id = s.ColumnText(0);
  c.plan = s.ColumnText(1);
  c.trigger = s.ColumnText(2);
  c.grouping = s.ColumnText(3);
  c.started = ColumnTime(s, 4);
  c.finished = ColumnTime(s, 5);
  c.status = s.ColumnText(6);
  int* counts[] = {&c.fleet,    &c.measured, &c.untested, &c.pass,
                   &c.degraded, &c.fail,     &c.suspect,  &c.second_passes};
  for (int i = 0; i < 8; ++i) *counts[i] = static_cast<int>(s.ColumnInt(7 + i));
  return c;
}

}  // namespace

absl::Status HistoryStore::SaveNodeResult(absl::string_view plan,
                                          const core::GroupResult& result,
                                          int max_rows) {
  if (plan.empty() || result.nodes.empty() ||
      result.at == absl::InfinitePast() ||
      result.at == absl::InfiniteFuture()) {
    return absl::InvalidArgumentError(
        "history store: a node result needs a plan, nodes and a finite time");
  }
  absl::MutexLock lock(&mu_);
  FP_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db_, /*write=*/true));
  FP_ASSIGN_OR_RETURN(
      Statement insert,
      Statement::Prepare(
          db_,
          "INSERT INTO node_results (plan, at_unix_nanos, nodes, ok, "
          "data_wrong, busbw, reference_busbw, reference_spread, sweep_id, "
          "error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  insert.BindText(1, plan);
  BindTime(insert, 2, result.at);
  insert.BindText(3, absl::StrJoin(result.nodes, ","));
  insert.BindInt(4, result.ok ? 1 : 0);
  insert.BindInt(5, result.data_wrong ? 1 : 0);
  if (std::isfinite(result.busbw)) {
    insert.BindDouble(6, result.busbw);
  } else {
    insert.BindNull(6);
  }
  insert.BindDouble(7, result.reference_busbw);
  insert.BindDouble(8, result.reference_spread);
  insert.BindText(9, result.sweep_id);
  insert.BindText(10, result.error);
  FP_RETURN_IF_ERROR(insert.Run());
  FP_ASSIGN_OR_RETURN(
      Statement prune,
      Statement::Prepare(db_,
                         "DELETE FROM node_results WHERE id <= (SELECT id "
                         "FROM node_results ORDER BY id DESC LIMIT 1 OFFSET "
                         "?)"));
  prune.BindInt(1, max_rows);
  FP_RETURN_IF_ERROR(prune.Run());
  return txn.Commit();
}

absl::StatusOr<std::vector<core::GroupResult>> HistoryStore::NodeResults(
    absl::string_view plan) {
  absl::MutexLock lock(&mu_);
  FP_ASSIGN_OR_RETURN(Transaction txn,
                      Transaction::Begin(db_, /*write=*/false));
  FP_ASSIGN_OR_RETURN(
      Statement select,
      Statement::Prepare(db_,
                         "SELECT at_unix_nanos, nodes, ok, data_wrong, busbw, "
                         "reference_busbw, reference_spread, sweep_id, error "
                         "FROM node_results WHERE plan = ? ORDER BY id"));
  select.BindText(1, plan);
  std::vector<core::GroupResult> out;
  while (true) {
    FP_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    core::GroupResult r;
    r.at = ColumnTime(select, 0);
    r.nodes = absl::StrSplit(select.ColumnText(1), ',');
    r.ok = select.ColumnInt(2) != 0;
    r.data_wrong = select.ColumnInt(3) != 0;
    r.busbw = select.ColumnDouble(4);  // NULL: NaN, not measured
    r.reference_busbw = select.ColumnDouble(5);
    r.reference_spread = select.ColumnDouble(6);
    r.sweep_id = select.ColumnText(7);
    r.error = select.ColumnText(8);
    out.push_back(std::move(r));
  }
  select.Reset();
  FP_RETURN_IF_ERROR(txn.Commit());
  return out;
}

absl::Status HistoryStore::SaveCampaign(const CampaignRecord& c) {
  if (c.id.empty()) {
    return absl::InvalidArgumentError("history store: campaign with no id");
  }
  absl::MutexLock lock(&mu_);
  FP_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db_, /*write=*/true));
  FP_ASSIGN_OR_RETURN(
      Statement insert,
      Statement::Prepare(
          db_,
          absl::StrCat("INSERT OR REPLACE INTO campaigns (", kCampaignColumns,
                       ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                       "?, ?, ?)")
              .c_str()));
  insert.BindText(1, c.id);
  insert.BindText(2, c.plan);
  insert.BindText(3, c.trigger);
  insert.BindText(4, c.grouping);
  BindTime(insert, 5, c.started);
  BindTime(insert, 6, c.finished);
  insert.BindText(7, c.status);
  const int counts[] = {c.fleet,    c.measured, c.untested, c.pass,
                        c.degraded, c.fail,     c.suspect,  c.second_passes};
  for (int i = 0; i < 8; ++i) insert.BindInt(8 + i, counts[i]);
  FP_RETURN_IF_ERROR(insert.Run());
  FP_ASSIGN_OR_RETURN(
      Statement prune,
      Statement::Prepare(
          db_,
          "DELETE FROM campaigns WHERE id IN (SELECT id FROM campaigns ORDER "
          "BY started_unix_nanos DESC, rowid DESC LIMIT -1 OFFSET ?)"));
  prune.BindInt(1, kMaxStoredCampaigns);
  FP_RETURN_IF_ERROR(prune.Run());
  return txn.Commit();
}

absl::StatusOr<std::vector<CampaignRecord>> HistoryStore::ListCampaigns(
    absl::string_view plan, int limit) {
  absl::MutexLock lock(&mu_);
  FP_ASSIGN_OR_RETURN(Transaction txn,
                      Transaction::Begin(db_, /*write=*/false));
  FP_ASSIGN_OR_RETURN(
      Statement select,
      Statement::Prepare(
          db_, absl::StrCat("SELECT ", kCampaignColumns,
                            " FROM campaigns WHERE (? = '' OR plan = ?) ORDER "
                            "BY started_unix_nanos DESC, rowid DESC LIMIT ?")
                   .c_str()));
  select.BindText(1, plan);
  select.BindText(2, plan);
  select.BindInt(3, limit);
  std::vector<CampaignRecord> out;
  while (true) {
    FP_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    out.push_back(ReadCampaign(select));
  }
  select.Reset();
  FP_RETURN_IF_ERROR(txn.Commit());
  return out;
}

absl::StatusOr<int> HistoryStore::MarkCampaignsInterrupted(absl::Time now) {
  absl::MutexLock lock(&mu_);
  FP_ASSIGN_OR_RETURN(
      Statement update,
      Statement::Prepare(db_,
                         "UPDATE campaigns SET status = 'interrupted', "
                         "finished_unix_nanos = ? WHERE status = 'running'"));
  BindTime(update, 1, now);
  FP_RETURN_IF_ERROR(update.Run());
  return sqlite3_changes(db_);
}

}  // namespace fabricpulse::coordinator
