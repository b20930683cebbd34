#include "daemon/coordinator/store/pair_rows.h"

#include <map>

#include "daemon/coordinator/store/schema.h"
#include "daemon/core/status_macros.h"

namespace fabricpulse::coordinator {

absl::Status InsertPairs(sqlite3* db, const StepRecord& step) {
  for (const PairRecord& pair : step.pairs) {
    FP_ASSIGN_OR_RETURN(
        Statement insert,
        Statement::Prepare(
            db,
            "INSERT INTO step_pairs (sweep_id, step_index, rank_a, rank_b, "
            "node_a, node_b, path, time_seconds, algbw, busbw, wrong, "
            "flagged) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    insert.BindText(1, step.sweep_id);
    insert.BindInt(2, step.index);
    insert.BindInt(3, pair.rank_a);
    insert.BindInt(4, pair.rank_b);
    insert.BindText(5, pair.node_a);
    insert.BindText(6, pair.node_b);
    insert.BindText(7, pair.path);
    insert.BindDouble(8, pair.time_seconds);
    insert.BindDouble(9, pair.algbw);
    insert.BindDouble(10, pair.busbw);
    insert.BindInt(11, pair.wrong);
    insert.BindInt(12, pair.flagged ? 1 : 0);
    FP_RETURN_IF_ERROR(insert.Run());
  }
  return absl::OkStatus();
}

absl::Status ReadPairs(sqlite3* db, absl::string_view sweep_id,
                       std::vector<StepRecord>& steps) {
  std::map<int, StepRecord*> by_index;
  for (StepRecord& step : steps) {
    if (step.round) by_index[step.index] = &step;
  }
  if (by_index.empty()) return absl::OkStatus();
  FP_ASSIGN_OR_RETURN(
      Statement select,
      Statement::Prepare(
          db,
          "SELECT step_index, rank_a, rank_b, node_a, node_b, path, "
          "time_seconds, algbw, busbw, wrong, flagged FROM step_pairs WHERE "
          "sweep_id = ? ORDER BY step_index, rank_a"));
  select.BindText(1, sweep_id);
  while (true) {
    FP_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    const auto it = by_index.find(static_cast<int>(select.ColumnInt(0)));
    if (it == by_index.end()) continue;
    PairRecord pair;
    pair.rank_a = static_cast<int>(select.ColumnInt(1));
    pair.rank_b = static_cast<int>(select.ColumnInt(2));
    pair.node_a = select.ColumnText(3);
    pair.node_b = select.ColumnText(4);
    pair.path = select.ColumnText(5);
    pair.time_seconds = select.ColumnDouble(6);
    pair.algbw = select.ColumnDouble(7);
    pair.busbw = select.ColumnDouble(8);
    pair.wrong = select.ColumnInt(9);
    pair.flagged = select.ColumnInt(10) != 0;
    it->second->pairs.push_back(std::move(pair));
  }
  return absl::OkStatus();
}

}  // namespace fabricpulse::coordinator
