// HistoryStore's retention (Prune): kept apart from the record/read paths.
#include <sqlite3.h>

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "daemon/coordinator/store/history_store.h"
#include "daemon/coordinator/store/schema.h"
#include "daemon/core/status_macros.h"

namespace fabricpulse::coordinator {
namespace {

absl::StatusOr<int64_t> PragmaInt(sqlite3* db, const char* pragma) {
  FP_ASSIGN_OR_RETURN(Statement stmt, Statement::Prepare(db, pragma));
  FP_ASSIGN_OR_RETURN(bool row, stmt.Step());
  return row ? stmt.ColumnInt(0) : 0;
}

absl::StatusOr<uint64_t> FileBytes(sqlite3* db) {
  FP_ASSIGN_OR_RETURN(int64_t pages, PragmaInt(db, "PRAGMA page_count"));
  FP_ASSIGN_OR_RETURN(int64_t page_size, PragmaInt(db, "PRAGMA page_size"));
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size);
}

// Sweeps removed per transaction.
constexpr int kDeleteBatch = 64;
// A size pass stops after this many rounds of estimate, delete, measure.
constexpr int kMaxSizeRounds = 64;

}  // namespace

absl::StatusOr<uint64_t> HistoryStore::UsedBytesLocked() {
  FP_ASSIGN_OR_RETURN(int64_t pages, PragmaInt(db_, "PRAGMA page_count"));
  FP_ASSIGN_OR_RETURN(int64_t free, PragmaInt(db_, "PRAGMA freelist_count"));
  FP_ASSIGN_OR_RETURN(int64_t page_size, PragmaInt(db_, "PRAGMA page_size"));
  return static_cast<uint64_t>(std::max<int64_t>(pages - free, 0)) *
         static_cast<uint64_t>(page_size);
}

absl::StatusOr<uint64_t> HistoryStore::UsedBytes() {
  absl::MutexLock lock(&mu_);
  return UsedBytesLocked();
}

absl::StatusOr<int> HistoryStore::DeleteOldest(absl::Time started_before,
                                               int64_t limit) {
  absl::MutexLock lock(&mu_);
  FP_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db_, /*write=*/true));
  // NULL start times sort first: they count as the oldest. The steps and
  // nodes go by ON DELETE CASCADE.
  FP_ASSIGN_OR_RETURN(
      Statement del,
      Statement::Prepare(
          db_,
          "DELETE FROM sweeps WHERE id IN (SELECT id FROM sweeps WHERE "
          "status != 'running' AND (?1 IS NULL OR started_unix_nanos IS NULL "
          "OR started_unix_nanos < ?1) ORDER BY started_unix_nanos ASC, rowid "
          "ASC LIMIT ?2)"));
  BindTime(del, 1, started_before);
  del.BindInt(2, limit);
  FP_RETURN_IF_ERROR(del.Run());
  const int removed = sqlite3_changes(db_);
  FP_RETURN_IF_ERROR(txn.Commit());
  return removed;
}

absl::StatusOr<PruneResult> HistoryStore::Prune(absl::Time started_before,
                                                uint64_t max_bytes) {
  // The lock is taken per batch, so that a running sweep's steps are
  // recorded between them.
  PruneResult result;
  {
    absl::MutexLock lock(&mu_);
    FP_ASSIGN_OR_RETURN(result.bytes_before, FileBytes(db_));
  }
  while (true) {
    FP_ASSIGN_OR_RETURN(int removed,
                        DeleteOldest(started_before, kDeleteBatch));
    result.removed_by_age += removed;
    if (removed < kDeleteBatch) break;
  }
  for (int round = 0; round < kMaxSizeRounds; ++round) {
    FP_ASSIGN_OR_RETURN(uint64_t used, UsedBytes());
    if (used <= max_bytes) break;
    int64_t sweeps = 0;
    {
      absl::MutexLock lock(&mu_);
      FP_ASSIGN_OR_RETURN(sweeps, PragmaInt(db_,
                                            "SELECT COUNT(*) FROM sweeps "
                                            "WHERE status != 'running'"));
    }
    if (sweeps == 0) break;
    // The share of the finished sweeps that is over the bound, at least
    // one: the oldest go first, and the next round measures again.
    const double over = static_cast<double>(used - max_bytes) / used;
    const int64_t count = std::clamp<int64_t>(
        static_cast<int64_t>(over * static_cast<double>(sweeps)) + 1, 1,
        std::min<int64_t>(sweeps, kDeleteBatch));
    FP_ASSIGN_OR_RETURN(int removed, DeleteOldest(absl::InfinitePast(), count));
    result.removed_by_size += removed;
    if (removed == 0) break;
  }
  absl::MutexLock lock(&mu_);
  if (result.removed_by_age + result.removed_by_size > 0) {
    // Pages of removed rows go back to the file system: first out of the
    // database (its size shrinks in the WAL), then out of the file at the
    // checkpoint.
    FP_RETURN_IF_ERROR(
        Exec(db_, "PRAGMA incremental_vacuum", "freeing removed pages"));
    FP_RETURN_IF_ERROR(Exec(db_, "PRAGMA wal_checkpoint(TRUNCATE)",
                            "checkpointing after retention"));
  }
  FP_ASSIGN_OR_RETURN(result.bytes_after, FileBytes(db_));
  return result;
}

}  // namespace fabricpulse::coordinator
