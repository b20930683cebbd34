// The `sweep_ranks` table (schema version 6): where each rank of a sweep
// ran. Callers hold the store's connection (HistoryStore's mutex) and run
// these inside their transaction.
#pragma once

#include <sqlite3.h>

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "daemon/coordinator/store/history_store.h"

namespace fabricpulse::coordinator {

// Inserts `ranks` for sweep `sweep_id` (which must exist). Errors: those
// of SqliteStatus (ALREADY_EXISTS for a rank listed twice).
absl::Status WriteSweepRanks(sqlite3* db, absl::string_view sweep_id,
                             const std::vector<RankRecord>& ranks);

// The ranks of sweep `sweep_id`, by rank; empty when none were stored (a
// sweep recorded before schema version 6). Errors: those of SqliteStatus.
absl::StatusOr<std::vector<RankRecord>> ReadSweepRanks(
    sqlite3* db, absl::string_view sweep_id);

}  // namespace fabricpulse::coordinator
