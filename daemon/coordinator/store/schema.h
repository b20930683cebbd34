// The history store's SQLite schema, its migrations, the few SQLite helpers
// the store is built on (status conversion, statements, transactions), and
// the mapping between records and table rows.
//
// Schema versions live in `PRAGMA user_version`: 0 is an empty database,
// N means migrations 1..N have been applied. Migrations are append-only:
// never edit a released one, add the next.
//
// Thread-safety: none of these functions lock; callers serialize use of a
// connection (HistoryStore holds its mutex around every call).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "daemon/coordinator/store/history_store.h"

namespace fabricpulse::coordinator {

// The schema version this build writes and understands.
int LatestSchemaVersion();

// Reads `PRAGMA user_version`. Errors: those of SqliteStatus.
absl::StatusOr<int> ReadSchemaVersion(sqlite3* db);

// Brings `db` to LatestSchemaVersion(): in one IMMEDIATE transaction,
// applies every migration newer than the stored version and sets
// user_version; on any failure the transaction is rolled back and the file
// is unchanged. Errors: FAILED_PRECONDITION naming both versions when the
// database is newer than this build ("... schema version 7 is newer than
// this coordinator supports (1) ..."); those of SqliteStatus otherwise.
absl::Status ApplyMigrations(sqlite3* db);

// Converts a SQLite result code into a Status with message
// "history store: <what>: <sqlite message>". OK for SQLITE_OK/ROW/DONE.
// Codes: SQLITE_BUSY/LOCKED -> UNAVAILABLE; CONSTRAINT -> ALREADY_EXISTS;
// NOTADB/CORRUPT -> DATA_LOSS; CANTOPEN/PERM/READONLY/AUTH ->
// FAILED_PRECONDITION; FULL -> RESOURCE_EXHAUSTED; IOERR -> UNAVAILABLE;
// anything else -> INTERNAL.
absl::Status SqliteStatus(sqlite3* db, int rc, absl::string_view what);

// Runs one or more SQL statements without results.
absl::Status Exec(sqlite3* db, const char* sql, absl::string_view what);

// A prepared statement with typed binders and readers. Bind indexes are
// 1-based, column indexes 0-based (as in SQLite). Not copyable.
class Statement {
 public:
  // Errors: those of SqliteStatus (a bad SQL text is INTERNAL).
  static absl::StatusOr<Statement> Prepare(sqlite3* db, const char* sql);

  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) = delete;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  void BindText(int index, absl::string_view value);
  void BindInt(int index, int64_t value);
  void BindDouble(int index, double value);
  void BindNull(int index);

  // Steps once: true when a row is ready, false when done. Errors: those of
  // SqliteStatus (ALREADY_EXISTS for a uniqueness violation).
  absl::StatusOr<bool> Step();
  // Steps to completion, expecting no rows.
  absl::Status Run();
  // Ends a step in progress (releasing its locks) so that the statement can
  // run again; bindings are kept. A COMMIT fails while a statement that
  // returned a row has not been reset, finished or destroyed.
  void Reset();

  std::string ColumnText(int column) const;
  int64_t ColumnInt(int column) const;
  double ColumnDouble(int column) const;  // NULL reads as NaN
  bool ColumnIsNull(int column) const;

 private:
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}

  sqlite3* db_;
  sqlite3_stmt* stmt_;
};

// A transaction on a connection, rolled back on destruction unless
// committed. Not copyable.
class Transaction {
 public:
  // BEGIN IMMEDIATE (takes the write lock now) when `write`, else BEGIN.
  // Errors: those of SqliteStatus.
  static absl::StatusOr<Transaction> Begin(sqlite3* db, bool write);

  Transaction(Transaction&& other) noexcept;
  Transaction& operator=(Transaction&&) = delete;
  ~Transaction();

  // Errors: those of SqliteStatus; the transaction then rolls back on
  // destruction.
  absl::Status Commit();

 private:
  explicit Transaction(sqlite3* db) : db_(db) {}
  sqlite3* db_;
};

// Row mapping. Column lists in the order Bind*Row binds (from 1) and
// Read*Row reads (from column 0).
extern const char kSweepColumns[];  // the 17 columns of `sweeps`
extern const char kStepColumns[];   // the 28 columns of `steps`

// Times are Unix nanoseconds; InfinitePast is NULL and InfiniteFuture is
// INT64_MAX.
void BindTime(Statement& stmt, int index, absl::Time t);
absl::Time ColumnTime(const Statement& stmt, int column);

void BindSweepRow(Statement& stmt, const SweepRecord& sweep);  // not nodes
void BindStepRow(Statement& stmt, const StepRecord& step);
// Per-rank wrong counts as stored: "RANK:COUNT,..." ("" when clean).
std::string EncodeWrongByRank(const std::map<int, int64_t>& wrong_by_rank);
std::map<int, int64_t> DecodeWrongByRank(absl::string_view text);
SweepRecord ReadSweepRow(const Statement& stmt);  // nodes left empty
StepRecord ReadStepRow(const Statement& stmt);

}  // namespace fabricpulse::coordinator
