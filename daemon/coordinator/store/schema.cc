#include "daemon/coordinator/store/schema.h"

#include <cmath>
#include <iterator>
#include <limits>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace fabricpulse::coordinator {
namespace {

constexpr int64_t kFutureNanos = std::numeric_limits<int64_t>::max();

// Migration i (0-based) takes the schema from version i to i + 1.
constexpr const char* kMigrations[] = {
    // 1: sweeps, their member nodes and their steps. Times are Unix
    // nanoseconds (NULL = InfinitePast). REAL columns are nullable because
    // SQLite stores NaN as NULL.
    R"sql(
CREATE TABLE sweeps (
  id TEXT PRIMARY KEY NOT NULL,
  plan TEXT NOT NULL,
  sweep_trigger TEXT NOT NULL,
  spec_json TEXT NOT NULL,
  nranks INTEGER NOT NULL,
  topology TEXT NOT NULL,
  backend TEXT NOT NULL,
  backend_version TEXT NOT NULL,
  started_unix_nanos INTEGER,
  finished_unix_nanos INTEGER,
  status TEXT NOT NULL,
  error TEXT NOT NULL,
  diagnosis TEXT NOT NULL,
  comm_init_seconds REAL,
  comm_reused INTEGER NOT NULL
);
CREATE INDEX sweeps_by_start ON sweeps (started_unix_nanos);
CREATE INDEX sweeps_by_status ON sweeps (status);
CREATE INDEX sweeps_by_baseline_key
  ON sweeps (plan, status, nranks, topology, started_unix_nanos);
CREATE TABLE sweep_nodes (
  sweep_id TEXT NOT NULL REFERENCES sweeps (id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  node TEXT NOT NULL,
  PRIMARY KEY (sweep_id, position)
) WITHOUT ROWID;
CREATE TABLE steps (
  sweep_id TEXT NOT NULL REFERENCES sweeps (id) ON DELETE CASCADE,
  step_index INTEGER NOT NULL,
  op TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  count INTEGER NOT NULL,
  dtype TEXT NOT NULL,
  redop TEXT NOT NULL,
  root INTEGER NOT NULL,
  in_place INTEGER NOT NULL,
  time_seconds REAL,
  algbw REAL,
  busbw REAL,
  wrong INTEGER NOT NULL,
  slowest_rank INTEGER NOT NULL,
  min_rank_time_seconds REAL,
  max_rank_time_seconds REAL,
  p50_seconds REAL,
  p99_seconds REAL,
  regression INTEGER NOT NULL,
  baseline_busbw REAL,
  PRIMARY KEY (sweep_id, step_index)
);
CREATE INDEX steps_by_key ON steps (sweep_id, op, dtype, bytes, in_place);
)sql",
    // 2: the sweep's straggler ("" when none).
    R"sql(
ALTER TABLE sweeps ADD COLUMN straggler TEXT NOT NULL DEFAULT '';
)sql",
    // 3: each step's baseline time and how many sweeps its baseline had
    // (0 for steps judged before a baseline needed min_sweeps sweeps).
    R"sql(
ALTER TABLE steps ADD COLUMN baseline_time_seconds REAL;
ALTER TABLE steps ADD COLUMN baseline_sweeps INTEGER NOT NULL DEFAULT 0;
)sql",
    // 4: per-rank wrong counts ("RANK:COUNT,..."; "" when clean) and the
    // last rank to arrive (NULL when not measured).
    R"sql(
ALTER TABLE steps ADD COLUMN wrong_by_rank TEXT NOT NULL DEFAULT '';
ALTER TABLE steps ADD COLUMN last_arrival_rank INTEGER;
ALTER TABLE steps ADD COLUMN arrival_lateness_seconds REAL;
)sql",
    // 5: the timed iterations every rank ran. Steps stored before ran the
    // fixed count of their sweep's spec (its JSON's "iters"; 0 when the
    // spec does not say or is not JSON).
    R"sql(
ALTER TABLE steps ADD COLUMN iterations INTEGER NOT NULL DEFAULT 0;
UPDATE steps SET iterations = COALESCE((
  SELECT CASE WHEN json_valid(sweeps.spec_json)
    THEN CAST(json_extract(sweeps.spec_json, '$.iters') AS INTEGER) END
  FROM sweeps WHERE sweeps.id = steps.sweep_id), 0);
)sql",
    // 6: the pairwise matrix: each step's round (NULL for other ops) and
    // its pairs (at most nranks / 2 a step).
    R"sql(
ALTER TABLE steps ADD COLUMN pair_round INTEGER;
CREATE TABLE step_pairs (
  sweep_id TEXT NOT NULL REFERENCES sweeps (id) ON DELETE CASCADE,
  step_index INTEGER NOT NULL,
  rank_a INTEGER NOT NULL,
  rank_b INTEGER NOT NULL,
  node_a TEXT NOT NULL,
  node_b TEXT NOT NULL,
  path TEXT NOT NULL,
  time_seconds REAL,
  algbw REAL,
  busbw REAL,
  wrong INTEGER NOT NULL,
  flagged INTEGER NOT NULL,
  PRIMARY KEY (sweep_id, step_index, rank_a)
) WITHOUT ROWID;
)sql",
    // 7 (issue 15): why a sweep's steps were not judged against the sweeps
    // before it ("" when they were): its backend version or topology
    // differs from the plan's newest good sweep. Baselines also match the
    // backend version now: an index along their whole key.
    R"sql(
ALTER TABLE sweeps ADD COLUMN baseline_change TEXT NOT NULL DEFAULT '';
CREATE INDEX sweeps_by_versioned_baseline_key ON sweeps
  (plan, status, nranks, topology, backend_version, started_unix_nanos);
)sql",
    // 8: the ranks' mean time per step (NULL for steps stored before: not
    // recorded, never derived) and where each rank of a sweep ran (none for
    // sweeps stored before).
    R"sql(
ALTER TABLE steps ADD COLUMN mean_rank_time_seconds REAL;
CREATE TABLE sweep_ranks (
  sweep_id TEXT NOT NULL REFERENCES sweeps (id) ON DELETE CASCADE,
  rank INTEGER NOT NULL,
  node TEXT NOT NULL,
  local_index INTEGER NOT NULL,
  gpu INTEGER NOT NULL,
  gpu_model TEXT NOT NULL,
  pci_bus_id TEXT NOT NULL,
  PRIMARY KEY (sweep_id, rank)
) WITHOUT ROWID;
)sql",
    // 9 (issue 15): the isolations the coordinator ran after a plan's sweep
    // regressed or failed, one per parent sweep (removed with it), and
    // their measurements in order. Nodes and culprits are stored
    // comma-separated (node names have no commas: name_rules.h).
    R"sql(
CREATE TABLE isolations (
  sweep_id TEXT PRIMARY KEY NOT NULL REFERENCES sweeps (id) ON DELETE CASCADE,
  plan TEXT NOT NULL,
  cause TEXT NOT NULL,
  op TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  started_unix_nanos INTEGER,
  finished_unix_nanos INTEGER,
  verdict TEXT NOT NULL,
  culprits TEXT NOT NULL,
  summary TEXT NOT NULL
);
CREATE INDEX isolations_by_start ON isolations (started_unix_nanos);
CREATE TABLE isolation_rounds (
  sweep_id TEXT NOT NULL REFERENCES isolations (sweep_id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  role TEXT NOT NULL,
  nodes TEXT NOT NULL,
  ok INTEGER NOT NULL,
  busbw REAL,
  error TEXT NOT NULL,
  round_sweep_id TEXT NOT NULL,
  PRIMARY KEY (sweep_id, position)
) WITHOUT ROWID;
)sql",
    // 10 (issue 29, items 9, 2 and 3): whether a step's data was checked
    // (steps stored before say 1, as they were shown), whether its baseline
    // was too noisy to judge a drop to the threshold, and how the sweep
    // measured (core/measurement_key.h; '' before: such sweeps count for
    // any baseline, as they did).
    R"sql(
ALTER TABLE sweeps ADD COLUMN method_key TEXT NOT NULL DEFAULT '';
ALTER TABLE steps ADD COLUMN wrong_checked INTEGER NOT NULL DEFAULT 1;
ALTER TABLE steps ADD COLUMN baseline_noisy INTEGER NOT NULL DEFAULT 0;
)sql",
    // 11 (issue 28): campaigns, and the group results their node verdicts
    // rest on, in the order they were judged (a restart replays them into
    // each plan's verdict book). Kept apart from sweeps: a verdict outlives
    // the retention of the sweeps behind it, within its own bound.
    R"sql(
CREATE TABLE node_results (
  id INTEGER PRIMARY KEY,
  plan TEXT NOT NULL,
  at_unix_nanos INTEGER NOT NULL,
  nodes TEXT NOT NULL,
  ok INTEGER NOT NULL,
  data_wrong INTEGER NOT NULL,
  busbw REAL,
  reference_busbw REAL NOT NULL,
  reference_spread REAL NOT NULL,
  sweep_id TEXT NOT NULL,
  error TEXT NOT NULL
);
CREATE INDEX node_results_by_plan ON node_results (plan, id);
CREATE TABLE campaigns (
  id TEXT PRIMARY KEY NOT NULL,
  plan TEXT NOT NULL,
  trigger TEXT NOT NULL,
  grouping TEXT NOT NULL,
  started_unix_nanos INTEGER NOT NULL,
  finished_unix_nanos INTEGER,
  status TEXT NOT NULL,
  fleet INTEGER NOT NULL,
  measured INTEGER NOT NULL,
  untested INTEGER NOT NULL,
  pass INTEGER NOT NULL,
  degraded INTEGER NOT NULL,
  fail INTEGER NOT NULL,
  suspect INTEGER NOT NULL,
  second_passes INTEGER NOT NULL
);
CREATE INDEX campaigns_by_start ON campaigns (started_unix_nanos);
)sql",
};

constexpr int kLatest = static_cast<int>(std::size(kMigrations));

absl::StatusCode CodeFor(int rc) {
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_IOERR:
      return absl::StatusCode::kUnavailable;
    case SQLITE_CONSTRAINT:
      return absl::StatusCode::kAlreadyExists;
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      return absl::StatusCode::kDataLoss;
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
    case SQLITE_READONLY:
    case SQLITE_AUTH:
      return absl::StatusCode::kFailedPrecondition;
    case SQLITE_FULL:
      return absl::StatusCode::kResourceExhausted;
    default:
      return absl::StatusCode::kInternal;
  }
}

absl::Status TooNew(int version) {
  if (version < 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "history store: database has an invalid schema version ", version,
        " (this coordinator supports 0 to ", kLatest, ")"));
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "history store: database schema version ", version,
      " is newer than this coordinator supports (", kLatest,
      "); run a newer coordinator or point it at another state dir"));
}

}  // namespace

int LatestSchemaVersion() { return kLatest; }

absl::Status SqliteStatus(sqlite3* db, int rc, absl::string_view what) {
  if (rc == SQLITE_OK || rc == SQLITE_ROW || rc == SQLITE_DONE) {
    return absl::OkStatus();
  }
  const char* message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  return absl::Status(CodeFor(rc),
                      absl::StrCat("history store: ", what, ": ", message));
}

absl::Status Exec(sqlite3* db, const char* sql, absl::string_view what) {
  return SqliteStatus(db, sqlite3_exec(db, sql, nullptr, nullptr, nullptr),
                      what);
}

absl::StatusOr<int> ReadSchemaVersion(sqlite3* db) {
  absl::StatusOr<Statement> stmt =
      Statement::Prepare(db, "PRAGMA user_version");
  if (!stmt.ok()) return stmt.status();
  absl::StatusOr<bool> row = stmt->Step();
  if (!row.ok()) return row.status();
  return *row ? static_cast<int>(stmt->ColumnInt(0)) : 0;
}

absl::Status ApplyMigrations(sqlite3* db) {
  absl::StatusOr<int> version = ReadSchemaVersion(db);
  if (!version.ok()) return version.status();
  if (*version > kLatest || *version < 0) return TooNew(*version);
  if (*version == kLatest) return absl::OkStatus();

  absl::Status status = Exec(db, "BEGIN IMMEDIATE", "starting migration");
  if (!status.ok()) return status;
  // Read again under the write lock: another process may have migrated
  // between the first read and BEGIN.
  version = ReadSchemaVersion(db);
  if (!version.ok()) {
    status = version.status();
  } else if (*version > kLatest || *version < 0) {
    status = TooNew(*version);
  }
  for (int v = status.ok() ? *version : kLatest; v < kLatest; ++v) {
    status = Exec(db, kMigrations[v],
                  absl::StrCat("migrating schema to version ", v + 1));
    if (!status.ok()) break;
  }
  if (status.ok()) {
    status = Exec(db, absl::StrCat("PRAGMA user_version = ", kLatest).c_str(),
                  "setting schema version");
  }
  if (status.ok()) status = Exec(db, "COMMIT", "committing migration");
  if (!status.ok()) {
    // Best effort: the original error is the one to report.
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  return status;
}

absl::StatusOr<Transaction> Transaction::Begin(sqlite3* db, bool write) {
  absl::Status status =
      Exec(db, write ? "BEGIN IMMEDIATE" : "BEGIN", "starting a transaction");
  if (!status.ok()) return status;
  return Transaction(db);
}

Transaction::Transaction(Transaction&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)) {}

Transaction::~Transaction() {
  // Best effort: the caller already reports the error that got us here.
  if (db_ != nullptr) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
}

absl::Status Transaction::Commit() {
  absl::Status status = Exec(db_, "COMMIT", "committing");
  if (status.ok()) db_ = nullptr;
  return status;
}

absl::StatusOr<Statement> Statement::Prepare(sqlite3* db, const char* sql) {
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return SqliteStatus(db, rc, "preparing a statement");
  }
  return Statement(db, stmt);
}

Statement::Statement(Statement&& other) noexcept
    : db_(other.db_), stmt_(other.stmt_) {
  other.stmt_ = nullptr;
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

void Statement::BindText(int index, absl::string_view value) {
  // An empty view may have a null data(), which SQLite stores as NULL.
  sqlite3_bind_text(stmt_, index, value.data() != nullptr ? value.data() : "",
                    static_cast<int>(value.size()), SQLITE_TRANSIENT);
}

void Statement::BindInt(int index, int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
}

void Statement::BindDouble(int index, double value) {
  sqlite3_bind_double(stmt_, index, value);
}

void Statement::BindNull(int index) { sqlite3_bind_null(stmt_, index); }

absl::StatusOr<bool> Statement::Step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return SqliteStatus(db_, rc, "running a statement");
}

absl::Status Statement::Run() {
  absl::StatusOr<bool> row;
  do {
    row = Step();
  } while (row.ok() && *row);
  return row.status();
}

void Statement::Reset() { sqlite3_reset(stmt_); }

std::string Statement::ColumnText(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return "";
  return std::string(reinterpret_cast<const char*>(text),
                     sqlite3_column_bytes(stmt_, column));
}

int64_t Statement::ColumnInt(int column) const {
  return sqlite3_column_int64(stmt_, column);
}

double Statement::ColumnDouble(int column) const {
  if (ColumnIsNull(column)) return std::nan("");
  return sqlite3_column_double(stmt_, column);
}

bool Statement::ColumnIsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

void BindTime(Statement& stmt, int index, absl::Time t) {
  if (t == absl::InfinitePast()) {
    stmt.BindNull(index);
  } else if (t == absl::InfiniteFuture()) {
    stmt.BindInt(index, kFutureNanos);
  } else {
    stmt.BindInt(index, absl::ToUnixNanos(t));
  }
}

absl::Time ColumnTime(const Statement& stmt, int column) {
  if (stmt.ColumnIsNull(column)) return absl::InfinitePast();
  const int64_t nanos = stmt.ColumnInt(column);
  if (nanos == kFutureNanos) return absl::InfiniteFuture();
  return absl::FromUnixNanos(nanos);
}

const char kSweepColumns[] =
    "id, plan, sweep_trigger, spec_json, nranks, topology, backend, "
    "backend_version, started_unix_nanos, finished_unix_nanos, status, error, "
    "diagnosis, comm_init_seconds, comm_reused, straggler, baseline_change, "
    "method_key";
const char kStepColumns[] =
    "sweep_id, step_index, op, bytes, count, dtype, redop, root, in_place, "
    "time_seconds, algbw, busbw, wrong, slowest_rank, min_rank_time_seconds, "
    "max_rank_time_seconds, p50_seconds, p99_seconds, regression, "
    "baseline_busbw, baseline_time_seconds, baseline_sweeps, wrong_by_rank, "
    "last_arrival_rank, arrival_lateness_seconds, iterations, pair_round, "
    "mean_rank_time_seconds, wrong_checked, baseline_noisy";

namespace {

std::optional<double> OptionalDouble(const Statement& stmt, int column) {
  if (stmt.ColumnIsNull(column)) return std::nullopt;
  return stmt.ColumnDouble(column);
}

void BindOptionalDouble(Statement& stmt, int index, std::optional<double> v) {
  if (v) {
    stmt.BindDouble(index, *v);
  } else {
    stmt.BindNull(index);
  }
}

}  // namespace

std::string EncodeWrongByRank(const std::map<int, int64_t>& wrong_by_rank) {
  std::string out;
  for (const auto& [rank, wrong] : wrong_by_rank) {
    absl::StrAppend(&out, out.empty() ? "" : ",", rank, ":", wrong);
  }
  return out;
}

std::map<int, int64_t> DecodeWrongByRank(absl::string_view text) {
  std::map<int, int64_t> out;
  for (absl::string_view entry : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    std::pair<absl::string_view, absl::string_view> kv =
        absl::StrSplit(entry, absl::MaxSplits(':', 1));
    int rank = 0;
    int64_t wrong = 0;
    if (absl::SimpleAtoi(kv.first, &rank) &&
        absl::SimpleAtoi(kv.second, &wrong)) {
      out[rank] = wrong;
    }
  }
  return out;
}

SweepRecord ReadSweepRow(const Statement& stmt) {
  SweepRecord sweep;
  sweep.id = stmt.ColumnText(0);
  sweep.plan = stmt.ColumnText(1);
  sweep.trigger = stmt.ColumnText(2);
  sweep.spec_json = stmt.ColumnText(3);
  sweep.nranks = static_cast<int>(stmt.ColumnInt(4));
  sweep.topology = stmt.ColumnText(5);
  sweep.backend = stmt.ColumnText(6);
  sweep.backend_version = stmt.ColumnText(7);
  sweep.started = ColumnTime(stmt, 8);
  sweep.finished = ColumnTime(stmt, 9);
  sweep.status = stmt.ColumnText(10);
  sweep.error = stmt.ColumnText(11);
  sweep.diagnosis = stmt.ColumnText(12);
  sweep.comm_init_seconds = stmt.ColumnDouble(13);
  sweep.comm_reused = stmt.ColumnInt(14) != 0;
  sweep.straggler = stmt.ColumnText(15);
  sweep.baseline_change = stmt.ColumnText(16);
  sweep.method_key = stmt.ColumnText(17);
  return sweep;
}

StepRecord ReadStepRow(const Statement& stmt) {
  StepRecord step;
  step.sweep_id = stmt.ColumnText(0);
  step.index = static_cast<int>(stmt.ColumnInt(1));
  step.op = stmt.ColumnText(2);
  step.bytes = static_cast<uint64_t>(stmt.ColumnInt(3));
  step.count = static_cast<uint64_t>(stmt.ColumnInt(4));
  step.dtype = stmt.ColumnText(5);
  step.redop = stmt.ColumnText(6);
  step.root = static_cast<int>(stmt.ColumnInt(7));
  step.in_place = stmt.ColumnInt(8) != 0;
  step.time_seconds = stmt.ColumnDouble(9);
  step.algbw = stmt.ColumnDouble(10);
  step.busbw = stmt.ColumnDouble(11);
  step.wrong = stmt.ColumnInt(12);
  step.slowest_rank = static_cast<int>(stmt.ColumnInt(13));
  step.min_rank_time_seconds = stmt.ColumnDouble(14);
  step.max_rank_time_seconds = stmt.ColumnDouble(15);
  step.p50_seconds = OptionalDouble(stmt, 16);
  step.p99_seconds = OptionalDouble(stmt, 17);
  step.regression = stmt.ColumnInt(18) != 0;
  step.baseline_busbw = stmt.ColumnDouble(19);
  step.baseline_sweeps = static_cast<int>(stmt.ColumnInt(21));
  step.baseline_time_seconds =
      step.baseline_sweeps > 0 ? stmt.ColumnDouble(20) : 0;
  step.wrong_by_rank = DecodeWrongByRank(stmt.ColumnText(22));
  if (!stmt.ColumnIsNull(23)) {
    step.last_arrival_rank = static_cast<int>(stmt.ColumnInt(23));
  }
  step.arrival_lateness_seconds = OptionalDouble(stmt, 24);
  step.iterations = static_cast<int>(stmt.ColumnInt(25));
  if (!stmt.ColumnIsNull(26)) {
    step.round = static_cast<int>(stmt.ColumnInt(26));
  }
  step.mean_rank_time_seconds = OptionalDouble(stmt, 27);
  step.wrong_checked = stmt.ColumnInt(28) != 0;
  step.baseline_noisy = stmt.ColumnInt(29) != 0;
  return step;
}

void BindSweepRow(Statement& stmt, const SweepRecord& sweep) {
  stmt.BindText(1, sweep.id);
  stmt.BindText(2, sweep.plan);
  stmt.BindText(3, sweep.trigger);
  stmt.BindText(4, sweep.spec_json);
  stmt.BindInt(5, sweep.nranks);
  stmt.BindText(6, sweep.topology);
  stmt.BindText(7, sweep.backend);
  stmt.BindText(8, sweep.backend_version);
  BindTime(stmt, 9, sweep.started);
  BindTime(stmt, 10, sweep.finished);
  stmt.BindText(11, sweep.status);
  stmt.BindText(12, sweep.error);
  stmt.BindText(13, sweep.diagnosis);
  stmt.BindDouble(14, sweep.comm_init_seconds);
  stmt.BindInt(15, sweep.comm_reused ? 1 : 0);
  stmt.BindText(16, sweep.straggler);
  stmt.BindText(17, sweep.baseline_change);
  stmt.BindText(18, sweep.method_key);
}

void BindStepRow(Statement& stmt, const StepRecord& step) {
  stmt.BindText(1, step.sweep_id);
  stmt.BindInt(2, step.index);
  stmt.BindText(3, step.op);
  stmt.BindInt(4, static_cast<int64_t>(step.bytes));
  stmt.BindInt(5, static_cast<int64_t>(step.count));
  stmt.BindText(6, step.dtype);
  stmt.BindText(7, step.redop);
  stmt.BindInt(8, step.root);
  stmt.BindInt(9, step.in_place ? 1 : 0);
  stmt.BindDouble(10, step.time_seconds);
  stmt.BindDouble(11, step.algbw);
  stmt.BindDouble(12, step.busbw);
  stmt.BindInt(13, step.wrong);
  stmt.BindInt(14, step.slowest_rank);
  stmt.BindDouble(15, step.min_rank_time_seconds);
  stmt.BindDouble(16, step.max_rank_time_seconds);
  BindOptionalDouble(stmt, 17, step.p50_seconds);
  BindOptionalDouble(stmt, 18, step.p99_seconds);
  stmt.BindInt(19, step.regression ? 1 : 0);
  stmt.BindDouble(20, step.baseline_busbw);
  if (step.baseline_sweeps > 0) {
    stmt.BindDouble(21, step.baseline_time_seconds);
  } else {
    stmt.BindNull(21);
  }
  stmt.BindInt(22, step.baseline_sweeps);
  stmt.BindText(23, EncodeWrongByRank(step.wrong_by_rank));
  if (step.last_arrival_rank) {
    stmt.BindInt(24, *step.last_arrival_rank);
  } else {
    stmt.BindNull(24);
  }
  BindOptionalDouble(stmt, 25, step.arrival_lateness_seconds);
  stmt.BindInt(26, step.iterations);
  if (step.round) {
    stmt.BindInt(27, *step.round);
  } else {
    stmt.BindNull(27);
  }
  BindOptionalDouble(stmt, 28, step.mean_rank_time_seconds);
  stmt.BindInt(29, step.wrong_checked ? 1 : 0);
  stmt.BindInt(30, step.baseline_noisy ? 1 : 0);
}

}  // namespace fabricpulse::coordinator
