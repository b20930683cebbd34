// The history's retention on a real coordinator: with `history: {max_age:
// 30d, max_bytes: 2M}`, sweeps seeded into its database (old ones, and
// ~9 MB of recent ones) are pruned after the next finished sweep, the
// oldest first, the file shrinks, and sweeps and results go on working.
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kConfig[] = R"(history:
  max_age: 30d
  max_bytes: 2M
)";

// Inserts `sweeps` finished sweeps named PREFIX-NNNN, one second apart from
// `first_start`, of 100 steps each (with a 200-byte filler per row).
void Seed(sqlite3* db, const std::string& prefix, int sweeps,
          absl::Time first_start) {
  const int64_t base = absl::ToUnixNanos(first_start);
  const std::string sql = absl::StrCat(
      "BEGIN;"
      "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE "
      "i < ",
      sweeps - 1,
      ") "
      "INSERT INTO sweeps (id, plan, sweep_trigger, spec_json, nranks, "
      "topology, backend, backend_version, started_unix_nanos, "
      "finished_unix_nanos, status, error, diagnosis, comm_init_seconds, "
      "comm_reused) SELECT printf('",
      prefix,
      "-%04d', i), 'adhoc', 'cli', "
      "'{}', 2, 'gloo:seed', 'gloo', 'gloo', ",
      base, " + i * 1000000000, ", base,
      " + i * 1000000000 + 1, 'succeeded', '', '', 0, 0 FROM n;"
      "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE "
      "i < 99) "
      "INSERT INTO steps (sweep_id, step_index, op, bytes, count, dtype, "
      "redop, root, in_place, wrong, slowest_rank, regression, wrong_by_rank) "
      "SELECT s.id, n.i, 'all_reduce', 1024 * (n.i + 1), 256 * (n.i + 1), "
      "'float', 'sum', -1, 0, 0, 0, 0, printf('%0200d', 0) FROM sweeps s, n "
      "WHERE s.id LIKE '",
      prefix,
      "-%';"
      "COMMIT;");
  char* error = nullptr;
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
      << (error != nullptr ? error : "");
}

std::vector<std::string> SweepIds(v1::CoordinatorService::Stub& stub) {
  grpc::ClientContext ctx;
  v1::ListSweepsRequest req;
  req.set_last(1000);
  v1::ListSweepsResponse resp;
  EXPECT_TRUE(stub.ListSweeps(&ctx, req, &resp).ok());
  std::vector<std::string> ids;
  for (const auto& s : resp.sweeps()) ids.push_back(s.sweep_id());
  return ids;
}

bool Has(const std::vector<std::string>& ids, const std::string& id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

TEST(RetentionIntegrationTest, OldAndOversizedHistoryIsPrunedWhileRunning) {
  char dir[] = "/tmp/fabricpulse-retention-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string config = std::string(dir) + "/config.yaml";
  std::ofstream(config) << kConfig;
  client::LocalClusterOptions options;
  options.bin_dir = BinDir();
  options.agents = 1;
  options.ranks = 2;
  options.config_file = config;
  auto cluster = StartCluster(options);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  auto stub = Connect((*cluster)->coordinator());
  const std::string db_path = (*cluster)->dir() + "/state/history.db";

  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  sqlite3_busy_timeout(db, 5000);
  Seed(db, "old", 3, absl::Now() - absl::Hours(24 * 100));
  Seed(db, "seed", 300, absl::Now() - absl::Hours(24));
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  const uint64_t seeded_bytes = std::filesystem::file_size(db_path);
  RecordProperty("seeded_bytes", static_cast<int>(seeded_bytes));
  EXPECT_GT(seeded_bytes, 6u << 20);
  std::vector<std::string> ids = SweepIds(*stub);
  ASSERT_TRUE(Has(ids, "old-0000"));
  ASSERT_TRUE(Has(ids, "seed-0000"));

  // A finished sweep sets the retention off (within the second).
  SweepOutcome outcome = RunSweep(*stub, QuickSpec({"all_reduce"}, 1024));
  ASSERT_TRUE(outcome.status.ok()) << outcome.status;
  const std::string real = outcome.finished.sweep_id();
  ASSERT_TRUE(Eventually([&] { return !Has(SweepIds(*stub), "seed-0000"); },
                         absl::Seconds(60)));
  ids = SweepIds(*stub);
  EXPECT_FALSE(Has(ids, "old-0000"));
  EXPECT_FALSE(Has(ids, "old-0002"));
  EXPECT_TRUE(Has(ids, "seed-0299"));  // the newest seeds stay
  EXPECT_TRUE(Has(ids, real));
  EXPECT_LT(ids.size(), 300u);
  ASSERT_TRUE(Eventually(
      [&] { return std::filesystem::file_size(db_path) < (3u << 20); },
      absl::Seconds(30)));
  RecordProperty("pruned_bytes",
                 static_cast<int>(std::filesystem::file_size(db_path)));
  std::ifstream log((*cluster)->dir() + "/coordinator.log");
  std::stringstream text;
  text << log.rdbuf();
  EXPECT_THAT(text.str(), HasSubstr("history retention: removed"));
  // Everything still works on the pruned history.
  outcome = RunSweep(*stub, QuickSpec({"all_reduce"}, 1024));
  EXPECT_TRUE(outcome.status.ok()) << outcome.status;
  CliResult results =
      RunCli({"--coordinator", (*cluster)->coordinator(), "results"});
  EXPECT_EQ(results.exit_code, 0) << results.err;
  CliResult one = RunCli(
      {"--coordinator", (*cluster)->coordinator(), "results", "--sweep", real});
  EXPECT_EQ(one.exit_code, 0) << one.err;
  cluster->reset();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace fabricpulse::testing
