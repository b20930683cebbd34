#include "daemon/coordinator/store/sweep_ranks.h"

#include "daemon/coordinator/store/schema.h"
#include "daemon/core/status_macros.h"

namespace fabricpulse::coordinator {

absl::Status WriteSweepRanks(sqlite3* db, absl::string_view sweep_id,
                             const std::vector<RankRecord>& ranks) {
  FP_ASSIGN_OR_RETURN(
      Statement insert,
      Statement::Prepare(db,
                         "INSERT INTO sweep_ranks (sweep_id, rank, node, "
                         "local_index, gpu, gpu_model, pci_bus_id) VALUES "
                         "(?, ?, ?, ?, ?, ?, ?)"));
  for (const RankRecord& r : ranks) {
    insert.BindText(1, sweep_id);
    insert.BindInt(2, r.rank);
    insert.BindText(3, r.node);
    insert.BindInt(4, r.local_index);
    insert.BindInt(5, r.gpu);
    insert.BindText(6, r.gpu_model);
    insert.BindText(7, r.pci_bus_id);
    FP_RETURN_IF_ERROR(insert.Run());
    insert.Reset();
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<RankRecord>> ReadSweepRanks(
    sqlite3* db, absl::string_view sweep_id) {
  FP_ASSIGN_OR_RETURN(
      Statement select,
      Statement::Prepare(db,
                         "SELECT rank, node, local_index, gpu, gpu_model, "
                         "pci_bus_id FROM sweep_ranks WHERE sweep_id = ? "
                         "ORDER BY rank"));
  select.BindText(1, sweep_id);
  std::vector<RankRecord> ranks;
  while (true) {
    FP_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    RankRecord r;
    r.rank = static_cast<int>(select.ColumnInt(0));
    r.node = select.ColumnText(1);
    r.local_index = static_cast<int>(select.ColumnInt(2));
    r.gpu = static_cast<int>(select.ColumnInt(3));
    r.gpu_model = select.ColumnText(4);
    r.pci_bus_id = select.ColumnText(5);
    ranks.push_back(std::move(r));
  }
  return ranks;
}

}  // namespace fabricpulse::coordinator
