// The pairwise matrix's rows in the history store (table step_pairs): one
// row per rank pair of a step, at most nranks / 2 a step.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "daemon/coordinator/store/history_store.h"

struct sqlite3;

namespace fabricpulse::coordinator {

// Inserts `step`'s pairs; the caller holds a write transaction.
absl::Status InsertPairs(sqlite3* db, const StepRecord& step);

// Fills the pairs of `steps` (sweep `sweep_id`'s, by index) from the table;
// the caller holds a transaction.
absl::Status ReadPairs(sqlite3* db, absl::string_view sweep_id,
                       std::vector<StepRecord>& steps);

}  // namespace fabricpulse::coordinator
